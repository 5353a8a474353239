package main

import (
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/action/actiontest"
	"github.com/optr-dev/optr/internal/github/githubtest"
	"github.com/optr-dev/optr/internal/testkit/demotest"
)

// watcherRun dispatches the watcher demo's pipeline in the built binary.
func watcherRun(t *testing.T, gh *githubtest.Server, runID, pipeline, intent string) result {
	t.Helper()
	r := newRunner(t, gh, runID)
	demotest.Copy(t, r.Workspace)
	r.Env["INPUT_CONFIG"] = "testdata/demo/watcher.yml"
	r.Env["INPUT_PIPELINE"] = pipeline
	r.Event("workflow_dispatch", "workflow_dispatch.json", func(p map[string]any) {
		p["inputs"] = map[string]any{"workflow": pipeline, "intent": intent}
	})
	return r.run()
}

// Five agents, three failing at once (the default watcher.max-failures is
// 3): the two steady agents run on and the run completes, its three
// escalation entries before the run entry and none of them an abort.
func TestActionFiveAgentsThreeFailFastCompletes(t *testing.T) {
	t.Parallel()
	gh := githubtest.NewServer(t)
	res := watcherRun(t, gh, "9401", "five", "Name a prime")
	if res.code != 0 || res.outputs["status"] != "completed" || !strings.HasPrefix(res.outputs["selected-agent"], "steady-") {
		t.Fatalf("exit %d outputs %v\n%s%s", res.code, res.outputs, res.stdout, res.stderr)
	}
	if got := kinds(t, gh); got != "escalation,escalation,escalation,run" {
		t.Fatalf("ledger kinds %s", got)
	}
	for _, e := range ledgerLines(t, gh)[:3] {
		if e["decision"] == "abort" {
			t.Errorf("an escalation aborted the run: %v", e)
		}
	}
}

// Eight topics two at a time, three failing at once: 5 of 8 valid reports
// (62.5%) is above the 0.5 threshold, so the run completes with a warning
// and success_rate 0.625, and the step summary never says it failed.
func TestActionDelegateAboveThresholdCompletesWithAWarning(t *testing.T) {
	t.Parallel()
	gh := githubtest.NewServer(t)
	res := watcherRun(t, gh, "9402", "survey", "Survey ledger designs")
	if res.code != 0 || res.outputs["status"] != "completed" || res.outputs["result-file"] != ".optr/specs/001_survey/OVERVIEW.md" {
		t.Fatalf("exit %d outputs %v\n%s%s", res.code, res.outputs, res.stdout, res.stderr)
	}
	lines := ledgerLines(t, gh)
	if run := lines[len(lines)-1]; run["kind"] != "run" || run["status"] != "completed" || run["success_rate"] != 0.625 {
		t.Fatalf("run entry %v", run)
	}
	if !strings.Contains(res.summary, "Research complete: 5/8 topics (62.5% success)") || !strings.Contains(res.summary, "completes with a warning") || strings.Contains(res.summary, "aborted") {
		t.Errorf("step summary:\n%s", res.summary)
	}
}

// When every agent fails, nothing left can make the run succeed: the third
// failure aborts it, with exactly one escalation comment, which names the
// decision, the mention and why, in numbers.
func TestActionEveryAgentFailsAbortsWithOneEscalationComment(t *testing.T) {
	t.Parallel()
	gh := githubtest.NewServer(t)
	gh.AddIssue(repo, 23, "t", "b", "maintainer")
	writer(gh, "maintainer")
	r := newRunner(t, gh, "9301")
	r.File(".github/optr.yml", `agents:
  a: { provider: command, run: [sh, -c, "exit 1"] }
  b: { provider: command, run: [sh, -c, "exit 2"] }
  c: { provider: command, run: [sh, -c, "exit 3"] }
escalation:
  mention: ["@octo-org/maintainers"]
`)
	r.Event("issues", "issues.labeled.json", actiontest.Labeled(23, "optr", "maintainer"))
	res := r.run()
	if res.code != 1 || res.outputs["status"] != "failed" || !strings.Contains(res.stdout, "the run can no longer succeed: 3 of 3 agents failed") {
		t.Fatalf("exit %d outputs %v\n%s%s", res.code, res.outputs, res.stdout, res.stderr)
	}
	var escalations []string
	for _, c := range optrComments(gh, 23) {
		if strings.Contains(c.Body, "<!-- optr:escalation=") {
			escalations = append(escalations, c.Body)
		}
	}
	if len(escalations) != 1 || !strings.Contains(escalations[0], "abort") || !strings.Contains(escalations[0], "@octo-org/maintainers") || !strings.Contains(escalations[0], "3 of 3 agents failed") {
		t.Fatalf("want exactly one escalation comment naming abort, the mention and the numbers, got %d:\n%s", len(escalations), strings.Join(escalations, "\n---\n"))
	}
	if got := kinds(t, gh); got != "escalation,escalation,escalation,run" {
		t.Fatalf("ledger kinds = %s, want three escalations then the run", got)
	}
}
