package pipeline

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/goccy/go-yaml"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/check"
	"github.com/optr-dev/optr/internal/cost"
	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/escalation"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/ledger"
	"github.com/optr-dev/optr/internal/preflight"
	"github.com/optr-dev/optr/internal/procgroup"
	"github.com/optr-dev/optr/internal/sandbox"
	"github.com/optr-dev/optr/internal/secretscan"
	"github.com/optr-dev/optr/internal/selection"
)

// report is a run as the driver carries it: its Outcome, filled in as
// the run goes, and what only the driver uses. It is the driver's alone:
// readers get a snapshot (outcome), modes hand it their part through the
// Execution.
type report struct {
	Outcome
	// run is the run's directory (Outcome.RunDir its path).
	run *datalake.Run
	// meter counts what the run spent, per agent and in total
	// (architecture §4.17); it keeps counting after the mode ran (a
	// detector before delivery). Outcome's spend reads it.
	meter *cost.Meter
	// escMu guards Escalations, which the watcher appends to from agent
	// goroutines.
	escMu sync.Mutex
	// aborted is the watcher's abort, with its reason, when it aborted
	// the run.
	aborted   error
	concluder Mode
	// records are what people did with each agent's pull requests lately
	// (Prepared.records): a checkpoint's recommendation weighs them.
	records map[string]selection.Record
	// raised counts the checkpoints the run raised; retry is where the
	// last one's Proceed carries the run on (nil: Proceed selects).
	raised int
	retry  *Retry
	// outputs are the outputs a resumed run's checkpoint names, read
	// back by Driver.readOutputs.
	outputs map[string]OutputRef
	// scanned holds every candidate's threat scan (detection.all).
	scanned map[string]*Detection
}

// setRun makes run the run's directory.
func (rep *report) setRun(run *datalake.Run) {
	rep.run, rep.RunDir = run, run.Dir
}

// setMeter makes m the run's meter, which the outcome's spend reads.
func (rep *report) setMeter(m *cost.Meter) {
	rep.meter, rep.spend = m, m
}

// Execute creates the run's directory, writes the resolved workflow,
// starts the watcher and runs the mode — by default select: the intent
// fanned out to every agent, each result captured as its agent finishes,
// checked and scored. It records nothing in the ledger and concludes
// nothing: the Driver does, and a matrix task hands its outcome — results,
// escalations, files in its RunDir — to the gather.
func (p *Prepared) Execute(ctx context.Context) (*Outcome, error) {
	rep, err := p.execute(ctx)
	return rep.outcome(), err
}

func (p *Prepared) execute(ctx context.Context) (*report, error) {
	spec := p.Spec
	lake, err := p.setUp(ctx)
	if err != nil {
		return nil, err
	}
	defer p.changes.discard(ctx, p.deps.logf)
	run, err := lake.NewRun(spec.Workflow, spec.RunID)
	if err != nil {
		if errors.Is(err, datalake.ErrRunExists) {
			return nil, inputErr(err)
		}
		return nil, err
	}
	rep := &report{
		Outcome: Outcome{Spec: spec, ConstraintInfo: constraintInfo(p.Constraints), Started: p.deps.now().UTC(), Mode: p.mode.Traits().Name,
			Sandbox: p.sandbox.Layers(), SandboxNotes: p.sandbox.Notes()},
		concluder: p.mode,
	}
	rep.setRun(run)
	rep.setMeter(p.meter)
	x, stop, err := p.execution(ctx, rep)
	if err != nil {
		return nil, err
	}
	// workflow-optr.yaml is for the run's record and its readers: it is
	// written once the agents' requests are out, and before the run is
	// recorded (Execute returns once it is).
	workflow := x.afterLaunch(func() error {
		return run.WriteFile(datalake.FileWorkflow, p.resolvedWorkflow(rep.Started))
	})
	err = p.runMode(ctx, lake, x, stop)
	return rep, errors.Join(err, workflow())
}

// afterLaunch runs f in the background once the agents the run starts
// first sent their work off (x.launched); the function it returns waits
// for f, which it starts if the mode ended first, and returns f's error.
func (x *Execution) afterLaunch(f func() error) (wait func() error) {
	done := make(chan error, 1)
	go func() {
		<-x.launched
		done <- f()
	}()
	return func() error {
		x.launch()
		return <-done
	}
}

