package executor

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/escalation"
	"github.com/optr-dev/optr/internal/status"
)

// hangOnce hangs, silent, on its first launch and succeeds on the next: the
// marker file tells the launches apart.
const hangOnce = `if [ -f "$PWD/marker" ]; then echo second launch; else touch "$PWD/marker"; exec sleep 30; fi`

// TestStuckAgentWithoutRestartsFails: with watcher.max-restarts 0 a stalled
// agent is stopped and its failure decided on (reassign: it left nothing);
// with no spare, the note names the key that declares spares (issue 22
// item 11: it said any unused agent was one).
func TestStuckAgentWithoutRestartsFails(t *testing.T) {
	t.Parallel()
	opts := Options{Tasks: []Task{sh(t, "sleepy", "exec sleep 30")}, Request: agent.Request{Intent: "x", Dir: t.TempDir()}}
	wd := watch(t, &opts, escalation.WatcherOptions{StuckAfter: 200 * time.Millisecond, MaxRestarts: 0})
	results, err := Run(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	wd.stop() // the stall's decision is told on the watcher's goroutine
	r := results[0]
	if r.Status != status.Failed || r.Reason != "stuck" || r.Restarts != 0 || r.Decision != string(escalation.Reassign) ||
		!strings.Contains(r.DecisionNote, "no spare") || !strings.Contains(r.DecisionNote, "watcher.spares") {
		t.Errorf("stopped agent: %s reason %q restarts %d decision %q note %q", r.Status, r.Reason, r.Restarts, r.Decision, r.DecisionNote)
	}
	if diff := cmp.Diff([]escalation.Action{escalation.Reassign}, wd.actions()); diff != "" {
		t.Errorf("decisions (-want +got):\n%s", diff)
	}
}

// TestTimeoutIsRestarted: an agent that runs out of its own timeout is
// restarted (decision table rule 3) and succeeds on the relaunch.
func TestTimeoutIsRestarted(t *testing.T) {
	t.Parallel()
	task := sh(t, "slow", hangOnce)
	// The timeout ends the first launch, which hangs, and must not end the
	// second, which answers at once: 300 ms did, once, with two race
	// suites sharing two cores (starting sh took longer). 2 s leaves the
	// second launch that much, at 2 s of the test's time.
	task.Timeout = 2 * time.Second
	opts := Options{Tasks: []Task{task}, Request: agent.Request{Intent: "x", Dir: t.TempDir()}}
	wd := watch(t, &opts, escalation.WatcherOptions{MaxRestarts: 1}) // no stall detection
	results, err := Run(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if r := results[0]; r.Status != status.Succeeded || r.Restarts != 1 || r.Output != "second launch\n" {
		t.Errorf("result: %s restarts %d output %q error %q", r.Status, r.Restarts, r.Output, r.Error)
	}
	if diff := cmp.Diff([]escalation.Action{escalation.Restart}, wd.actions()); diff != "" {
		t.Errorf("decisions (-want +got):\n%s", diff)
	}
}

// inOrder returns the Sink and a shell prefix that make failures come in
// a given order: a task waits with after(prev) until prev reached the sink
// (its failure decided), not for a time.
func inOrder(t *testing.T, rc *recorder) (sink func(*Result) error, after func(prev string) string) {
	dir := t.TempDir()
	sink = func(r *Result) error {
		if err := rc.sink(r); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, r.Agent), nil, 0o644)
	}
	after = func(prev string) string {
		return fmt.Sprintf("until [ -e %q ]; do sleep 0.01; done; ", filepath.Join(dir, prev))
	}
	return sink, after
}

// TestFailuresDoNotAbortAHealthyAgent: watcher.max-failures 3 agents that
// fail while another is still at work do not abort the run: that agent's
// result could still be π*, so it runs to its end, and the third
// decision says in numbers why it did not abort.
func TestFailuresDoNotAbortAHealthyAgent(t *testing.T) {
	t.Parallel()
	rc := &recorder{}
	sink, after := inOrder(t, rc)
	// healthy answers only once the third failure was decided.
	opts := Options{
		Tasks: []Task{sh(t, "f1", "exit 1"), sh(t, "f2", after("f1")+"exit 2"), sh(t, "f3", after("f2")+"exit 3"),
			sh(t, "healthy", after("f3")+"echo fine")},
		Sink: sink,
	}
	wd := watch(t, &opts, escalation.WatcherOptions{MaxFailures: 3})
	results, err := Run(t.Context(), opts)
	if err != nil {
		t.Fatalf("Run error = %v, want none", err)
	}
	want := map[string]status.Status{"f1": status.Escalated, "f2": status.Escalated, "f3": status.Escalated, "healthy": status.Succeeded}
	if diff := cmp.Diff(want, statuses(results)); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]escalation.Action{escalation.Reassign, escalation.Reassign, escalation.Reassign}, wd.actions()); diff != "" {
		t.Errorf("decisions (-want +got):\n%s", diff)
	}
	why := byName(results)["f3"].Decision
	third := wd.all[2].Decision.Reason
	if why != "reassign" || !strings.Contains(third, "no abort: 3 agent(s) have failed") || !strings.Contains(third, "3 of 4 agents failed, 1 running, 0 queued, 0 succeeded") {
		t.Errorf("f3: decision %q, reason %q", why, third)
	}
}

