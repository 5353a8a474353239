package action

import (
	"fmt"
	"strings"
)

// DefaultAPIURL is the GitHub REST API used when GITHUB_API_URL is unset.
const DefaultAPIURL = "https://api.github.com"

// Env is what the runner tells a step through the standard GITHUB_*
// variables.
type Env struct {
	// Actions is true when GITHUB_ACTIONS is "true", i.e. inside a runner.
	Actions bool
	// EventName is GITHUB_EVENT_NAME, e.g. "issues".
	EventName string
	// EventPath is GITHUB_EVENT_PATH, the webhook payload file.
	EventPath string
	// Repository is GITHUB_REPOSITORY, "owner/name".
	Repository string
	// Workspace is GITHUB_WORKSPACE, the checked-out repository.
	Workspace string
	// WorkflowRunID is GITHUB_RUN_ID.
	WorkflowRunID string
	// RunAttempt is GITHUB_RUN_ATTEMPT.
	RunAttempt string
	// SHA is GITHUB_SHA, the commit that triggered the workflow.
	SHA string
	// APIURL is GITHUB_API_URL, DefaultAPIURL when unset.
	APIURL string
	// OutputPath is GITHUB_OUTPUT, the step-outputs file.
	OutputPath string
	// SummaryPath is GITHUB_STEP_SUMMARY, the job-summary file.
	SummaryPath string
	// Actor is GITHUB_ACTOR, the user who triggered the workflow.
	Actor string
	// WorkflowName is GITHUB_WORKFLOW, the name of the GitHub workflow
	// (its file path when it has no name).
	WorkflowName string
}

// LoadEnv reads the GITHUB_* variables through getenv.
func LoadEnv(getenv func(string) string) Env {
	get := func(name string) string { return strings.TrimSpace(getenv(name)) }
	e := Env{
		Actions:       get("GITHUB_ACTIONS") == "true",
		EventName:     get("GITHUB_EVENT_NAME"),
		EventPath:     get("GITHUB_EVENT_PATH"),
		Repository:    get("GITHUB_REPOSITORY"),
		Workspace:     get("GITHUB_WORKSPACE"),
		WorkflowRunID: get("GITHUB_RUN_ID"),
		RunAttempt:    get("GITHUB_RUN_ATTEMPT"),
		SHA:           get("GITHUB_SHA"),
		APIURL:        get("GITHUB_API_URL"),
		OutputPath:    get("GITHUB_OUTPUT"),
		SummaryPath:   get("GITHUB_STEP_SUMMARY"),
		Actor:         get("GITHUB_ACTOR"),
		WorkflowName:  get("GITHUB_WORKFLOW"),
	}
	if e.APIURL == "" {
		e.APIURL = DefaultAPIURL
	}
	return e
}

// RunID is optr's run id in Actions, "<GITHUB_RUN_ID>-<GITHUB_RUN_ATTEMPT>"
// (architecture §4.3). The attempt defaults to 1; without GITHUB_RUN_ID the run id
// is empty and the caller picks one.
func (e Env) RunID() string {
	if e.WorkflowRunID == "" {
		return ""
	}
	attempt := e.RunAttempt
	if attempt == "" {
		attempt = "1"
	}
	return e.WorkflowRunID + "-" + attempt
}

// Repo splits Repository into owner and name.
func (e Env) Repo() (owner, name string, err error) {
	owner, name, ok := strings.Cut(e.Repository, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return "", "", fmt.Errorf("GITHUB_REPOSITORY %q is not owner/name: run inside GitHub Actions or set it by hand", e.Repository)
	}
	return owner, name, nil
}