// carryOn runs the mode again in the paused run rep, in the run's own
// directory (a Retrier mode carrying the run on after Proceed): the
// mode's part of the report is its new one, the rest stays the run's.
func (p *Prepared) carryOn(ctx context.Context, rep *report) error {
	lake, err := p.setUp(ctx)
	if err != nil {
		return err
	}
	defer p.changes.discard(ctx, p.deps.logf)
	run, err := lake.OpenRun(rep.Spec.Workflow, rep.Spec.RunID)
	if err != nil {
		return err
	}
	rep.setRun(run)
	rep.Mode, rep.concluder, rep.aborted = p.mode.Traits().Name, p.mode, nil
	// What the run spent before its pause counts toward its own caps and
	// its totals: this process's meter carries on from it.
	p.meter.Restore(rep.meter.Agents())
	rep.setMeter(p.meter)
	rep.Sandbox, rep.SandboxNotes = p.sandbox.Layers(), p.sandbox.Notes()
	rep.Results, rep.Selection, rep.ModeFields, rep.Details, rep.DetailsText = nil, selection.Result{}, nil, "", ""
	x, stop, err := p.execution(ctx, rep)
	if err != nil {
		return err
	}
	return p.runMode(ctx, lake, x, stop)
}

// Preflight checks what a run checks before any agent starts, and writes
// nothing that stays: the ledger, the datalake and the repository
// (package preflight), the sandbox's layers (it starts the sandbox:
// strict refuses a layer it cannot enforce), and that every command agent
// can start its program. Its errors are *InputError; warnings do not stop
// a run. setUp calls it; so does `optr config check`, which runs nothing.
func (p *Prepared) Preflight(ctx context.Context) (warnings []string, err error) {
	spec := p.Spec
	// The preflight (git) and the sandbox's start (its probe launchers)
	// wait mostly on other processes and the kernel and need nothing of
	// each other: they run at once. Their errors are reported in this
	// order.
	var (
		wg         sync.WaitGroup
		sandboxErr error
	)
	wg.Go(func() { sandboxErr = p.sandbox.Start(ctx) })
	pre, err := preflight.Check(ctx, preflight.Input{LedgerPath: spec.LedgerPath, Datalake: spec.Datalake, Repository: spec.Dir})
	wg.Wait()
	if err != nil {
		return nil, inputErr(err)
	}
	if sandboxErr != nil {
		return pre.Warnings, inputErr(sandboxErr) // strict: before any agent spends a token
	}
	if err := p.programsRun(); err != nil {
		return pre.Warnings, inputErr(err)
	}
	return pre.Warnings, nil
}

// Sandbox is what the run's sandbox enforces, and what not and why; known
// once Preflight started it.
func (p *Prepared) Sandbox() (sandbox.Layers, []string) {
	return p.sandbox.Layers(), p.sandbox.Notes()
}

// setUp readies the datalake for the run's execution: it refuses a
// ledger or datalake it cannot use, tidies what killed runs left, and
// starts the agents' worktrees when they change code (p.changes; discard
// them when the mode ran). The lake it returns redacts every file written.
func (p *Prepared) setUp(ctx context.Context) (*datalake.Lake, error) {
	spec := p.Spec
	// The sweep of /proc for what a killed optr left waits mostly on the
	// kernel and needs nothing of the checks: it runs beside them.
	var (
		wg      sync.WaitGroup
		reaped  procgroup.Reaped
		reapErr error
	)
	wg.Go(func() { reaped, reapErr = procgroup.Reap(ctx) })
	warnings, err := p.Preflight(ctx)
	wg.Wait()
	for _, w := range warnings {
		p.deps.logf("%s", w)
	}
	if err != nil {
		return nil, err
	}
	p.deps.logf("%s", p.sandbox.Layers())
	for _, n := range p.sandbox.Notes() {
		p.deps.logf("sandbox: %s", n)
	}
	lake := datalake.OpenRedacted(spec.Datalake, p.agents.secret)
	if reapErr == nil && len(reaped.Processes) > 0 {
		p.deps.logf("killed %d processes left by an optr that was killed (%v)", len(reaped.Processes), reaped.Owners)
	}
	recorded := func(_, id string) bool {
		ok, _ := ledger.ActiveHasRun(spec.LedgerPath, id)
		return ok
	}
	if stale, err := lake.CleanStale(ctx, p.deps.now(), 10*time.Minute, recorded); err == nil && len(stale.Abandoned)+len(stale.Removed) > 0 {
		p.deps.logf("marked %d runs of killed optr processes abandoned, removed %d stale temporary files", len(stale.Abandoned), len(stale.Removed))
	}
	changes, err := p.startChanges(ctx)
	if err != nil {
		return nil, err
	}
	p.changes = changes
	return lake, nil
}

