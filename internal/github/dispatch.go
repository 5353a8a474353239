package github

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
)

// WorkflowRun is a workflow run optr started.
type WorkflowRun struct {
	// Workflow is the workflow's file name.
	Workflow string
	// ID and URL identify the run; both are empty when GitHub did not say
	// (an older GitHub Enterprise Server answers without run details).
	ID  int64
	URL string
}

// DispatchError is a workflow dispatch GitHub refused.
type DispatchError struct {
	Workflow string
	// Status is GitHub's HTTP status, Message its message.
	Status  int
	Message string
}

// Error implements error, with what to change.
func (e *DispatchError) Error() string {
	why := e.Message
	switch e.Status {
	case http.StatusUnprocessableEntity:
		if e.Message == "Workflow does not have 'workflow_dispatch' trigger" {
			why = "it has no workflow_dispatch trigger: add `workflow_dispatch:` to its `on:`"
		}
	case http.StatusForbidden:
		why = e.Message + ": the job needs `permissions: actions: write` to start workflows"
	case http.StatusNotFound:
		why = "no such workflow: .github/workflows/" + e.Workflow + " must exist on the default branch"
	}
	return fmt.Sprintf("GitHub refused to start %s (%d): %s", e.Workflow, e.Status, why)
}

// DispatchWorkflow starts the workflow in .github/workflows/<file> on ref
// with a workflow_dispatch event (POST
// actions/workflows/{file}/dispatches), asking GitHub for the run's id
// and page. A refusal is a *DispatchError saying what to change.
func (c *Client) DispatchWorkflow(ctx context.Context, file, ref string) (WorkflowRun, error) {
	// go-github v60 predates return_run_details, so the request is made
	// with its request helpers.
	u := fmt.Sprintf("repos/%s/%s/actions/workflows/%s/dispatches", c.owner, c.repo, url.PathEscape(file))
	req, err := c.gh.NewRequest(http.MethodPost, u, map[string]any{"ref": ref, "return_run_details": true})
	if err != nil {
		return WorkflowRun{}, err
	}
	var out struct {
		ID      int64  `json:"workflow_run_id"`
		HTMLURL string `json:"html_url"`
	}
	_, err = c.gh.Do(ctx, req, &out)
	if s := statusOf(err); s == http.StatusUnprocessableEntity || s == http.StatusForbidden || s == http.StatusNotFound {
		return WorkflowRun{}, &DispatchError{Workflow: file, Status: s, Message: messageOf(err)}
	}
	if err != nil {
		return WorkflowRun{}, fmt.Errorf("start %s on %s: %w", file, ref, err)
	}
	return WorkflowRun{Workflow: file, ID: out.ID, URL: out.HTMLURL}, nil
}
