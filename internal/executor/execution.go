package executor

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/optr-dev/optr/internal/check"
	"github.com/optr-dev/optr/internal/cost"
	"github.com/optr-dev/optr/internal/escalation"
	"github.com/optr-dev/optr/internal/spool"
	"github.com/optr-dev/optr/internal/status"
)

// execution is the state of one Run.
type execution struct {
	parent context.Context // the caller's context
	ctx    context.Context // the run's context, cancelled on abort
	cancel context.CancelCauseFunc
	opts   Options
	now    func() time.Time
	names  []string // the tasks' result names
	wave   *wave    // the tasks started at once, until their work is sent

	mu       sync.Mutex
	results  []*Result       // by task
	replaced [][]*Result     // by task: the spares that took over, in turn
	states   []status.Status // by task
	used     map[string]bool
	running  map[string]int // by agent name
	sinkErr  []error

	// checks counts the results whose checks still run: they run outside
	// the agents' slots (MaxParallel), so a slow check never holds a
	// queued agent back.
	checks sync.WaitGroup
	// largeSink lets one large result in memory at a time be written:
	// encoding a result copies its output a few times over, and agents
	// that finish together with outputs of tens of MiB each would
	// otherwise hold all those copies at once. An output held on disk
	// takes no token: the Sink streams it (EncodeJSON).
	largeSink chan struct{} // a token per large result being sunk: one
	// largeCheck lets the checks of one output held on disk at a time
	// read it into memory, so that outputs of tens of MiB each are never
	// all in memory together.
	largeCheck chan struct{}
}

// largeOutput is the size of an output in memory from which results are
// sunk one at a time.
const largeOutput = 1 << 20

func newExecution(parent, ctx context.Context, cancel context.CancelCauseFunc, opts Options) *execution {
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	x := &execution{
		parent: parent, ctx: ctx, cancel: cancel, opts: opts, now: now,
		results: make([]*Result, len(opts.Tasks)), replaced: make([][]*Result, len(opts.Tasks)),
		used: map[string]bool{}, running: map[string]int{}, largeSink: make(chan struct{}, 1),
		largeCheck: make(chan struct{}, 1), states: make([]status.Status, len(opts.Tasks)),
	}
	for i, t := range opts.Tasks {
		x.states[i] = status.Queued
		x.names = append(x.names, t.Agent.Name())
		x.used[t.Agent.Name()] = true
	}
	first := len(opts.Tasks)
	if opts.MaxParallel > 0 {
		first = min(first, opts.MaxParallel)
	}
	x.wave = newWave(first, opts.Launched)
	return x
}

// runTask runs task i and, while the watcher says reassign and a spare is
// free, the spares that take its task over.
func (x *execution) runTask(i int, t Task) {
	x.setState(i, status.Running)
	tried := []string{t.Agent.Name()}
	name, replaces := x.names[i], ""
	sent := x.wave.member(i)
	defer sent() // ended without sending: the wave waits no longer
	for {
		req := x.opts.Request
		req.Sent = sent
		if t.Dir != "" {
			req.Dir = t.Dir
		}
		r, esc := x.runAgent(t, name, replaces, req, i, tried)
		next, ok := x.carryOut(r, esc, tried)
		x.capture(r, t.Dir)
		x.mu.Lock()
		if replaces == "" {
			x.results[i] = r
		} else {
			x.replaced[i] = append(x.replaced[i], r)
		}
		x.mu.Unlock()
		if !ok {
			st := status.Failed
			if r.Status == status.Succeeded && r.HasOutput() {
				st = status.Succeeded
			}
			x.setState(i, st)
			return
		}
		x.setState(i, status.Running) // a spare took the task over
		t, name, replaces = next, r.ReplacedBy, r.Agent
		tried = append(tried, t.Agent.Name())
	}
}

// carryOut does what the watcher decided about r, when it failed, and
// notes it in r. For reassign it reserves a spare and returns it.
func (x *execution) carryOut(r *Result, esc *escalation.Escalation, tried []string) (Task, bool) {
	if esc == nil {
		return Task{}, false
	}
	switch esc.Decision.Action {
	case escalation.Abort:
		x.cancel(&escalation.AbortError{Reason: esc.Decision.Reason})
		r.DecisionNote = "the remaining agents were cancelled and the run fails"
	case escalation.Reassign:
		spare, name, ok := x.reserveSpare(tried)
		if !ok && len(x.opts.Spares) == 0 {
			r.DecisionNote = "no spare agent to take the task over: watcher.spares declares none that this run does not already use"
			return Task{}, false
		}
		if !ok {
			r.DecisionNote = "no spare agent was free to take the task over (every spare is running or already tried it)"
			return Task{}, false
		}
		r.ReplacedBy = name
		r.DecisionNote = fmt.Sprintf("the task went to %s", spare.Agent.Name())
		return spare, true
	case escalation.Synthesize:
		if x.opts.Synthesizer == nil {
			r.DecisionNote = "no synthesizer is configured (watcher.synthesizer), so the partial output was only kept"
		} else if r.Partial() == "" {
			r.DecisionNote = "the agent left no output to synthesize"
		} else {
			r.DecisionNote = "the partial output goes to the synthesis step"
		}
	case escalation.Restart:
		r.DecisionNote = fmt.Sprintf("not restarted: the agent was already restarted %d time(s) (watcher.max-restarts)", r.Restarts)
	case escalation.EscalateCEO:
		r.DecisionNote = "handed to a person (escalation comment, ceo-inbox)"
	}
	return Task{}, false
}

