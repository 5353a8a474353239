package escalation

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/testkit/clocktest"
)

// harness is a Watcher on a fresh run directory with a fake clock that
// records every decision it hands out.
type harness struct {
	w      *Watcher
	dir    string
	clock  *clocktest.Clock
	stderr *syncBuffer
	mu     sync.Mutex
	told   []Escalation
}

func newHarness(t *testing.T, opts WatcherOptions) *harness {
	t.Helper()
	h := &harness{dir: filepath.Join(t.TempDir(), "run", ".coordination"), clock: clocktest.New(t0), stderr: &syncBuffer{}}
	opts.Dir, opts.Now, opts.Stderr = h.dir, h.clock.Now, h.stderr
	if opts.RunID == "" {
		opts.RunID = "42-1"
	}
	opts.OnDecision = func(e Escalation) {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.told = append(h.told, e)
	}
	w, err := NewWatcher(opts)
	if err != nil {
		t.Fatal(err)
	}
	h.w = w
	t.Cleanup(w.Flush) // the blackboard is written in the background
	return h
}

func (h *harness) actions() []Action {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []Action
	for _, e := range h.told {
		out = append(out, e.Decision.Action)
	}
	return out
}

func (h *harness) board(t *testing.T) *Blackboard {
	t.Helper()
	h.w.Flush()
	b := ParseBlackboard([]byte(readFile(t, filepath.Join(h.dir, FileBlackboard))))
	if len(b.Problems) != 0 {
		t.Fatalf("blackboard problems: %v", b.Problems)
	}
	return b
}

func TestWatcherRestartsAStalledAgent(t *testing.T) {
	t.Parallel()
	h := newHarness(t, WatcherOptions{Agents: []string{"a", "b"}, Task: "write a poem", StuckAfter: time.Minute, MaxRestarts: 1})
	actx, progress, done := h.w.Supervise(t.Context(), "a")
	bctx, bprogress, bdone := h.w.Supervise(t.Context(), "b")
	defer bdone()

	h.clock.Advance(50 * time.Second)
	progress(agent.Progress{Bytes: 10})
	h.clock.Advance(30 * time.Second) // a: 30s idle; b: 80s idle
	bprogress(agent.Progress{})       // b lives after all
	h.w.check(h.clock.Now())
	if actx.Err() != nil || bctx.Err() != nil {
		t.Fatalf("an agent with recent progress was stopped: a %v, b %v", context.Cause(actx), context.Cause(bctx))
	}

	h.clock.Advance(time.Minute)
	h.w.check(h.clock.Now()) // a and b idle a minute now
	if !errors.Is(context.Cause(actx), ErrRestart) || !errors.Is(context.Cause(bctx), ErrRestart) {
		t.Fatalf("causes = %v, %v; want ErrRestart", context.Cause(actx), context.Cause(bctx))
	}
	done()
	if diff := cmp.Diff([]Action{Restart, Restart}, h.actions()); diff != "" {
		t.Errorf("decisions (-want +got):\n%s", diff)
	}
	e := h.w.Decisions()[0]
	if e.ID != "42-1-e1" || e.Agent != "a" || e.Trigger != TriggerStuck || !e.Situation.Stuck {
		t.Errorf("first escalation = %+v", e)
	}
	if b := h.board(t); b.Agents["a"].Status != StatusStuck || b.TaskFor("a").Status != TaskPending {
		t.Errorf("after the restart decision: agent %+v, task %+v", b.Agents["a"], b.TaskFor("a"))
	}

	// The relaunch is watched afresh; with no restart left, a second stall
	// stops it with ErrStuck and decides nothing until its failure is reported.
	actx, _, done = h.w.Supervise(t.Context(), "a")
	if b := h.board(t); b.Agents["a"].Status != StatusActive || b.TaskFor("a").Status != TaskActive || b.TaskFor("a").Attempts != 2 {
		t.Errorf("relaunched: agent %+v, task %+v", b.Agents["a"], b.TaskFor("a"))
	}
	h.clock.Advance(2 * time.Minute)
	h.w.check(h.clock.Now())
	if !errors.Is(context.Cause(actx), ErrStuck) {
		t.Fatalf("cause = %v, want ErrStuck", context.Cause(actx))
	}
	if n := len(h.actions()); n != 2 {
		t.Errorf("%d decisions after a stall with no restart left, want still 2", n)
	}
	e = h.w.Failed(Failure{Agent: "a", Err: fmt.Errorf("agent a stopped: %w", context.Cause(actx)), Attempts: 1})
	done()
	if e.Decision.Action != Reassign || e.Trigger != TriggerStuck || !e.Situation.RestartsExhausted {
		t.Errorf("failure after the stall = %+v, want reassign on trigger stuck", e)
	}
	if !strings.Contains(strings.Join(e.Tried, "\n"), "restarted 1 time(s)") {
		t.Errorf("tried = %q, want the restart", e.Tried)
	}

	// Every decision went to the files.
	entries := ParseLog(readFile(t, filepath.Join(h.dir, FileWatcherLog)))
	if len(entries) != 3 {
		t.Errorf("watcher log has %d entries, want 3", len(entries))
	}
	if got := listDir(t, filepath.Join(h.dir, DirArchive)); len(got) != 3 {
		t.Errorf("archive holds %v, want 3 escalations", got)
	}
	if _, err := os.Stat(filepath.Join(h.dir, FileEscalate)); !os.IsNotExist(err) {
		t.Errorf("escalate.md left behind (%v)", err)
	}
	checkLogLines(t, h.stderr.String())
}

