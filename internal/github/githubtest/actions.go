package githubtest

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml"
)

// GitHub Actions: workflow dispatches. A workflow is a file in
// .github/workflows/; dispatching it needs the file on the default branch
// (else 404) and, at the ref dispatched, a workflow_dispatch trigger (else
// 422), as GitHub answers. The fake starts nothing: it records the run.

// workflowRun is one dispatched run.
type workflowRun struct {
	id       int64
	workflow string // the file name
	ref, sha string
	user     identity
	created  time.Time
}

func (s *Server) dispatchWorkflow(c *call) reply {
	r := c.repo
	if r.empty() {
		return errorReply(http.StatusNotFound, "Not Found")
	}
	var in struct {
		Ref              string         `json:"ref"`
		Inputs           map[string]any `json:"inputs"`
		ReturnRunDetails bool           `json:"return_run_details"`
	}
	if rep, ok := c.decode(&in); !ok {
		return rep
	}
	file := c.params["workflow_id"]
	path := ".github/workflows/" + file
	if strings.Contains(file, "/") {
		return errorReply(http.StatusNotFound, "Not Found")
	}
	if _, ok := r.fileAt(r.refs["refs/heads/"+r.defaultBranch], path); !ok {
		return errorReply(http.StatusNotFound, "Not Found")
	}
	sha, ok := r.resolveRef(in.Ref)
	if !ok {
		return errorReply(http.StatusUnprocessableEntity, "No ref found for: "+in.Ref)
	}
	content, ok := r.fileAt(sha, path)
	if !ok {
		return errorReply(http.StatusNotFound, "Not Found")
	}
	if !dispatchable(content) {
		return errorReply(http.StatusUnprocessableEntity, "Workflow does not have 'workflow_dispatch' trigger")
	}
	run := &workflowRun{id: s.newIDLocked(), workflow: file, ref: in.Ref, sha: sha, user: c.who, created: s.now().UTC()}
	r.runs = append(r.runs, run)
	if !in.ReturnRunDetails {
		return reply{status: http.StatusNoContent}
	}
	id := strconv.FormatInt(run.id, 10)
	return jsonReply(http.StatusOK, map[string]any{
		"workflow_run_id": run.id,
		"run_url":         s.apiURL("repos", r.owner, r.name, "actions", "runs", id),
		"html_url":        s.htmlURL(r.owner, r.name, "actions", "runs", id),
	})
}

// resolveRef resolves a branch or tag name, or a full ref, to a commit.
func (r *repo) resolveRef(ref string) (string, bool) {
	for _, name := range []string{ref, "refs/heads/" + ref, "refs/tags/" + ref} {
		if strings.HasPrefix(name, "refs/") {
			if sha, ok := r.refs[name]; ok {
				return sha, true
			}
		}
	}
	return "", false
}

// fileAt returns the content of the file at path in commit sha.
func (r *repo) fileAt(sha, path string) ([]byte, bool) {
	o, ok := r.git.get(sha, kindCommit)
	if !ok {
		return nil, false
	}
	e, ok := r.git.lookup(o.commit.tree, path)
	if !ok || e.kind != kindBlob {
		return nil, false
	}
	b, ok := r.git.get(e.sha, kindBlob)
	if !ok {
		return nil, false
	}
	return b.blob, true
}

// dispatchable reports whether a workflow file's on: names
// workflow_dispatch, in any of its three forms (a string, a list, a map).
func dispatchable(content []byte) bool {
	var wf map[string]any
	if yaml.Unmarshal(content, &wf) != nil {
		return false
	}
	switch on := wf["on"].(type) {
	case string:
		return on == "workflow_dispatch"
	case []any:
		for _, e := range on {
			if e == "workflow_dispatch" {
				return true
			}
		}
	case map[string]any:
		_, ok := on["workflow_dispatch"]
		return ok
	}
	return false
}

// WorkflowRun is a dispatched workflow run as the server keeps it.
type WorkflowRun struct {
	ID int64
	// Workflow is the workflow's file name; Ref the ref dispatched and SHA
	// its commit then.
	Workflow, Ref, SHA string
	// Login is who dispatched it.
	Login string
}

// WorkflowRuns returns the runs dispatched on repo, oldest first.
func (s *Server) WorkflowRuns(repo string) []WorkflowRun {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []WorkflowRun
	for _, run := range s.repoLocked(repo).runs {
		out = append(out, WorkflowRun{ID: run.id, Workflow: run.workflow, Ref: run.ref, SHA: run.sha, Login: run.user.login})
	}
	return out
}