// reserveSpare picks the first spare that is not running and has not tried
// the task, marks it running, and gives it a result name of its own.
func (x *execution) reserveSpare(tried []string) (Task, string, bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.ctx.Err() != nil {
		return Task{}, "", false
	}
	for _, s := range x.opts.Spares {
		n := s.Agent.Name()
		if x.running[n] > 0 || slices.Contains(tried, n) {
			continue
		}
		x.running[n]++ // released by runAgent
		return s, x.claimNameLocked(n), true
	}
	return Task{}, "", false
}

// claimName returns base, or base-2, base-3, … when a result of this run
// already has that name: result names are file names in the datalake.
func (x *execution) claimName(base string) string {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.claimNameLocked(base)
}

func (x *execution) claimNameLocked(base string) string {
	name := base
	for i := 2; x.used[name]; i++ {
		name = fmt.Sprintf("%s-%d", base, i)
	}
	x.used[name] = true
	return name
}

// capture hands r to the Sink, then checks it (command checks in dir,
// when set) in the background, outside the agent's slot, and reports it
// final once checked. Run waits for every check before it returns.
func (x *execution) capture(r *Result, dir string) {
	x.sink(r)
	final := func() {
		x.emit(Event{Agent: r.Agent, Status: r.Status, Elapsed: time.Duration(r.ExecMS) * time.Millisecond, Result: r})
	}
	if !r.HasOutput() || r.Checks.Verdicts != nil {
		final()
		return
	}
	x.checks.Go(func() {
		// Checks run even when the run was aborted: a captured output is
		// judged on its merits. Only the caller's context stops them.
		// The judges of r's output are charged to r.
		r.Checks = x.evaluate(check.WithDir(cost.ForAgent(x.parent, r.Agent), dir), r.Output, r.OutputFile, r.OutputSHA256)
		final()
	})
}

// evaluate runs the constraints' checks on an output, held in memory or on
// disk (f); one output on disk at a time is read into memory for them.
func (x *execution) evaluate(ctx context.Context, output string, f *spool.File, sum string) check.Evaluation {
	if f != nil && len(x.opts.Constraints) > 0 {
		x.largeCheck <- struct{}{}
		defer func() { <-x.largeCheck }()
		s, err := f.ReadString()
		if err != nil {
			return unreadable(x.opts.Constraints, err)
		}
		output = s
	}
	return check.Evaluate(check.WithOutputSHA256(ctx, output, sum), x.opts.Constraints, output)
}

// unreadable is the evaluation of an output that could not be read back:
// every constraint failed, with the reason.
func unreadable(cs []check.Constraint, err error) check.Evaluation {
	verdicts := make([]check.Verdict, len(cs))
	for i, c := range cs {
		verdicts[i] = check.Verdict{Constraint: c.Name, Hard: c.Hard, Status: status.Failed,
			Reason: "the output could not be read back to check it: " + err.Error()}
	}
	return check.Summarize(verdicts)
}

// sink hands r to the Sink, results with a large output in memory one at
// a time.
func (x *execution) sink(r *Result) {
	if x.opts.Sink == nil {
		return
	}
	if len(r.Output)+len(r.Raw) >= largeOutput {
		x.largeSink <- struct{}{}
		defer func() { <-x.largeSink }()
	}
	if err := x.opts.Sink(r); err != nil {
		x.mu.Lock()
		x.sinkErr = append(x.sinkErr, fmt.Errorf("record %s: %w", r.Agent, err))
		x.mu.Unlock()
	}
}

// ordered returns the task results, then the replacements in task order.
func (x *execution) ordered() []*Result {
	x.mu.Lock()
	defer x.mu.Unlock()
	out := slices.Clone(x.results)
	for _, rs := range x.replaced {
		out = append(out, rs...)
	}
	return out
}

func (x *execution) sinkErrs() []error {
	x.mu.Lock()
	defer x.mu.Unlock()
	return slices.Clone(x.sinkErr)
}

func (x *execution) emit(ev Event) {
	if x.opts.OnEvent != nil {
		x.opts.OnEvent(ev)
	}
}