func TestWatcherFailures(t *testing.T) {
	t.Parallel()
	exit := func(reason string) error {
		return &agent.Error{Class: agent.Systematic, Reason: reason, Err: errors.New("exited with status 1")}
	}
	tests := []struct {
		name      string
		f         Failure
		restarts  int
		want      Action
		trigger   Trigger
		wantInbox bool
	}{
		{"no output", Failure{Agent: "a", Err: exit("exit_status")}, 0, Reassign, TriggerError, false},
		{"partial output", Failure{Agent: "a", Partial: true, Err: exit("exit_status")}, 0, Synthesize, TriggerError, false},
		{"conflict frame", Failure{Agent: "a", Err: exit("conflict")}, 0, EscalateCEO, TriggerConflict, true},
		{"deadlock frame", Failure{Agent: "a", Err: exit("deadlock")}, 0, EscalateCEO, TriggerDeadlock, true},
		{"timeout", Failure{Agent: "a", Err: &agent.Error{Class: agent.Transient, Reason: "timeout"}}, 1, Restart, TriggerTimeout, false},
		{"own deadline", Failure{Agent: "a", Err: fmt.Errorf("stopped: %w", context.DeadlineExceeded)}, 1, Restart, TriggerTimeout, false},
		{"timeout, no restart left", Failure{Agent: "a", Partial: true, Err: &agent.Error{Class: agent.Transient, Reason: "timeout"}}, 0, Synthesize, TriggerTimeout, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, WatcherOptions{Agents: []string{"a"}, MaxRestarts: tt.restarts})
			_, _, done := h.w.Supervise(t.Context(), "a")
			e := h.w.Failed(tt.f)
			done()
			if e.Decision.Action != tt.want || e.Trigger != tt.trigger {
				t.Errorf("decision %s on %s, want %s on %s (situation %+v)", e.Decision.Action, e.Trigger, tt.want, tt.trigger, e.Situation)
			}
			if diff := cmp.Diff([]Action{tt.want}, h.actions()); diff != "" {
				t.Errorf("OnDecision heard (-want +got):\n%s", diff)
			}
			if got := len(listDir(t, filepath.Join(filepath.Dir(h.dir), DirCEOInbox))); (got == 1) != tt.wantInbox || got > 1 {
				t.Errorf("%d ceo-inbox files, want inbox %v", got, tt.wantInbox)
			}
			b := h.board(t)
			wantStatus := StatusFailed
			if b.Agents["a"].Status != wantStatus {
				t.Errorf("agent a is %q, want %q", b.Agents["a"].Status, wantStatus)
			}
			if !strings.Contains(readFile(t, filepath.Join(h.dir, FileDecision)), "**Decision:** "+string(tt.want)) {
				t.Errorf("decision.md does not say %s", tt.want)
			}
		})
	}
}

