package stages

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/status"
)

// TestHandoffRules drives the middle stage of a, b, c with every kind of
// HANDOFF and ending: only a HANDOFF naming c moves the pipeline on; any
// other is ignored (and kept in the record); exit 0 without one is
// handoff_missing; a crash escalates (restarts: 0). Stage c runs exactly
// when b handed off.
func TestHandoffRules(t *testing.T) {
	t.Parallel()
	huge := strings.Repeat("c", 100<<10)
	tests := []struct {
		name    string
		b       string // b's script
		status  status.Status
		reason  string
		ignored []string
	}{
		{"to the next stage", `echo out; echo '<<<OPTR:HANDOFF:c>>>'`, status.HandedOff, "", nil},
		{"ODEI prefix", `echo '<<<ODEI:HANDOFF:c>>>'`, status.HandedOff, "", nil},
		{"mid-line and padded", `printf 'x<<<OPTR:HANDOFF: c >>>y\n'`, status.HandedOff, "", nil},
		{"written in pieces", `printf '<<<OPT'; printf 'R:HANDO'; printf 'FF:c>>>\n'`, status.HandedOff, "", nil},
		{"a wrong one first, then the next", `echo '<<<OPTR:HANDOFF:a>>>'; echo '<<<OPTR:HANDOFF:c>>>'`, status.HandedOff, "", []string{"a"}},
		{"to an earlier stage", `echo '<<<OPTR:HANDOFF:a>>>'`, status.Failed, reasonHandoffMissing, []string{"a"}},
		{"to itself", `echo '<<<OPTR:HANDOFF:b>>>'`, status.Failed, reasonHandoffMissing, []string{"b"}},
		{"to an unknown stage", `echo '<<<OPTR:HANDOFF:nobody>>>'`, status.Failed, reasonHandoffMissing, []string{"nobody"}},
		{"a path", `echo '<<<OPTR:HANDOFF:../c>>>'; echo '<<<OPTR:HANDOFF:c/../c>>>'`, status.Failed, reasonHandoffMissing, []string{"../c", "c/../c"}},
		{"an empty payload", `echo '<<<OPTR:HANDOFF:>>>'`, status.Failed, reasonHandoffMissing, nil},
		{"a huge payload", `printf '<<<OPTR:HANDOFF:%s>>>\n' ` + huge, status.Failed, reasonHandoffMissing, nil},
		{"a payload with >>> inside", `echo '<<<OPTR:HANDOFF:x>>>c>>>'`, status.Failed, reasonHandoffMissing, []string{"x"}},
		{"a payload with a newline", `printf '<<<OPTR:HANDOFF:\nc>>>\n'`, status.Failed, reasonHandoffMissing, nil},
		{"no frame at all", `echo done`, status.Failed, reasonHandoffMissing, nil},
		// The command agent fails an attempt that sent an ERROR frame, with
		// the frame's code as the reason.
		{"an ERROR frame, exit 0", `echo '<<<OPTR:ERROR:{"code":"boom","message":"m"}>>>'; echo '<<<OPTR:HANDOFF:c>>>'`, status.Escalated, "boom", nil},
		{"a non-zero exit after handing off", `echo '<<<OPTR:HANDOFF:c>>>'; exit 2`, status.Escalated, "exit_status", nil},
		{"killed by a signal", `echo '<<<OPTR:HANDOFF:c>>>'; kill -9 $$`, status.Escalated, "exit_status", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			run := newRun(t, nil, "r1")
			marker := filepath.Join(t.TempDir(), "c-ran")
			c := Config{Pipeline: "p", Stages: []string{"a", "b", "c"}, Restarts: 0, RestartBackoff: time.Second}
			var ev events
			in := input(run, c, scripts(t, map[string]string{
				"a": `echo '<<<OPTR:HANDOFF:b>>>'`,
				"b": tt.b,
				"c": `cat >/dev/null; touch ` + marker,
			}), &ev, nil)
			out, err := Run(t.Context(), in)
			if err != nil {
				t.Fatal(err)
			}
			b := out.Stages[1]
			if b.Status != tt.status || b.Reason != tt.reason {
				t.Errorf("b ended %s (%s: %s), want %s (%s)", b.Status, b.Reason, b.Error, tt.status, tt.reason)
			}
			if diff := cmp.Diff(tt.ignored, b.IgnoredHandoffs, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("ignored handoffs (-want +got):\n%s", diff)
			}
			_, statErr := os.Stat(marker)
			if ran := statErr == nil; ran != (tt.status == status.HandedOff) {
				t.Errorf("stage c ran = %v, but b ended %s", ran, b.Status)
			}
			wantStarted := []string{"a", "b"}
			if tt.status == status.HandedOff {
				wantStarted = append(wantStarted, "c")
				if b.Handoff != "c" || strings.Contains(b.output, "<<<") {
					t.Errorf("b handed off to %q with output %q", b.Handoff, b.output)
				}
			} else if out.Escalation == nil || out.Stages[2].Status != status.NotStarted {
				t.Errorf("b did not hand off, yet escalation = %v and c = %s", out.Escalation, out.Stages[2].Status)
			}
			if diff := cmp.Diff(wantStarted, ev.started()); diff != "" {
				t.Errorf("attempts started (-want +got):\n%s", diff)
			}
		})
	}
}

// TestBoundedStages: a stage that prints 100 MB is stopped at the capture
// limit and one that never exits at its timeout; both are crashes handled
// by the restart rules, and the stage after them never starts.
func TestBoundedStages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, script string
		timeout      time.Duration
		reason       string
	}{
		{"prints 100 MB", `head -c 100000000 /dev/zero | tr '\000' x; echo '<<<OPTR:HANDOFF:c>>>'`, time.Minute, "output_too_large"},
		{"never exits", `echo working; exec sleep 1000`, time.Second, "timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			run := newRun(t, nil, "r1")
			c := Config{Pipeline: "p", Stages: []string{"a", "b", "c"}, Restarts: 1, RestartBackoff: time.Second}
			tasks := map[string]string{"a": `echo '<<<OPTR:HANDOFF:b>>>'`, "c": `cat`}
			factory := scripts(t, tasks)
			bounded := shAgent(t, "b", tt.script, tt.timeout)
			var ev events
			var sl sleeps
			in := input(run, c, func(s string) (executor.Task, error) {
				if s == "b" {
					return bounded, nil
				}
				return factory(s)
			}, &ev, &sl)
			out, err := Run(t.Context(), in)
			if err != nil {
				t.Fatal(err)
			}
			b := out.Stages[1]
			if b.Status != status.Escalated || len(b.Attempts) != 2 || b.Attempts[0].Reason != tt.reason {
				t.Fatalf("b = %s after %d attempts (first: %+v), want escalated after 2 with %s", b.Status, len(b.Attempts), b.Attempts[0], tt.reason)
			}
			if diff := cmp.Diff([]string{"a", "b", "b"}, ev.started()); diff != "" {
				t.Errorf("attempts started (-want +got):\n%s", diff)
			}
			if out.Stages[2].Status != status.NotStarted {
				t.Errorf("c = %s", out.Stages[2].Status)
			}
			if info, err := os.Stat(run.Path(RecordPath(1, "b"))); err != nil || info.Size() > 1<<20 {
				t.Errorf("b's record: %v (size %v)", err, info)
			}
		})
	}
}