// TestFailuresAbortWhenNothingCanSucceed: once watcher.max-failures agents
// failed and no agent is left that could produce an admissible result,
// the run is aborted — there is nothing left to stop — and the abort says
// why, in numbers; exactly one decision calls for a person.
func TestFailuresAbortWhenNothingCanSucceed(t *testing.T) {
	t.Parallel()
	rc := &recorder{}
	sink, after := inOrder(t, rc)
	opts := Options{
		Tasks: []Task{sh(t, "f1", "exit 1"), sh(t, "f2", after("f1")+"exit 2"), sh(t, "f3", after("f2")+"exit 3")},
		Sink:  sink,
	}
	wd := watch(t, &opts, escalation.WatcherOptions{MaxFailures: 3})
	results, err := Run(t.Context(), opts)
	if !errors.Is(err, escalation.ErrAbort) || !strings.Contains(err.Error(), "run aborted") {
		t.Fatalf("Run error = %v, want ErrAbort", err)
	}
	ae := escalation.AbortOf(err)
	if ae == nil || !strings.Contains(ae.Reason, "3 agent(s) have failed, which reaches watcher.max-failures (3), and the run can no longer succeed: 3 of 3 agents failed, 0 running, 0 queued, 0 succeeded, 0 spare(s)") {
		t.Errorf("abort reason: %v", err)
	}
	if diff := cmp.Diff([]escalation.Action{escalation.Reassign, escalation.Reassign, escalation.Abort}, wd.actions()); diff != "" {
		t.Errorf("decisions (-want +got):\n%s", diff)
	}
	if n := wd.needHuman(); n != 1 {
		t.Errorf("%d decisions call for an escalation comment, want 1", n)
	}
	if got := byName(results)["f3"]; got.Decision != "abort" || got.DecisionID != "7-1-e3" {
		t.Errorf("f3: decision %q id %q", got.Decision, got.DecisionID)
	}
	if n := len(rc.sunkNames()); n != 3 {
		t.Errorf("sink saw %d results, want 3", n)
	}
	inbox, _ := os.ReadDir(filepath.Join(filepath.Dir(wd.dir), escalation.DirCEOInbox))
	if len(inbox) != 1 {
		t.Errorf("ceo-inbox holds %d files, want 1", len(inbox))
	}
	decision, err := os.ReadFile(filepath.Join(wd.dir, escalation.FileDecision))
	if err != nil || !strings.Contains(string(decision), "The run can still succeed: no (3 of 3 agents failed") {
		t.Errorf("decision.md does not say why, in numbers (%v):\n%s", err, decision)
	}
}

// TestAbortStopsWhatCannotChangeTheOutcome: when the run's outlook says
// it can no longer succeed (here a threshold that one failure sinks), the
// watcher's abort cancels the running agent, and the queued one, whose
// slot the failed agent frees only after the abort, never starts.
func TestAbortStopsWhatCannotChangeTheOutcome(t *testing.T) {
	t.Parallel()
	opts := Options{
		Tasks:       []Task{sh(t, "f1", "exit 1"), sh(t, "running", "exec sleep 30"), sh(t, "waiting", "echo never")},
		MaxParallel: 2,
		Outlook: func(s Standing) escalation.Outlook {
			return escalation.Outlook{Open: s.Count(status.Failed) == 0, Why: fmt.Sprintf("%d failed", s.Count(status.Failed))}
		},
	}
	watch(t, &opts, escalation.WatcherOptions{MaxFailures: 1})
	start := time.Now()
	results, err := Run(t.Context(), opts)
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("the aborted run took %s: the running agent was not stopped", el)
	}
	if !errors.Is(err, escalation.ErrAbort) {
		t.Fatalf("Run error = %v, want ErrAbort", err)
	}
	got := byName(results)
	if r := got["running"]; r.Status != status.Cancelled {
		t.Errorf("running agent: %s %q", r.Status, r.Error)
	}
	if w := got["waiting"]; w.Status != status.Cancelled || len(w.Attempts) != 0 {
		t.Errorf("queued agent: %s %q attempts %d", w.Status, w.Error, len(w.Attempts))
	}
}