// execution sets the mode's execution up in rep's run directory: the
// agents' output folder, their tasks (in their worktrees when they change
// code), the watcher, started (stop stops it), and the executor options
// every mode shares.
func (p *Prepared) execution(ctx context.Context, rep *report) (x *Execution, stop func(), err error) {
	spec, run, changes := p.Spec, rep.run, p.changes
	outDir, err := run.OutputDir()
	if err != nil {
		return nil, nil, err
	}
	spares, synth := p.reinforcements()
	tasks := slices.Clone(p.tasks)
	if err := changes.place(tasks, spares, synth); err != nil {
		return nil, nil, err
	}
	launched := make(chan struct{})
	launch := sync.OnceFunc(func() { close(launched) })
	reserved := newReservations(run)
	w, err := p.watcher(run, rep, launched)
	if err != nil {
		return nil, nil, fmt.Errorf("start the watcher: %w", err)
	}
	// The redaction rules every file of the run passes through load in
	// the background once the agents' requests are out (the run writes
	// nothing of theirs before): a file written earlier loads them itself.
	// From here on launched is closed, at the latest when the mode ends.
	go func() {
		<-launched
		secretscan.Load()
	}()
	stop = w.Start(ctx)
	x = &Execution{
		Prepared: p,
		Run:      run,
		rep:      rep,
		Watcher:  w,
		launched: launched,
		launch:   launch,
		Options: executor.Options{
			Tasks:               tasks,
			Request:             p.request(outDir),
			MaxParallel:         spec.Config.Executor.MaxParallel,
			Constraints:         p.Constraints,
			Policy:              p.policy,
			CheckDuringRecovery: p.checkEarly,
			Sink: changes.sink(ctx, run, func(r *executor.Result) error {
				reserved.writing(r.Agent)
				rel := resultFile(r.Agent)
				// A spooled output is streamed from its file, never held
				// whole; its document is too large to be indented.
				if r.Spooled() {
					return run.WriteFileFrom(rel, r.EncodeJSON)
				}
				return run.WriteJSON(rel, r)
			}),
			OnEvent: p.deps.OnEvent,
			Sent:    reserved.sent,
			Launched: func() {
				reserved.launched()
				launch()
			},
			Now:         p.deps.Now,
			Supervise:   w.Supervise,
			Failed:      w.Failed,
			MaxRestarts: spec.Config.Watcher.MaxRestarts,
			Spares:      spares,
			Synthesizer: synth,
		},
	}
	if p.mode.Traits().Spools {
		// Outputs too large to hold in memory wait on disk until the run's
		// files are written from them.
		if x.Options.Request.SpoolDir, err = run.SpoolDir(); err != nil {
			launch()
			stop()
			return nil, nil, err
		}
	}
	return x, stop, nil
}

// maxRefusedLogged bounds the files named in the log as removed or not
// committed, of which an agent may make any number; the rest are counted.
const maxRefusedLogged = 20

// logRefused names in the log each file of refused, how says what became of
// it ("removed", "not committed") and name turns its path into what the
// log shows: the first maxRefusedLogged, then how many more there were.
func (p *Prepared) logRefused(refused []datalake.Refused, how string, name func(string) string) {
	for i, f := range refused {
		if i == maxRefusedLogged {
			p.deps.logf("%s %d more files", how, len(refused)-i)
			return
		}
		p.deps.logf("%s %s: %s", how, name(f.Path), f.Reason)
	}
}

// resultFile is the file of the result named agent inside the run:
// agent-outputs/<agent>.json.
func resultFile(agent string) string { return filepath.Join(datalake.DirOutputs, agent+".json") }

// runMode runs the mode in x, stops the watcher (stop), makes what
// agents left in $OPTR_OUTPUT_DIR safe to keep, and completes the report:
// a watcher's abort, the errors.jsonl lines, the selection.
func (p *Prepared) runMode(ctx context.Context, lake *datalake.Lake, x *Execution, stop func()) error {
	run, rep := x.Run, x.rep
	err := p.mode.Run(ctx, x)
	x.launch() // a mode that ran no agent
	stop()
	if scan, serr := run.SanitizeOutputs(); serr != nil {
		p.deps.logf("$OPTR_OUTPUT_DIR: %v", serr)
	} else {
		for _, f := range scan.Redacted {
			p.deps.logf("$OPTR_OUTPUT_DIR: redacted secrets in %s", f)
		}
		p.logRefused(scan.Refused, "$OPTR_OUTPUT_DIR: removed", func(rel string) string { return rel })
	}
	if errors.Is(err, escalation.ErrAbort) {
		// Every result is complete and recorded: finish the run as failed.
		rep.aborted = escalation.ErrAbort
		if ae := escalation.AbortOf(err); ae != nil {
			rep.aborted = ae
		}
		err = nil
	}
	if err != nil {
		// The run stops: its score table still shows what the mode
		// left, but nothing is delivered, so nothing is scanned.
		p.selectPiStar(ctx, rep, false)
		return err
	}
	if p.mode.Traits().ErrorLines {
		p.recordErrors(lake, rep.Results)
	}
	p.selectPiStar(ctx, rep, true)
	return nil
}