func TestWatcherAbortsAfterMaxFailures(t *testing.T) {
	t.Parallel()
	h := newHarness(t, WatcherOptions{Agents: []string{"a", "b", "c", "d"}, MaxFailures: 3})
	var ctxs []context.Context
	var dones []func()
	for _, n := range []string{"a", "b", "c", "d"} {
		ctx, _, done := h.w.Supervise(t.Context(), n)
		ctxs, dones = append(ctxs, ctx), append(dones, done)
	}
	for i, n := range []string{"a", "b", "c"} {
		h.w.Failed(Failure{Agent: n, Err: fmt.Errorf("%s exited with status %d", n, i+1)})
		dones[i]()
	}
	if diff := cmp.Diff([]Action{Reassign, Reassign, Abort}, h.actions()); diff != "" {
		t.Fatalf("decisions (-want +got):\n%s", diff)
	}
	if !errors.Is(context.Cause(ctxs[3]), ErrAbort) || !errors.Is(h.w.Aborted(), ErrAbort) {
		t.Errorf("d's cause = %v, Aborted = %v; want ErrAbort", context.Cause(ctxs[3]), h.w.Aborted())
	}
	dones[3]()
	// An agent that would start now does not.
	late, _, lateDone := h.w.Supervise(t.Context(), "spare")
	lateDone()
	if !errors.Is(context.Cause(late), ErrAbort) {
		t.Errorf("a late agent's cause = %v, want ErrAbort", context.Cause(late))
	}
	// Another failure after the abort is not a new decision.
	if e := h.w.Failed(Failure{Agent: "d", Err: errors.New("late")}); e.Decision.Action != Abort {
		t.Errorf("failure after the abort = %+v", e)
	}
	var human []Escalation
	for _, e := range h.w.Decisions() {
		if e.NeedsHuman() {
			human = append(human, e)
		}
	}
	if len(human) != 1 {
		t.Fatalf("%d decisions need a person, want exactly the abort", len(human))
	}
	abort := human[0]
	if len(abort.LastErrors) != 3 || abort.Situation.FailedAgents != 3 {
		t.Errorf("abort escalation = %+v, want 3 failed agents and their errors", abort)
	}
	body := Comment(abort, []string{"@org/team"})
	for _, want := range []string{"<!-- optr:escalation=42-1-e3 -->\n", "a exited with status 1", "c exited with status 3", "`abort`", "cc @org/team"} {
		if !strings.Contains(body, want) {
			t.Errorf("comment lacks %q:\n%s", want, body)
		}
	}
	if got := listDir(t, filepath.Join(filepath.Dir(h.dir), DirCEOInbox)); len(got) != 1 {
		t.Errorf("ceo-inbox = %v, want one file", got)
	}
	b := h.board(t)
	if b.Agents["d"].Status != StatusFailed {
		t.Errorf("agent d is %q after the abort, want failed", b.Agents["d"].Status)
	}
}

func TestWatcherCompletedAgent(t *testing.T) {
	t.Parallel()
	h := newHarness(t, WatcherOptions{Agents: []string{"a"}, Task: "t"})
	_, progress, done := h.w.Supervise(t.Context(), "a")
	progress(agent.Progress{Bytes: 3})
	done()
	done() // idempotent
	b := h.board(t)
	if b.Agents["a"].Status != StatusCompleted || b.TaskFor("a").Status != TaskCompleted || b.Agents["a"].Task != "t" {
		t.Errorf("after success: agent %+v, task %+v", b.Agents["a"], b.TaskFor("a"))
	}
	if len(h.actions()) != 0 {
		t.Errorf("decisions for a successful agent: %v", h.actions())
	}
}

func TestWatcherSpareClaimsAReassignedTask(t *testing.T) {
	t.Parallel()
	h := newHarness(t, WatcherOptions{Agents: []string{"a"}, Task: "the task"})
	_, _, done := h.w.Supervise(t.Context(), "a")
	h.w.Failed(Failure{Agent: "a", Err: errors.New("exit 1")})
	done()
	_, _, sdone := h.w.Supervise(t.Context(), "spare")
	sdone()
	b := h.board(t)
	task := b.TaskFor("spare")
	if task == nil || task.ID != "task-a" || task.Status != TaskCompleted || task.Attempts != 2 {
		t.Errorf("the spare's task = %+v, want a's task, completed, second attempt", task)
	}
}

// TestWatcherStart drives stall detection from the real ticker.
func TestWatcherStart(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), ".coordination")
	w, err := NewWatcher(WatcherOptions{Dir: dir, Agents: []string{"a"}, StuckAfter: 50 * time.Millisecond, MaxRestarts: 1})
	if err != nil {
		t.Fatal(err)
	}
	stop := w.Start(t.Context())
	defer stop()
	ctx, _, done := w.Supervise(t.Context(), "a")
	defer done()
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("a stalled agent was not stopped within 5s")
	}
	if !errors.Is(context.Cause(ctx), ErrRestart) {
		t.Errorf("cause = %v, want ErrRestart", context.Cause(ctx))
	}
}

func TestLedgerFields(t *testing.T) {
	t.Parallel()
	e := Escalation{ID: "1-e1", Agent: "a", Trigger: TriggerStuck, Reason: "r", Tried: []string{"x"},
		Situation: Situation{FailedAgents: 1}, Decision: Decision{Restart, "why"}}
	want := map[string]any{"escalation": "1-e1", "agent": "a", "trigger": "stuck", "reason": "r", "decision": "restart",
		"decision_reason": "why", "failed_agents": int64(1), "max_failures": int64(3), "tried": []any{"x"}}
	if diff := cmp.Diff(want, e.LedgerFields()); diff != "" {
		t.Errorf("LedgerFields (-want +got):\n%s", diff)
	}
}
