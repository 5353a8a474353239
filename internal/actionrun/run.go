package actionrun

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/optr-dev/optr/internal/datalake"

	"github.com/optr-dev/optr/internal/action"
	"github.com/optr-dev/optr/internal/comment"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/escalation"
	"github.com/optr-dev/optr/internal/pipeline"
	"github.com/optr-dev/optr/internal/preflight"
)

// run carries out a Run trigger: prepare, announce, execute, record,
// commit back, report.
func (j *Job) run(ctx context.Context, trig action.Trigger) error {
	for _, bad := range trig.RejectedConstraints {
		j.log.Warning(fmt.Sprintf("ignored %q in the constraints: not a constraint name", bad))
	}
	runID := j.env.RunID()
	if _, err := preflight.Check(ctx, preflight.Input{Datalake: j.in.Datalake, Workspace: j.workspace()}); err != nil {
		return j.failEarly(ctx, trig, runID, &UsageError{Err: err})
	}
	cfg, err := j.loadConfig()
	if err != nil {
		return j.failEarly(ctx, trig, runID, &UsageError{Err: err})
	}
	spec := pipeline.Spec{
		Config: cfg, Workflow: trig.Workflow, RunID: runID, Intent: trig.Intent,
		Constraints: trig.Constraints, Pipeline: trig.Pipeline, Commit: j.env.SHA,
		Datalake: j.datalake(), LedgerPath: datalake.Open(j.datalake()).LedgerPath(), Dir: j.workspace(),
	}
	deps := j.deps()
	deps.OnEscalation = j.escalationComments(ctx, trig, cfg.Escalation.Mention)
	p, err := pipeline.Prepare(spec, deps)
	if err != nil {
		return j.failEarly(ctx, trig, runID, &UsageError{Err: err})
	}
	pr := j.newProgress(ctx, trig, runID, p)
	p.SetOnEvent(pr.event)
	rep, err := p.Execute(ctx)
	if err != nil {
		if rep == nil {
			pr.fail(ctx, err.Error())
			if pipeline.IsInputError(err) {
				return &UsageError{Err: err}
			}
			return err
		}
		pr.fail(ctx, err.Error())
		return err
	}
	pipeline.Decide(rep)
	j.logResults(rep)
	if rep.Status == pipeline.Paused {
		return j.pause(ctx, trig, rep, pr)
	}
	return j.finish(ctx, trig, rep, pr)
}

// finish records the run in the ledger, commits it back and reports it.
func (j *Job) finish(ctx context.Context, trig action.Trigger, rep *pipeline.Report, pr *progressComment) error {
	if err := pipeline.Record(rep, j.Now()); err != nil {
		pr.fail(ctx, "could not record the run: "+err.Error())
		return err
	}
	commit, cerr := j.commitBack(ctx, rep)
	pr.finish(ctx, rep, commit)
	j.summary(rep, commit)
	j.setOutputs(outcome{
		status: rep.Status, runID: rep.Spec.RunID, selected: rep.Selected, resultFile: rep.ResultPath,
		ledgerHash: rep.LedgerHash, ledgerCommit: commit, message: rep.Message,
	})
	if cerr != nil {
		return fmt.Errorf("the run was recorded in the workspace but not committed: %w", cerr)
	}
	if rep.Status == pipeline.Failed {
		j.log.Error(fmt.Sprintf("run %s failed: %s", rep.Spec.RunID, rep.Message))
		return &FailedError{Err: errors.New(rep.Message)}
	}
	j.log.Notice(fmt.Sprintf("run %s %s: π* = %s", rep.Spec.RunID, rep.Status, rep.Selected))
	return nil
}

// failEarly reports a run that could not start (bad config, bad input).
func (j *Job) failEarly(ctx context.Context, trig action.Trigger, runID string, err error) error {
	j.log.Error(err.Error())
	if trig.Issue != 0 {
		body := fmt.Sprintf("optr could not start run %s:\n\n%s", runID, comment.Fence(err.Error()))
		if _, cerr := j.gh.UpsertComment(ctx, trig.Issue, "run", runID, body); cerr != nil {
			j.log.Warning("could not comment on the issue: " + cerr.Error())
		}
	}
	j.setOutputs(outcome{status: pipeline.Failed, runID: runID, message: err.Error()})
	return err
}

func (j *Job) loadConfig() (*config.Config, error) {
	path := j.in.Config
	explicit := path != "" && path != config.DefaultPath
	if path == "" {
		path = config.DefaultPath
	}
	cfg, err := config.LoadOrDefault(j.inWorkspace(path), explicit, j.agentEnv)
	if err != nil {
		return nil, err
	}
	// Mask every key the config points at before any agent can print it.
	for _, name := range cfg.AgentNames {
		if env := cfg.Agents[name].APIKeyEnv; env != "" {
			j.log.Mask(j.Getenv(env))
		}
	}
	return cfg, nil
}

// agentEnv is the environment LLM providers read. In a Docker action the
// token arrives only as the github-token input; GitHub Models needs it as
// GITHUB_TOKEN.
func (j *Job) agentEnv(key string) string {
	v := j.Getenv(key)
	if v == "" && key == "GITHUB_TOKEN" {
		return j.in.GitHubToken
	}
	return v
}

func (j *Job) deps() pipeline.Deps {
	var environ []string
	for _, kv := range j.Environ {
		if !strings.HasPrefix(kv, "INPUT_") { // action inputs are not the agents' business
			environ = append(environ, kv)
		}
	}
	return pipeline.Deps{
		Getenv: j.agentEnv, Environ: environ, HTTPClient: j.HTTPClient, Now: j.Now,
		Stderr: logLines(func(line string) { j.log.Infof("%s", line) }),
		Logf:   func(format string, args ...any) { j.log.Untrusted("diagnostic", fmt.Sprintf(format, args...)) },
	}
}

// escalationComments posts an escalation comment for each watcher
// decision that needs a human (escalate_ceo, abort), once per escalation.
func (j *Job) escalationComments(ctx context.Context, trig action.Trigger, mention []string) func(escalation.Escalation) {
	var mu sync.Mutex // decisions arrive from agent goroutines; writes to GitHub go one at a time
	return func(e escalation.Escalation) {
		j.log.Warning(fmt.Sprintf("watcher: %s — %s", e.Decision.Action, e.Reason))
		if !e.NeedsHuman() || trig.Issue == 0 {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if _, err := j.gh.UpsertComment(ctx, trig.Issue, comment.KindEscalation, e.ID, escalation.Comment(e, mention)); err != nil {
			j.log.Warning("could not post the escalation comment: " + err.Error())
		}
	}
}

// logLines is an io.Writer that hands each complete line to fn.
type logLines func(string)

func (f logLines) Write(p []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		if line != "" {
			f(line)
		}
	}
	return len(p), nil
}

func (j *Job) workspace() string {
	if j.env.Workspace != "" {
		return j.env.Workspace
	}
	return "."
}

func (j *Job) inWorkspace(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(j.workspace(), p)
}

func (j *Job) datalake() string { return j.inWorkspace(j.in.Datalake) }

// logResults prints one log group per agent; agent text is untrusted.
func (j *Job) logResults(rep *pipeline.Report) {
	for _, r := range rep.Results {
		j.log.Group(fmt.Sprintf("%s: %s in %dms", r.Agent, r.Status, r.ExecMS))
		if r.Error != "" {
			j.log.Untrusted("error", r.Error)
		}
		if r.Output != "" {
			j.log.Untrusted("output", r.Output)
		}
		if r.Stderr != "" {
			j.log.Untrusted("stderr", r.Stderr)
		}
		j.log.EndGroup()
	}
}
