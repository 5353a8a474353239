package stages

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/checkpoint"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/escalation"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/status"
)

// TestDemoCompletesWithOneRestart runs the four demo scripts of
// testdata/demo as command agents: execute crashes once and is restarted
// after restart-backoff, and every stage starts only after the one before
// it handed off.
func TestDemoCompletesWithOneRestart(t *testing.T) {
	t.Parallel()
	c, factory, cons := demo(t)
	run := newRun(t, nil, "r1")
	var ev events
	var sl sleeps
	in := input(run, c, factory, &ev, &sl)
	in.Constraints = cons
	out, err := Run(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != status.Completed || out.Message != "" {
		t.Fatalf("status %s (%s), want completed", out.Status, out.Message)
	}
	if diff := cmp.Diff([]string{"discuss", "decisions", "execute", "execute", "mind"}, ev.started()); diff != "" {
		t.Errorf("attempts started in the wrong order (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]time.Duration{time.Second}, sl.d); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
	type summary struct {
		Stage, Handoff string
		Status         status.Status
		Attempts       int
		Restarts       int
	}
	var got []summary
	for _, r := range out.Stages {
		got = append(got, summary{r.Stage, r.Handoff, r.Status, len(r.Attempts), r.Restarts})
	}
	want := []summary{
		{"discuss", "decisions", status.HandedOff, 1, 0},
		{"decisions", "execute", status.HandedOff, 1, 0},
		{"execute", "mind", status.HandedOff, 2, 1},
		{"mind", "", status.Completed, 1, 0},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stages (-want +got):\n%s", diff)
	}
	crash := out.Stages[2].Attempts[0]
	if !crash.Crash || crash.Reason != "demo_crash" || crash.ExitCode == nil || *crash.ExitCode != 1 || crash.DelayMS != 1000 {
		t.Errorf("execute's first attempt = %+v, want an ERROR-frame crash with exit 1 and a 1s wait", crash)
	}
	// The files: each stage's record and output, the output hashed.
	for i, r := range out.Stages {
		text := readFile(t, run.Path(OutputPath(i, r.Stage)))
		if executor.SHA256Hex(text) != r.OutputSHA256 || strings.Contains(text, "<<<OPTR") {
			t.Errorf("%s: output file does not match its record or holds a frame:\n%s", r.Stage, text)
		}
		if _, err := os.Stat(run.Path(RecordPath(i, r.Stage))); err != nil {
			t.Error(err)
		}
	}
	if !strings.HasPrefix(out.Output, "# Decision record") || !out.Checks.Admissible {
		t.Errorf("result = %q (admissible %v), want mind's decision record passing the demo's checks", out.Output, out.Checks.Admissible)
	}
	// decisions read discuss's output through OPTR_PREVIOUS_OUTPUT; mind read execute's.
	if !strings.Contains(out.Stages[1].output, "Of the 3 options") || !strings.Contains(out.Output, "planned 3 steps") {
		t.Errorf("a stage did not get the previous stage's output:\n%s\n%s", out.Stages[1].output, out.Output)
	}
	// The ledger members: mode, pipeline, one object per stage.
	fields := out.LedgerFields()
	list := fields["stages"].([]any)
	var ledgerStages []string
	for i, x := range list {
		m := x.(map[string]any)
		if m["output_sha256"] != out.Stages[i].OutputSHA256 || m["exec_ms"] != out.Stages[i].ExecMS {
			t.Errorf("ledger stage %d = %v, record %+v", i, m, out.Stages[i])
		}
		ledgerStages = append(ledgerStages, fmt.Sprintf("%v %v %v %v %v", m["stage"], m["agent"], m["status"], m["attempts"], m["handoff"]))
	}
	wantLedger := []string{
		"discuss discuss handed_off 1 decisions",
		"decisions decisions handed_off 1 execute",
		"execute execute handed_off 2 mind",
		"mind mind completed 1 ",
	}
	if diff := cmp.Diff(wantLedger, ledgerStages); diff != "" || fields["mode"] != "stages" || fields["pipeline"] != "decide" {
		t.Errorf("ledger fields %v (-want +got):\n%s", fields, diff)
	}
	loaded, err := LoadCommitted(run, c.Stages, 3)
	if err != nil || len(loaded) != 3 || loaded[2].Output != out.Stages[2].output {
		t.Errorf("LoadCommitted = %d outputs, %v", len(loaded), err)
	}
}

// TestAlwaysCrashingStageEscalates: a stage that always crashes is
// restarted exactly restarts times with doubling waits, then the run
// escalates and the later stages never start.
func TestAlwaysCrashingStageEscalates(t *testing.T) {
	t.Parallel()
	for _, policy := range []string{config.NoAdmissibleFail, config.NoAdmissibleCheckpoint} {
		t.Run(policy, func(t *testing.T) {
			t.Parallel()
			run := newRun(t, nil, "r1")
			marker := filepath.Join(t.TempDir(), "c-ran")
			c := Config{Pipeline: "p", Stages: []string{"a", "b", "c"}, Restarts: 3, RestartBackoff: time.Second}
			var ev events
			var sl sleeps
			in := input(run, c, scripts(t, map[string]string{
				"a": `echo A; echo "<<<OPTR:HANDOFF:$OPTR_NEXT_STAGE>>>"`,
				"b": `echo started >&2; exit 3`,
				"c": `touch ` + marker,
			}), &ev, &sl)
			in.OnNoAdmissible = policy
			out, err := Run(t.Context(), in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]string{"a", "b", "b", "b", "b"}, ev.started()); diff != "" {
				t.Errorf("attempts started (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]time.Duration{time.Second, 2 * time.Second, 4 * time.Second}, sl.d); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Error("stage c ran after stage b crashed for good")
			}
			b := out.Stages[1]
			if b.Status != status.Escalated || b.Restarts != 3 || len(b.Attempts) != 4 || out.Stages[2].Status != status.NotStarted {
				t.Errorf("b = %s with %d restarts and %d attempts, c = %s", b.Status, b.Restarts, len(b.Attempts), out.Stages[2].Status)
			}
			for _, a := range b.Attempts {
				if a.ExitCode == nil || *a.ExitCode != 3 || !a.Crash {
					t.Errorf("attempt %+v, want a crash with exit 3", a)
				}
			}
			e := out.Escalation
			if e == nil || e.Decision.Action != escalation.EscalateCEO || e.Agent != "b" || len(e.Tried) != 4 || out.ResumeAt != 1 {
				t.Fatalf("escalation = %+v, resume at %d", e, out.ResumeAt)
			}
			wantStatus, wantTrigger := status.Failed, checkpoint.Trigger("")
			if policy == config.NoAdmissibleCheckpoint {
				wantStatus, wantTrigger = status.Paused, checkpoint.TriggerHiccup
			}
			if out.Status != wantStatus || out.Trigger != wantTrigger {
				t.Errorf("run %s at %q, want %s at %q", out.Status, out.Trigger, wantStatus, wantTrigger)
			}
			if _, err := os.Stat(run.Path(OutputPath(2, "c"))); err == nil {
				t.Error("stage c has an output file")
			}
		})
	}
}

// TestResumeRetriesTheFailedStage: a resumed HICCUP checkpoint starts at
// the failed stage with the committed output of the earlier ones, which
// never run again, and appends to the failed stage's record.
func TestResumeRetriesTheFailedStage(t *testing.T) {
	t.Parallel()
	run := newRun(t, nil, "r1")
	count := filepath.Join(t.TempDir(), "a-runs")
	c := Config{Pipeline: "p", Stages: []string{"a", "b", "c"}, Restarts: 0, RestartBackoff: time.Second}
	first := map[string]string{
		"a": `cat >/dev/null; echo run >>` + count + `; echo "from a"; echo "<<<OPTR:HANDOFF:b>>>"`,
		"b": `exit 1`,
		"c": `cat`,
	}
	in := input(run, c, scripts(t, first), nil, nil)
	in.OnNoAdmissible = config.NoAdmissibleCheckpoint
	out, err := Run(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != status.Paused || out.Trigger != checkpoint.TriggerHiccup || out.ResumeAt != 1 {
		t.Fatalf("first run: %s at %q, resume at %d", out.Status, out.Trigger, out.ResumeAt)
	}
	if opts := out.HiccupOptions(); !strings.Contains(opts[0].Description, "retry stage b") {
		t.Errorf("option 1 = %q, want a retry of stage b", opts[0].Description)
	}

	second := map[string]string{
		"a": `echo "a ran again" >>` + count,
		"b": `echo "b got: $(cat)"; echo "<<<OPTR:HANDOFF:c>>>"`,
		"c": `cat`,
	}
	var ev events
	in = input(run, c, scripts(t, second), &ev, nil)
	in.StartAt = out.ResumeAt
	out, err = Run(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != status.Completed {
		t.Fatalf("resumed run: %s (%s)", out.Status, out.Message)
	}
	if diff := cmp.Diff([]string{"b", "c"}, ev.started()); diff != "" {
		t.Errorf("attempts started (-want +got):\n%s", diff)
	}
	if got := readFile(t, count); got != "run\n" {
		t.Errorf("stage a ran again: %q", got)
	}
	b := out.Stages[1]
	if len(b.Attempts) != 2 || b.Resumed != 1 || b.Status != status.HandedOff || !strings.Contains(b.output, "from a") {
		t.Errorf("b: %d attempts, resumed %d, %s, output %q", len(b.Attempts), b.Resumed, b.Status, b.output)
	}
	if out.Stages[0].Status != status.HandedOff || out.Stages[0].OutputSHA256 == "" {
		t.Errorf("a's record after the resume: %+v", out.Stages[0])
	}

	// A changed committed output is refused, naming the file.
	if err := os.WriteFile(run.Path(OutputPath(0, "a")), []byte("forged"), 0o644); err != nil {
		t.Fatal(err)
	}
	in.StartAt = 2
	if _, err := Run(t.Context(), in); err == nil || !strings.Contains(err.Error(), "01_a.out") {
		t.Errorf("resume over a changed output: %v", err)
	}
}

func TestRunRefusesBadInput(t *testing.T) {
	t.Parallel()
	run := newRun(t, nil, "r1")
	task := scripts(t, map[string]string{"a": "true", "b": "true"})
	tests := []struct {
		name string
		edit func(*Input)
		want string
	}{
		{"one stage", func(in *Input) { in.Config.Stages = []string{"a"} }, "at least 2"},
		{"a stage twice", func(in *Input) { in.Config.Stages = []string{"a", "b", "a"} }, `"a" twice`},
		{"a path as a stage", func(in *Input) { in.Config.Stages = []string{"a", "../b"} }, "stage 2"},
		{"start past the end", func(in *Input) { in.StartAt = 2 }, "cannot start at stage 3"},
		{"forged feedback", func(in *Input) {
			in.Config.Feedback = true
			in.Feedback = &Feedback{Source: FeedbackSource{Run: "r0", SHA256: executor.SHA256Hex("real")}, Content: "forged"}
		}, "does not hash"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := input(run, Config{Pipeline: "p", Stages: []string{"a", "b"}}, task, nil, nil)
			tt.edit(&in)
			if _, err := Run(t.Context(), in); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Run error = %v, want one containing %q", err, tt.want)
			}
		})
	}
	if entries, _ := os.ReadDir(run.Path(DirStages)); len(entries) > 0 {
		t.Errorf("bad input wrote stage files: %v", entries)
	}
}

// TestLastStageNeedsNoHandoff: the last stage finishes without a HANDOFF,
// and one it sends anyway names no next stage, so it is ignored.
func TestLastStageNeedsNoHandoff(t *testing.T) {
	t.Parallel()
	run := newRun(t, nil, "r1")
	c := Config{Pipeline: "p", Stages: []string{"a", "b"}, Restarts: 0, RestartBackoff: time.Second}
	out, err := Run(t.Context(), input(run, c, scripts(t, map[string]string{
		"a": `echo '<<<OPTR:HANDOFF:b>>>'`,
		"b": `echo result; echo '<<<OPTR:HANDOFF:a>>>'`,
	}), nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	b := out.Last()
	if out.Status != status.Completed || b.Status != status.Completed || b.Handoff != "" || out.Output != "result\n" {
		t.Fatalf("run %s, b = %s handing off to %q, output %q", out.Status, b.Status, b.Handoff, out.Output)
	}
	if diff := cmp.Diff([]string{"a"}, b.IgnoredHandoffs); diff != "" {
		t.Errorf("ignored handoffs (-want +got):\n%s", diff)
	}
}

// TestUnbuildableStageFails: a stage whose agent cannot be built fails at
// once, with an escalation and nothing after it started.
func TestUnbuildableStageFails(t *testing.T) {
	t.Parallel()
	run := newRun(t, nil, "r1")
	c := Config{Pipeline: "p", Stages: []string{"a", "b"}, Restarts: 3, RestartBackoff: time.Second}
	out, err := Run(t.Context(), input(run, c, func(string) (executor.Task, error) {
		return executor.Task{}, errors.New("agents.a.run is empty")
	}, nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	a := out.Stages[0]
	if out.Status != status.Failed || a.Status != status.Failed || a.Reason != "bad_config" || out.Escalation == nil || out.Stages[1].Status != status.NotStarted {
		t.Fatalf("run %s, a = %+v, escalation %v", out.Status, a, out.Escalation)
	}
	if !strings.Contains(out.Escalation.Reason, "agents.a.run is empty") {
		t.Errorf("escalation reason %q", out.Escalation.Reason)
	}
}
