package githubtest

import (
	"context"
	"net/http"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	gh "github.com/google/go-github/v60/github"
)

const dispatchOp = "POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches"

// dispatch sends a workflow dispatch; go-github v60 does not know
// return_run_details, so the request is made by hand.
func dispatch(ctx context.Context, c *gh.Client, file, ref string, details bool) (map[string]any, *gh.Response, error) {
	req, err := c.NewRequest(http.MethodPost, "repos/"+owner+"/"+name+"/actions/workflows/"+file+"/dispatches",
		map[string]any{"ref": ref, "return_run_details": details})
	if err != nil {
		return nil, nil, err
	}
	var out map[string]any
	resp, err := c.Do(ctx, req, &out)
	return out, resp, err
}

func TestWorkflowDispatch(t *testing.T) {
	s := NewServer(t)
	c := newClient(t, s, "token")
	ctx := t.Context()
	s.Commit(DefaultRepo, "main", map[string]string{
		".github/workflows/ci.yml":   "on:\n  push:\n  workflow_dispatch:\njobs: {}\n",
		".github/workflows/push.yml": "on: [push, pull_request]\njobs: {}\n",
		".github/workflows/only.yml": "on: workflow_dispatch\njobs: {}\n",
	}, "workflows")
	tip := s.Commit(DefaultRepo, "optr/x/1-1", map[string]string{"a.txt": "a\n"}, "change")

	out, resp, err := dispatch(ctx, c, "ci.yml", "optr/x/1-1", true)
	if err != nil || resp.StatusCode != http.StatusOK || !strings.Contains(out["html_url"].(string), "/octo-org/octo-repo/actions/runs/") {
		t.Fatalf("dispatch with run details = %v, %v", out, err)
	}
	if _, resp, err = dispatch(ctx, c, "only.yml", "main", false); err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("dispatch = %v, %v", resp, err)
	}
	runs := s.WorkflowRuns(DefaultRepo)
	want := []WorkflowRun{
		{ID: int64(out["workflow_run_id"].(float64)), Workflow: "ci.yml", Ref: "optr/x/1-1", SHA: tip, Login: DefaultLogin},
		{ID: runs[1].ID, Workflow: "only.yml", Ref: "main", SHA: s.Head(DefaultRepo, "main"), Login: DefaultLogin},
	}
	if diff := cmp.Diff(want, runs); diff != "" {
		t.Errorf("runs (-want +got):\n%s", diff)
	}

	for _, tc := range []struct {
		file, ref string
		status    int
		message   string
	}{
		{"push.yml", "main", http.StatusUnprocessableEntity, "Workflow does not have 'workflow_dispatch' trigger"},
		{"missing.yml", "main", http.StatusNotFound, "Not Found"},
		{"ci.yml", "no-such-branch", http.StatusUnprocessableEntity, "No ref found for: no-such-branch"},
	} {
		_, _, err := dispatch(ctx, c, tc.file, tc.ref, true)
		if statusOf(err) != tc.status || messageOf(err) != tc.message {
			t.Errorf("dispatch %s on %s: %v, want %d %q", tc.file, tc.ref, err, tc.status, tc.message)
		}
	}
	s.Deny("token", dispatchOp)
	_, _, err = dispatch(ctx, c, "ci.yml", "main", true)
	if statusOf(err) != http.StatusForbidden || messageOf(err) != "Resource not accessible by integration" {
		t.Errorf("dispatch without actions: write = %v, want 403", err)
	}
	if n := len(s.WorkflowRuns(DefaultRepo)); n != 2 {
		t.Errorf("%d runs after the refusals, want 2", n)
	}
	if _, _, err := dispatch(ctx, newClient(t, s, "other"), "ci.yml", "main", true); err != nil {
		t.Errorf("another token is not denied: %v", err)
	}
}

func TestDispatchable(t *testing.T) {
	for in, want := range map[string]bool{
		"on: workflow_dispatch\n":                     true,
		"on: [push, workflow_dispatch]\n":             true,
		"on:\n  workflow_dispatch:\n    inputs: {}\n": true,
		"on: push\n": false,
		"on:\n  push:\n    branches: [workflow_dispatch]\n": false,
		"not: yaml: [": false,
	} {
		if got := dispatchable([]byte(in)); got != want {
			t.Errorf("dispatchable(%q) = %v", in, got)
		}
	}
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}
