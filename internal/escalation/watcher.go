package escalation

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// maxErrorText bounds an agent's last error as the watcher keeps it.
const maxErrorText = 2000

// WatcherOptions configure the in-run Watcher.
type WatcherOptions struct {
	// Dir is the run's .coordination directory; it is created.
	Dir string
	// RunID prefixes escalation ids (<run>-e1, <run>-e2, …).
	RunID string
	// Task says in a line what every agent works on (the intent's first
	// line); it becomes the tasks' description on the blackboard.
	Task string
	// Agents are the run's agents, queued on the blackboard at the start.
	Agents []string
	// StuckAfter is watcher.stuck-after: an agent with no sign of life for
	// that long is stuck. Zero turns stall detection off.
	StuckAfter time.Duration
	// MaxFailures is watcher.max-failures (DefaultMaxFailures when ≤ 0).
	MaxFailures int
	// MaxRestarts is watcher.max-restarts: restarts allowed per agent.
	MaxRestarts int
	// Interval is how often stalls are looked for (default StuckAfter/10,
	// at least 10ms and at most 5s).
	Interval time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Stderr receives log lines (discarded when nil).
	Stderr io.Writer
	// CEOInbox is the ceo-inbox directory (default: beside Dir).
	CEOInbox string
	// OnDecision hears every decision once it is recorded. It is called
	// without the Watcher's lock held, on the goroutine that reported the
	// failure (the agent's) or noticed the stall (Start's), so it should
	// not block for long and must be safe for concurrent use. Use it to
	// write ledger entries (LedgerFields) and, when NeedsHuman, the
	// escalation comment (Comment).
	OnDecision func(Escalation)
	// Hold, when set, holds the blackboard's writes until it is closed
	// (or the watcher is stopped or flushed, which writes at once): a run
	// whose agents are sending their requests gives them the CPU first,
	// and the board is written once they are out (executor.Options.Launched).
	Hold <-chan struct{}
}

// Failure is an agent's failure as the executor reports it.
type Failure struct {
	// Agent is the agent's name.
	Agent string
	// Partial is true when the agent left partial output.
	Partial bool
	// Err is why it failed.
	Err error
	// Attempts is how many attempts recovery made.
	Attempts int
	// Replaces names the agent whose task this one had taken over.
	Replaces string
	// Outlook says what the rest of the run can still do (the executor's
	// view). Failed calls it while it decides, so that of two agents
	// failing at once the one decided second sees both; nil counts
	// failures alone (Respond).
	Outlook func() Outlook
}

// Watcher is the watcher and handler inside one run: it keeps the run's
// blackboard, notices stalled agents (no output bytes, frames or tokens for
// StuckAfter) and failed ones, decides with Decide, records every decision
// in the .coordination directory, and does its part of carrying it out:
// a stalled agent's context is cancelled with ErrRestart (or ErrStuck when
// it has no restart left), an abort cancels every agent with ErrAbort. The
// executor does the rest (relaunch, reassign, synthesize). Start runs the
// stall detection. It is safe for concurrent use.
type Watcher struct {
	opts WatcherOptions
	now  func() time.Time
	log  *logger
	co   *coord

	bw *boardWriter

	mu        sync.Mutex
	board     *Blackboard
	sups      map[string]*supervision
	restarts  map[string]int
	failed    map[string]bool
	lastErrs  []AgentError
	history   map[string][]string
	seq       int
	aborted   error
	decisions []Escalation
}

// supervision is one launch of one agent.
type supervision struct {
	agent  string
	ctx    context.Context
	cancel context.CancelCauseFunc
	last   atomic.Int64 // unix nanoseconds of the last sign of life
	once   sync.Once

	// guarded by Watcher.mu
	stopping bool // the watcher cancelled it
	restart  bool // it is to be relaunched
	stuck    bool // stopped with ErrStuck
	reported bool // its failure was reported
}

// NewWatcher prepares the run's .coordination directory: it loads the
// blackboard there (a new run has none) and queues a task per agent.
func NewWatcher(opts WatcherOptions) (*Watcher, error) {
	if opts.Dir == "" {
		return nil, fmt.Errorf("watcher: no .coordination directory given")
	}
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("create the coordination directory: %w", err)
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	opts.MaxRestarts = max(opts.MaxRestarts, 0)
	w := &Watcher{
		opts: opts, now: now, log: &logger{w: opts.Stderr, now: now},
		sups: map[string]*supervision{}, restarts: map[string]int{},
		failed: map[string]bool{}, history: map[string][]string{},
	}
	w.co = &coord{dir: opts.Dir, inbox: opts.CEOInbox, log: w.log}
	w.bw = &boardWriter{path: w.co.path(FileBlackboard), log: w.log, encode: w.encodeBoard, hold: opts.Hold}
	if w.co.inbox == "" {
		w.co.inbox = inboxDir(opts.Dir)
	}
	board, err := LoadBlackboard(w.co.path(FileBlackboard))
	if err != nil {
		return nil, err
	}
	for _, p := range board.Problems {
		w.log.errorf("%s", p)
	}
	w.board = board
	for _, name := range opts.Agents {
		if board.TaskFor(name) == nil {
			board.AddTask("task-"+name, opts.Task, TaskPending, name)
		}
	}
	w.saveBoard()
	return w, nil
}

// Start looks for stalled agents every Interval until stop is called or
// ctx ends (without StuckAfter it looks for none). stop also waits until
// the blackboard on disk holds the watcher's last state.
func (w *Watcher) Start(ctx context.Context) (stop func()) {
	if w.opts.StuckAfter <= 0 {
		return w.bw.flush
	}
	interval := w.opts.Interval
	if interval <= 0 {
		interval = min(max(w.opts.StuckAfter/10, 10*time.Millisecond), 5*time.Second)
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				w.check(w.now())
			}
		}
	}()
	return func() { cancel(); <-done; w.bw.flush() }
}

// Flush waits until the blackboard on disk holds the watcher's last state.
func (w *Watcher) Flush() { w.bw.flush() }

// Decisions returns every decision so far, in order.
func (w *Watcher) Decisions() []Escalation {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.decisions)
}

// Aborted returns the cause the run was aborted with, nil when it was not.
func (w *Watcher) Aborted() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.aborted
}