func (p *Prepared) request(outDir string) (req agent.Request) {
	req.Intent = p.Spec.Intent
	req.Workflow = p.Spec.Workflow
	req.RunID = p.Spec.RunID
	req.Dir = p.Spec.Dir
	req.OutputDir = outDir
	req.Constraints = check.Names(p.Constraints)
	req.ConstraintText = check.Descriptions(p.Constraints)
	return req
}

// resolvedWorkflow is workflow-optr.yaml: what this run was asked to do and
// with what, resolved from the config and the intent.
func (p *Prepared) resolvedWorkflow(started time.Time) []byte {
	type agentDoc struct {
		Name     string   `yaml:"name"`
		Provider string   `yaml:"provider"`
		Model    string   `yaml:"model,omitempty"`
		Run      []string `yaml:"run,omitempty"`
	}
	type constraintDoc struct {
		Name     string `yaml:"name"`
		Hard     bool   `yaml:"hard"`
		Verified bool   `yaml:"verified"`
	}
	doc := struct {
		Workflow     string          `yaml:"workflow"`
		Run          string          `yaml:"run"`
		Started      string          `yaml:"started"`
		Pipeline     string          `yaml:"pipeline"`
		Config       string          `yaml:"config"`
		Commit       string          `yaml:"commit,omitempty"`
		IntentSHA256 string          `yaml:"intent_sha256"`
		Intent       yamlText        `yaml:"intent,omitempty"`
		IntentBase64 string          `yaml:"intent_base64,omitempty"`
		Agents       []agentDoc      `yaml:"agents"`
		Constraints  []constraintDoc `yaml:"constraints"`
	}{
		Workflow: p.Spec.Workflow, Run: p.Spec.RunID, Started: started.Format(time.RFC3339),
		Pipeline: pipelineName(p.Spec.Pipeline), Config: configName(p.Spec.Config.Path),
		Commit: p.Spec.Commit, IntentSHA256: executor.SHA256Hex(p.Spec.Intent), Intent: yamlText(p.Spec.Intent),
	}
	if !utf8.ValidString(p.Spec.Intent) {
		doc.Intent, doc.IntentBase64 = "", base64.StdEncoding.EncodeToString([]byte(p.Spec.Intent))
	}
	for _, n := range p.AgentNames {
		ac := p.Spec.Config.Agents[n]
		doc.Agents = append(doc.Agents, agentDoc{Name: n, Provider: ac.Provider, Model: ac.Model, Run: ac.Run})
	}
	for _, c := range p.Constraints {
		doc.Constraints = append(doc.Constraints, constraintDoc{Name: c.Name, Hard: c.Hard, Verified: c.Checker != nil})
	}
	out, err := yaml.Marshal(doc)
	if err != nil { // only strings and slices: cannot fail
		panic(fmt.Sprintf("encode workflow-optr.yaml: %v", err))
	}
	return out
}

// recordErrors appends an errors.jsonl line (architecture §4.9 step 8's shape)
// for each result that failed.
func (p *Prepared) recordErrors(lake *datalake.Lake, results []*executor.Result) {
	var recs []datalake.ErrorRecord
	for _, r := range results {
		if r.Error == "" {
			continue
		}
		typ := r.Reason
		if typ == "" {
			typ = "agent_failed"
		}
		recs = append(recs, datalake.ErrorRecord{
			Timestamp: r.FinishedAt.UTC().Format(time.RFC3339), WorkflowID: p.Spec.RunID, Command: p.mode.Traits().Name,
			ErrorType: typ, Message: r.Error, Agent: r.Agent, Class: r.Class,
			Details: datalake.ErrorDetails{RecoveryHint: recoveryHint(r)},
		})
	}
	if err := lake.AppendErrors(recs...); err != nil {
		p.deps.logf("errors.jsonl: %v", err)
	}
}

// recoveryHint says what a person can do about a failed agent, by its
// error class.
func recoveryHint(r *executor.Result) string {
	out := filepath.ToSlash(resultFile(r.Agent))
	switch r.Class {
	case string(agent.Transient):
		return "the failure may pass by itself (a timeout, a rate limit, a service error): run again"
	case string(agent.Fatal):
		return "the agent cannot work here as configured: add what its error says is missing (a program, a key), then run again"
	}
	return "see the agent's output and error in " + out + ", fix the agent or its prompt, then run again"
}

func pipelineName(p string) string {
	if p == "" {
		return "default (select over every agent)"
	}
	return p
}

func configName(path string) string {
	if path == "" {
		return "embedded default"
	}
	return path
}
