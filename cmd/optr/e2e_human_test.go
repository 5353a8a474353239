package main

import (
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/action/actiontest"
	"github.com/optr-dev/optr/internal/github/githubtest"
	"github.com/optr-dev/optr/internal/ledger"
)

// pausedIssue runs a labelled issue whose only agent breaks the hard
// constraint under on-no-admissible: checkpoint, and returns the outputs.
func pausedIssue(t *testing.T, gh *githubtest.Server, issue int) map[string]string {
	t.Helper()
	gh.AddIssue(repo, issue, "Draft the notes", "Please.", "maintainer")
	writer(gh, "maintainer")
	r := newRunner(t, gh, "9001")
	r.demo("checkpoint")
	r.Env["INPUT_CONFIG"] = ".github/optr.yml"
	r.File(".github/optr.yml", strings.Replace(strings.Replace(demoConfig, "%s", "checkpoint", 1), "  good:\n    provider: command\n    run: [sh, agents/good.sh]\n", "", 1))
	r.Event("issues", "issues.labeled.json", actiontest.Labeled(issue, "optr", "maintainer"))
	res := r.run()
	if res.code != 0 || res.outputs["status"] != "paused" || res.outputs["checkpoint-id"] == "" {
		t.Fatalf("exit %d, outputs %v\n%s%s", res.code, res.outputs, res.stdout, res.stderr)
	}
	return res.outputs
}

// answer runs `/optr choose`-style comments in a fresh job (a new workflow
// run on a fresh checkout of the branch) and returns its outputs.
func answer(t *testing.T, gh *githubtest.Server, issue int, body, sender, runID string) result {
	t.Helper()
	r := newRunner(t, gh, runID)
	for path, content := range gh.Files(repo, "main") { // actions/checkout
		r.File(path, content)
	}
	r.Event("issue_comment", "issue_comment.created.json", actiontest.Commented(issue, body, sender, "User"))
	return r.run()
}

func kinds(t *testing.T, gh *githubtest.Server) string {
	t.Helper()
	var ks []string
	for _, e := range ledgerLines(t, gh) {
		ks = append(ks, e["kind"].(string))
	}
	return strings.Join(ks, ",")
}

func TestActionCheckpointPausesAndAWriterResumes(t *testing.T) {
	t.Parallel()
	gh := githubtest.NewServer(t)
	gh.SetPermission(repo, "reader", "read")
	out := pausedIssue(t, gh, 21)
	id := out["checkpoint-id"]
	var cpComment string
	for _, c := range optrComments(gh, 21) {
		if strings.Contains(c.Body, "<!-- optr:checkpoint="+id+" -->") {
			cpComment = c.Body
		}
	}
	for _, want := range []string{"NO_ADMISSIBLE", "Proceed", "(recommended)", "/optr choose"} {
		if !strings.Contains(cpComment, want) {
			t.Fatalf("checkpoint comment lacks %q:\n%s", want, cpComment)
		}
	}
	if _, ok := gh.File(repo, ledgerBranch, ".optr/checkpoints/"+id+".json"); !ok {
		t.Fatal("the checkpoint state was not committed")
	}
	if got := kinds(t, gh); got != "checkpoint" {
		t.Fatalf("ledger after the pause = %s, want checkpoint", got)
	}

	// A read-only user's answer changes nothing.
	res := answer(t, gh, 21, "/optr choose 1", "reader", "9002")
	if res.code != 0 || res.outputs["status"] != "skipped" {
		t.Fatalf("reader's answer: exit %d outputs %v\n%s%s", res.code, res.outputs, res.stdout, res.stderr)
	}
	if got := kinds(t, gh); got != "checkpoint" {
		t.Fatalf("a reader's answer changed the ledger: %s", got)
	}

	// A writer's answer resumes the run in a new workflow run.
	res = answer(t, gh, 21, "/optr choose 1 ship it", "maintainer", "9003")
	if res.code != 0 || res.outputs["status"] != "completed" || res.outputs["selected-agent"] != "sloppy" {
		t.Fatalf("writer's answer: exit %d outputs %v\n%s%s", res.code, res.outputs, res.stdout, res.stderr)
	}
	if got := kinds(t, gh); got != "checkpoint,decision,run" {
		t.Fatalf("committed ledger = %s, want checkpoint,decision,run", got)
	}
	lines := ledgerLines(t, gh)
	if lines[1]["by"] != "maintainer" || lines[1]["note"] != "ship it" || lines[2]["run"] != "9001-1" {
		t.Fatalf("decision/run entries = %v / %v", lines[1], lines[2])
	}
	data, _ := gh.File(repo, ledgerBranch, ".optr/ledger.jsonl")
	if _, err := ledger.Verify(strings.NewReader(data)); err != nil {
		t.Fatalf("committed ledger: %v", err)
	}
	if _, ok := gh.File(repo, ledgerBranch, ".optr/workflows/issue-21/runs/9001-1/result.md"); !ok {
		t.Fatal("the resumed run's result was not committed")
	}

	// Answering again is refused with a clear reply and changes nothing.
	res = answer(t, gh, 21, "/optr choose 2", "maintainer", "9004")
	if res.code != 0 || res.outputs["status"] != "skipped" {
		t.Fatalf("second answer: exit %d outputs %v", res.code, res.outputs)
	}
	replied := false
	for _, c := range gh.Comments(repo, 21) {
		replied = replied || strings.Contains(c.Body, "already decided")
	}
	if !replied || kinds(t, gh) != "checkpoint,decision,run" {
		t.Fatalf("a second answer was not refused (replied %v, ledger %s)", replied, kinds(t, gh))
	}
}

