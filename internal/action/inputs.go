package action

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/optr-dev/optr/internal/config"
)

// Command values of the command input.
const (
	// CommandAuto decides from the event (the default).
	CommandAuto = "auto"
	// CommandRun runs whatever the event, see Parse.
	CommandRun = "run"
	// CommandAbort aborts the run waiting on the event's issue.
	CommandAbort = "abort"
	// CommandPlan decides from the event like auto, but a run is planned
	// as a matrix of tasks instead of run (architecture §4.11).
	CommandPlan = "plan"
	// CommandTask runs the one task named by the task input.
	CommandTask = "task"
	// CommandGather gathers the tasks' results, selects, records, commits.
	CommandGather = "gather"
)

var commandValues = []string{CommandAuto, CommandRun, CommandAbort, CommandPlan, CommandTask, CommandGather}

// Inputs are the action's inputs (action.yml, architecture §4.2) with defaults
// applied.
type Inputs struct {
	// GitHubToken is the github-token input.
	GitHubToken string
	// PRToken is the pr-token input (architecture §4.16): a token used only to
	// push π*'s branch and open its pull request, so that the repository's
	// pull_request workflows run on it; empty: GitHubToken does that.
	PRToken string
	// Config is the config file path, empty for the default.
	Config string
	// Workflow, Intent, Constraints and Pipeline override what the event says.
	Workflow    string
	Intent      string
	Constraints string
	Pipeline    string
	// Command is auto, run or abort (default auto).
	Command string
	// TriggerLabel is the label that starts a run (default optr).
	TriggerLabel string
	// Datalake is the datalake directory (default .optr).
	Datalake string
	// LedgerBranch is the branch the ledger is committed to; empty means
	// the repository's default branch.
	LedgerBranch string
	// Commit says whether to commit the run back (default true).
	Commit bool
	// Changes overrides the config's changes.mode (none, pull-request or
	// apply); empty means the config decides (architecture §4.12).
	Changes string
	// Task is the task id for command task.
	Task string
	// Plan is the plan file of command task and gather (default
	// optr-plan/plan.json); its directory is where command plan writes it.
	Plan string
	// Results is where command task writes its folder and command gather
	// reads the downloaded ones (default optr-tasks).
	Results string
}

// LoadInputs reads the inputs through getenv. The runner passes an input
// named github-token as INPUT_GITHUB-TOKEN: upper-cased with the hyphen
// kept. The underscore form (INPUT_GITHUB_TOKEN) is accepted too, for people
// who run the container by hand. Values are trimmed.
func LoadInputs(getenv func(string) string) (Inputs, error) {
	get := func(name, def string) string {
		if v := Input(getenv, name); v != "" {
			return v
		}
		return def
	}
	in := Inputs{
		GitHubToken:  get("github-token", ""),
		PRToken:      get("pr-token", ""),
		Config:       get("config", ""),
		Workflow:     get("workflow", ""),
		Intent:       get("intent", ""),
		Constraints:  get("constraints", ""),
		Pipeline:     get("pipeline", ""),
		Command:      get("command", CommandAuto),
		TriggerLabel: get("trigger-label", "optr"),
		Datalake:     get("datalake", ".optr"),
		LedgerBranch: get("ledger-branch", ""),
		Changes:      get("changes", ""),
		Task:         get("task", ""),
		Plan:         get("plan", "optr-plan/plan.json"),
		Results:      get("results", "optr-tasks"),
	}
	var errs []error
	if !slices.Contains(commandValues, in.Command) {
		errs = append(errs, fmt.Errorf("input command is %q: use one of %s", in.Command, strings.Join(commandValues, ", ")))
	}
	if in.Changes != "" && !slices.Contains(config.ChangesModes, in.Changes) {
		errs = append(errs, fmt.Errorf("input changes is %q: use one of %s, or leave it empty for the config's changes.mode",
			in.Changes, strings.Join(config.ChangesModes, ", ")))
	}
	if in.Command == CommandTask && in.Task == "" {
		errs = append(errs, errors.New("input command is task, but the task input is empty: pass the task id (task: ${{ matrix.task }})"))
	}
	commit, err := parseBool(get("commit", "true"))
	if err != nil {
		errs = append(errs, fmt.Errorf("input commit: %w", err))
	}
	in.Commit = commit
	return in, errors.Join(errs...)
}

// Input returns the trimmed value of the input name: INPUT_<NAME> with the
// name upper-cased and hyphens kept, else the same with hyphens replaced by
// underscores.
func Input(getenv func(string) string, name string) string {
	key := "INPUT_" + strings.ToUpper(strings.ReplaceAll(name, " ", "_"))
	if v := strings.TrimSpace(getenv(key)); v != "" {
		return v
	}
	if alt := strings.ReplaceAll(key, "-", "_"); alt != key {
		return strings.TrimSpace(getenv(alt))
	}
	return ""
}

// parseBool reads a boolean the way the Actions toolkit's getBooleanInput
// does (the YAML 1.2 core schema): true, True, TRUE, false, False, FALSE.
func parseBool(s string) (bool, error) {
	switch s {
	case "true", "True", "TRUE":
		return true, nil
	case "false", "False", "FALSE":
		return false, nil
	}
	return false, fmt.Errorf("%q is not a boolean: use true or false", s)
}