// TestPartialOutputIsSynthesized: an agent that fails after writing part of
// its answer has it handed to the synthesis step.
func TestPartialOutputIsSynthesized(t *testing.T) {
	t.Parallel()
	synth := sh(t, "synth", "cat")
	opts := Options{
		Tasks:       []Task{sh(t, "half", "echo first half of the answer; exit 1"), sh(t, "whole", "echo whole")},
		Request:     agent.Request{Intent: "Write the answer."},
		Synthesizer: &synth,
	}
	wd := watch(t, &opts, escalation.WatcherOptions{})
	results, err := Run(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 3 {
		t.Fatalf("%d results, want 3 (two agents and the synthesis)", len(results))
	}
	half, s := results[0], results[2]
	if half.Decision != "synthesize" || half.Raw != "first half of the answer\n" || half.HasOutput() {
		t.Errorf("failed agent: decision %q raw %q output %q", half.Decision, half.Raw, half.Output)
	}
	if s.Agent != SynthesisAgent || s.Status != status.Succeeded || !cmp.Equal(s.SynthesizedFrom, []string{"half"}) {
		t.Errorf("synthesis: %s %s from %v (%s)", s.Agent, s.Status, s.SynthesizedFrom, s.Error)
	}
	for _, want := range []string{"Write the answer.", "untrusted data", "### Partial output of half", "```\nfirst half of the answer\n```"} {
		if !strings.Contains(s.Output, want) {
			t.Errorf("the synthesizer was not given %q; it got:\n%s", want, s.Output)
		}
	}
	if diff := cmp.Diff([]escalation.Action{escalation.Synthesize}, wd.actions()); diff != "" {
		t.Errorf("decisions (-want +got):\n%s", diff)
	}
}

// TestFailureWithoutOutputIsReassigned: a spare that is free takes over the
// failed agent's task; a busy one is passed over; a spare that fails too
// hands the task on.
func TestFailureWithoutOutputIsReassigned(t *testing.T) {
	t.Parallel()
	// busy is still running when broken fails, and ends only once the
	// spare's result is in: signals, not timing.
	dir := t.TempDir()
	started, spareDone := filepath.Join(dir, "busy-started"), filepath.Join(dir, "spare")
	busy := sh(t, "busy", fmt.Sprintf("touch %q; until [ -e %q ]; do sleep 0.01; done; echo busy", started, spareDone))
	opts := Options{
		Tasks:  []Task{sh(t, "broken", fmt.Sprintf("until [ -e %q ]; do sleep 0.01; done; exit 1", started)), busy},
		Spares: []Task{busy, sh(t, "flaky", "exit 1"), sh(t, "spare", "echo spare did it")},
		Sink: func(r *Result) error {
			return os.WriteFile(filepath.Join(dir, r.Agent), nil, 0o644)
		},
	}
	wd := watch(t, &opts, escalation.WatcherOptions{MaxFailures: 5})
	results, err := Run(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	type row struct{ Agent, Replaces, ReplacedBy, Decision string }
	var got []row
	for _, r := range results {
		got = append(got, row{r.Agent, r.Replaces, r.ReplacedBy, r.Decision})
	}
	want := []row{
		{"broken", "", "flaky", "reassign"},
		{"busy", "", "", ""},
		{"flaky", "broken", "spare", "reassign"},
		{"spare", "flaky", "", ""},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	if s := byName(results)["spare"]; s.Status != status.Succeeded || s.Output != "spare did it\n" {
		t.Errorf("spare: %s %q", s.Status, s.Output)
	}
	if diff := cmp.Diff([]escalation.Action{escalation.Reassign, escalation.Reassign}, wd.actions()); diff != "" {
		t.Errorf("decisions (-want +got):\n%s", diff)
	}
	board := readBoard(t, wd)
	if !strings.Contains(board, `"spare": {`) {
		t.Errorf("the spare is not on the blackboard:\n%s", board)
	}
}

// TestSpareNamedLikeATask: a task agent reused as a spare gets a result
// name of its own, so no agent output file is written twice.
func TestSpareNamedLikeATask(t *testing.T) {
	t.Parallel()
	// broken fails once ok's result is in, so ok is free to take over.
	dir := t.TempDir()
	ok := sh(t, "ok", "echo ok")
	opts := Options{
		Tasks:  []Task{ok, sh(t, "broken", fmt.Sprintf("until [ -e %q ]; do sleep 0.01; done; exit 1", filepath.Join(dir, "ok")))},
		Spares: []Task{ok},
		Sink:   func(r *Result) error { return os.WriteFile(filepath.Join(dir, r.Agent), nil, 0o644) },
	}
	watch(t, &opts, escalation.WatcherOptions{})
	results, err := Run(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 3 || results[2].Agent != "ok-2" || results[2].Replaces != "broken" || results[1].ReplacedBy != "ok-2" {
		t.Errorf("results: %+v", results)
	}
}

// TestConflictEscalates: an agent that reports a conflict in its ERROR
// frame is handed to a person.
func TestConflictEscalates(t *testing.T) {
	t.Parallel()
	opts := Options{Tasks: []Task{sh(t, "writer", `printf '<<<OPTR:ERROR:{"code":"conflict","message":"reviewer disagrees"}>>>'; exit 1`)}}
	wd := watch(t, &opts, escalation.WatcherOptions{})
	results, err := Run(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if r := results[0]; r.Decision != "escalate_ceo" || r.Reason != "conflict" {
		t.Errorf("writer: decision %q reason %q", r.Decision, r.Reason)
	}
	if wd.needHuman() != 1 {
		t.Errorf("no decision calls for a person")
	}
}

// readBoard reads the blackboard once the watcher has written its last
// state (it writes at most once a second while a run goes on).
func readBoard(t *testing.T, wd *watched) string {
	t.Helper()
	wd.w.Flush()
	data, err := os.ReadFile(filepath.Join(wd.dir, escalation.FileBlackboard))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
