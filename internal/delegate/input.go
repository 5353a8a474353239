package delegate

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/selection"
)

// Input is what a delegate run needs from the run driver.
type Input struct {
	// Config is the run's config: the agents' providers (LLM or command)
	// and the selection rules for candidates > 1.
	Config *config.Config
	// Pipeline is the delegate pipeline, with its defaults filled in.
	Pipeline config.Pipeline
	// Intent is the request (untrusted text).
	Intent string
	// Workflow names the spec folder (specs/NNN_<workflow>); RunID is the
	// run's id (errors.jsonl's workflow_id).
	Workflow, RunID string
	// Datalake is the datalake root.
	Datalake string
	// Dir is the workspace, against which a relative REPORT_CREATED path
	// resolves (command agents run there).
	Dir string
	// Task builds the executor task of a configured agent (the driver's
	// agent factory, redaction included).
	Task func(name string) (executor.Task, error)
	// Exec are the base executor options: Request (workflow, run id,
	// workspace, output dir, constraint names), Policy, Constraints (the
	// run's constraints: specialists' reports are checked against them,
	// the coordinator's plan is not), CheckDuringRecovery, MaxParallel,
	// OnEvent, Now, Supervise, Failed, MaxRestarts and Sink. Tasks are set
	// by Run; Spares and Synthesizer are not used (a specialist's task
	// holds its topic, which a spare would not get).
	Exec executor.Options
	// Redact, when set, removes secrets from text optr keeps that did not
	// pass through the redacting agent: a command specialist's report file
	// and the messages in errors.jsonl.
	Redact func(string) string
	// Choose scores a topic's candidates and chooses among them under
	// rules (the run's selection rules, on-no-admissible: fail), as the
	// driver chooses π*: each one's verdicts and cost settled first (the
	// driver's Execution.Choose). Needed when Pipeline.Candidates > 1;
	// with one candidate, a report is judged once Choose settled it.
	Choose func(ctx context.Context, results []*executor.Result, rules config.Selection) selection.Result
	// OnProgress, when set, hears the topics' states whenever one changes
	// (for the progress comment's checklist). It must be safe for
	// concurrent use.
	OnProgress func(Progress)
}

func (in *Input) now() time.Time {
	if in.Exec.Now != nil {
		return in.Exec.Now()
	}
	return time.Now()
}

func (in *Input) redact(s string) string {
	if in.Redact != nil {
		return in.Redact(s)
	}
	return s
}

// isLLM reports whether the configured agent name answers as an LLM does
// (its answer is its output) rather than running a program.
func (in *Input) isLLM(name string) bool {
	return in.Config.Agents[name].Provider != config.ProviderCommand
}

// check refuses an Input Run cannot use, before anything is written.
func (in *Input) check() error {
	p := in.Pipeline
	var errs []error
	if in.Config == nil {
		errs = append(errs, errors.New("no configuration"))
	}
	if in.Task == nil {
		errs = append(errs, errors.New("no agent factory (Input.Task)"))
	}
	if in.Choose == nil && p.Candidates > 1 {
		errs = append(errs, errors.New("no selection of a topic's candidates (Input.Choose)"))
	}
	if err := datalake.ValidateWorkflow(in.Workflow); err != nil {
		errs = append(errs, err)
	}
	if err := datalake.ValidateRunID(in.RunID); err != nil {
		errs = append(errs, err)
	}
	if in.Intent == "" {
		errs = append(errs, errors.New("the intent is empty"))
	}
	if p.Coordinator == "" {
		errs = append(errs, errors.New("the pipeline names no coordinator"))
	}
	if len(p.Agents) == 0 {
		errs = append(errs, errors.New("the pipeline names no specialists (agents)"))
	}
	if p.MaxTopics < 1 {
		errs = append(errs, fmt.Errorf("max-topics is %d; it must be at least 1", p.MaxTopics))
	}
	if p.Candidates < 1 || p.Candidates > len(p.Agents) {
		errs = append(errs, fmt.Errorf("candidates is %d; it must be from 1 to the number of specialists (%d)", p.Candidates, len(p.Agents)))
	}
	if p.Threshold <= 0 || p.Threshold > 1 {
		errs = append(errs, fmt.Errorf("threshold is %g; it must be above 0 and at most 1", p.Threshold))
	}
	if in.Config != nil {
		for _, n := range append([]string{p.Coordinator}, p.Agents...) {
			if _, ok := in.Config.Agents[n]; !ok && n != "" {
				errs = append(errs, fmt.Errorf("agent %q is not configured", n))
			}
		}
	}
	return errors.Join(errs...)
}