func TestActionAbortEndsAPausedRun(t *testing.T) {
	t.Parallel()
	gh := githubtest.NewServer(t)
	pausedIssue(t, gh, 22)
	res := answer(t, gh, 22, "/optr abort not needed", "maintainer", "9101")
	if res.code != 1 || res.outputs["status"] != "failed" {
		t.Fatalf("abort: exit %d outputs %v\n%s%s", res.code, res.outputs, res.stdout, res.stderr)
	}
	lines := ledgerLines(t, gh)
	if kinds(t, gh) != "checkpoint,decision,run" || lines[1]["action"] != "abort" || lines[2]["status"] != "failed" {
		t.Fatalf("ledger after abort = %v", lines)
	}
}

func TestActionStuckAgentIsRestarted(t *testing.T) {
	t.Parallel()
	gh := githubtest.NewServer(t)
	r := newRunner(t, gh, "9201")
	r.File(".github/optr.yml", "agents:\n  flaky:\n    provider: command\n    run: [sh, agents/flaky.sh]\nwatcher:\n  stuck-after: 1s\n  max-restarts: 1\n")
	// Hangs silently on its first launch, answers on the second.
	r.File("agents/flaky.sh", "cat >/dev/null\nif [ ! -f \"$OPTR_OUTPUT_DIR/.launched\" ]; then touch \"$OPTR_OUTPUT_DIR/.launched\"; sleep 60; fi\necho '# fine'\n")
	r.Event("workflow_dispatch", "workflow_dispatch.json", func(p map[string]any) {
		p["inputs"] = map[string]any{"workflow": "stuck", "intent": "answer"}
	})
	res := r.run()
	if res.code != 0 || res.outputs["status"] != "completed" || res.outputs["selected-agent"] != "flaky" {
		t.Fatalf("exit %d outputs %v\n%s%s", res.code, res.outputs, res.stdout, res.stderr)
	}
	lines := ledgerLines(t, gh)
	if kinds(t, gh) != "escalation,run" || lines[0]["decision"] != "restart" {
		t.Fatalf("ledger = %v", lines)
	}
	if _, ok := gh.File(repo, ledgerBranch, ".optr/workflows/stuck/runs/9201-1/.coordination/watcher-log.md"); !ok {
		t.Fatal("the watcher log was not committed with the run")
	}
}

// `/optr choose 4` (Pause) leaves the checkpoint open: no ledger change,
// status paused, and a later answer still decides it.
func TestActionChoosePauseKeepsTheCheckpointOpen(t *testing.T) {
	t.Parallel()
	gh := githubtest.NewServer(t)
	out := pausedIssue(t, gh, 24)
	res := answer(t, gh, 24, "/optr choose 4 later", "maintainer", "9501")
	if res.code != 0 || res.outputs["status"] != "paused" || res.outputs["checkpoint-id"] != out["checkpoint-id"] {
		t.Fatalf("pause answer: exit %d outputs %v\n%s%s", res.code, res.outputs, res.stdout, res.stderr)
	}
	if got := kinds(t, gh); got != "checkpoint" {
		t.Fatalf("a pause changed the ledger: %s", got)
	}
	res = answer(t, gh, 24, "/optr choose 2", "maintainer", "9502")
	if res.code != 0 || res.outputs["status"] != "completed" || res.outputs["selected-agent"] != "" {
		t.Fatalf("skip after pause: exit %d outputs %v", res.code, res.outputs)
	}
	if got := kinds(t, gh); got != "checkpoint,decision,run" {
		t.Fatalf("ledger = %s", got)
	}
}
