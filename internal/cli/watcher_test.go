package cli

import (
	"strings"
	"testing"
)

// The demo's five agents, two at a time: three fail at once, which reaches
// watcher.max-failures, while the two steady ones could still be π*. The
// failures do not abort the run: it completes with π* among the steady
// agents, and each failure's decision is recorded, the third saying why
// it did not abort, in numbers. The same with the datalake outside the
// workspace: the demo's agents read nothing of the run's but their input,
// so where the datalake is changes nothing (an agent that read the
// watcher's files beside its output directory hung there until its
// timeout, refused by the sandbox).
func TestRunFiveAgentsThreeFailFastCompletes(t *testing.T) {
	for _, outside := range []bool{false, true} {
		t.Run(map[bool]string{false: "datalake in the workspace", true: "datalake outside it"}[outside], func(t *testing.T) {
			demoWorkspace(t)
			lake := ".optr"
			if outside {
				lake = t.TempDir()
			}
			r := optr(t, "run", "--config", "testdata/demo/watcher.yml", "--pipeline", "five", "--intent", "Name a prime", "--run-id", "w5", "--datalake", lake)
			if r.code != 0 || !strings.Contains(r.stdout, "π* = steady-") {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
			}
			led := ledgerOf(t, lake)
			var decisions []string
			for _, e := range led[:len(led)-1] {
				decisions = append(decisions, e["decision"].(string))
			}
			if got := strings.Join(decisions, ","); got != "reassign,reassign,reassign" {
				t.Errorf("escalation decisions %s, want three reassigns and no abort", got)
			}
			third, _ := led[2]["decision_reason"].(string)
			if !strings.Contains(third, "no abort: 3 agent(s) have failed") || !strings.Contains(third, "3 of 5 agents failed") {
				t.Errorf("the third decision does not say why it did not abort: %q", third)
			}
			run := led[len(led)-1]
			if run["kind"] != "run" || run["status"] != "completed" {
				t.Errorf("run entry %v", run)
			}
		})
	}
}

// The demo's survey: eight topics two at a time, the first three fail at
// once, the five others get valid reports. 62.5% is above the threshold:
// the run completes with a warning (never both "failed" and "completes
// with a warning"), with success_rate 0.625.
func TestRunDelegateAboveThresholdCompletesWithAWarning(t *testing.T) {
	demoWorkspace(t)
	r := optr(t, "run", "--config", "testdata/demo/watcher.yml", "--pipeline", "survey", "--intent", "Survey ledger designs", "--run-id", "w8")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"Research complete: 5/8 topics (62.5% success)", "completes with a warning", "): completed"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "aborted") || strings.Contains(r.stdout, ": failed") {
		t.Errorf("the summary says the run failed:\n%s", r.stdout)
	}
	led := ledgerOf(t, ".optr")
	run := led[len(led)-1]
	if run["kind"] != "run" || run["status"] != "completed" || run["success_rate"] != 0.625 {
		t.Errorf("run entry %v", run)
	}
}
