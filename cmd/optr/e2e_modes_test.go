package main

import (
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/action/actiontest"
	"github.com/optr-dev/optr/internal/github/githubtest"
	"github.com/optr-dev/optr/internal/testkit/demotest"
)

// A labelled issue runs the demo's delegate pipeline in the built binary:
// the §4.9 files are committed with the ledger, result-file is OVERVIEW.md,
// the run entry has the delegate members, and the progress comment ends
// with the research summary.
func TestActionLabelledDelegateRun(t *testing.T) {
	t.Parallel()
	gh := githubtest.NewServer(t)
	writer(gh, "maintainer")
	gh.AddIssue(repo, 61, "How do ledgers stay honest?", "Research how tamper-evident ledgers stay honest.", "maintainer")
	r := newRunner(t, gh, "6101")
	demotest.Copy(t, r.Workspace)
	r.Env["INPUT_CONFIG"] = "testdata/demo/optr.yml"
	r.Env["INPUT_PIPELINE"] = "research"
	r.Event("issues", "issues.labeled.json", actiontest.Labeled(61, "optr", "maintainer"))
	res := r.run()
	if res.code != 0 || res.outputs["status"] != "completed" {
		t.Fatalf("exit %d outputs %v\n%s\n%s", res.code, res.outputs, res.stdout, res.stderr)
	}
	spec := ".optr/specs/001_issue-61"
	if res.outputs["result-file"] != spec+"/OVERVIEW.md" {
		t.Fatalf("result-file %q", res.outputs["result-file"])
	}
	for _, f := range []string{"OVERVIEW.md", ".invocation-plan.txt", "reports/001_hash-chains.md", "reports/004_verification-cost.md"} {
		if _, ok := gh.File(repo, ledgerBranch, spec+"/"+f); !ok {
			t.Errorf("%s/%s was not committed", spec, f)
		}
	}
	lines := ledgerLines(t, gh)
	run := lines[len(lines)-1]
	if run["mode"] != "delegate" || run["spec"] != "specs/001_issue-61" || run["success_rate"] != 0.75 || run["hash"] != res.outputs["ledger-hash"] {
		t.Fatalf("run entry %v", run)
	}
	var progress string
	for _, c := range optrComments(gh, 61) {
		if strings.Contains(c.Body, "<!-- optr:run=6101-1 -->") {
			progress = c.Body
		}
	}
	if !strings.Contains(progress, "Research complete: 3/4 topics (75% success)") {
		t.Errorf("the progress comment lacks the research summary:\n%s", progress)
	}
}

// A dispatched stages pipeline runs every stage in order in the built
// binary; the last stage's output is the result and the run entry lists
// the stages.
func TestActionDispatchedStagesRun(t *testing.T) {
	t.Parallel()
	gh := githubtest.NewServer(t)
	r := newRunner(t, gh, "6201")
	demotest.Copy(t, r.Workspace)
	r.Env["INPUT_CONFIG"] = "testdata/demo/stages.yml"
	r.Env["INPUT_PIPELINE"] = "decide"
	r.Event("workflow_dispatch", "workflow_dispatch.json", func(p map[string]any) {
		p["inputs"] = map[string]any{"workflow": "decide", "intent": "Should we split the release?", "constraints": ""}
	})
	res := r.run()
	if res.code != 0 || res.outputs["status"] != "completed" || res.outputs["selected-agent"] != "mind" {
		t.Fatalf("exit %d outputs %v\n%s\n%s", res.code, res.outputs, res.stdout, res.stderr)
	}
	for _, f := range []string{"stages/01_discuss.json", "stages/01_discuss.out", "stages/04_mind.json", "result.md"} {
		if _, ok := gh.File(repo, ledgerBranch, ".optr/workflows/decide/runs/6201-1/"+f); !ok {
			t.Errorf("%s was not committed", f)
		}
	}
	lines := ledgerLines(t, gh)
	run := lines[len(lines)-1]
	stages, _ := run["stages"].([]any)
	if run["mode"] != "stages" || run["pipeline"] != "decide" || len(stages) != 4 {
		t.Fatalf("run entry %v", run)
	}
}

// stagesHiccupConfig is a stages pipeline whose second stage crashes until
// the workspace holds a file named fixed (a maintainer pushed the fix).
const stagesHiccupConfig = `agents:
  first: { provider: command, run: [sh, -c, "cat >/dev/null; echo ran >> $OPTR_OUTPUT_DIR/first-ran; echo first-output; echo '<<<OPTR:HANDOFF:second>>>'"] }
  second: { provider: command, run: [sh, -c, "[ -f fixed ] || exit 3; cat > $OPTR_OUTPUT_DIR/seen-by-second; echo second-output; echo '<<<OPTR:HANDOFF:third>>>'"] }
  third: { provider: command, run: [sh, -c, "cat >/dev/null; echo '# decided'"] }
selection: { on-no-admissible: checkpoint }
pipelines:
  chain: { mode: stages, agents: [first, second, third], restarts: 0 }
`

// A labelled issue's stages run pauses at a HICCUP checkpoint when its
// second stage crashes, leaving the records a select run's escalation
// leaves; `/optr choose 1` in a fresh job — a new checkout, the run's
// files only on the ledger branch — re-runs that stage from its committed
// input, then the last one, and completes. The first stage is not run
// again.
func TestActionStagesHiccupChooseProceedRetriesTheStage(t *testing.T) {
	t.Parallel()
	gh := githubtest.NewServer(t)
	gh.AddIssue(repo, 63, "Decide", "Should we split the release?", "maintainer")
	writer(gh, "maintainer")
	r := newRunner(t, gh, "6301")
	r.File(".github/optr.yml", stagesHiccupConfig)
	r.Env["INPUT_PIPELINE"] = "chain"
	r.Event("issues", "issues.labeled.json", actiontest.Labeled(63, "optr", "maintainer"))
	res := r.run()
	if res.code != 0 || res.outputs["status"] != "paused" || res.outputs["checkpoint-id"] != "cp-6301-1-1" {
		t.Fatalf("exit %d outputs %v\n%s%s", res.code, res.outputs, res.stdout, res.stderr)
	}
	runDir := ".optr/workflows/issue-63/runs/6301-1/"
	for _, f := range []string{".coordination/watcher-log.md", ".coordination/decision.md", "stages/01_first.out", "stages/02_second.json"} {
		if _, ok := gh.File(repo, ledgerBranch, runDir+f); !ok {
			t.Errorf("%s was not committed with the paused run", f)
		}
	}
	inbox := 0
	for p := range gh.Files(repo, ledgerBranch) {
		if strings.HasPrefix(p, runDir+"ceo-inbox/") {
			inbox++
		}
	}
	if inbox != 1 {
		t.Errorf("%d ceo-inbox files committed, want 1", inbox)
	}

	a := newRunner(t, gh, "6302")
	a.File(".github/optr.yml", stagesHiccupConfig)
	a.File("fixed", "")
	a.Event("issue_comment", "issue_comment.created.json", actiontest.Commented(63, "/optr choose 1 the fix is in", "maintainer", "User"))
	res = a.run()
	if res.code != 0 || res.outputs["status"] != "completed" || res.outputs["selected-agent"] != "third" {
		t.Fatalf("choose 1: exit %d outputs %v\n%s%s", res.code, res.outputs, res.stdout, res.stderr)
	}
	if got := kinds(t, gh); got != "escalation,checkpoint,decision,run" {
		t.Fatalf("ledger kinds %s", got)
	}
	// What the stages left in $OPTR_OUTPUT_DIR was read back with the
	// run's files.
	if ran, _ := gh.File(repo, ledgerBranch, runDir+"agent-files/first-ran"); ran != "ran\n" {
		t.Errorf("the first stage ran again in the answering job: %q", ran)
	}
	if seen, _ := gh.File(repo, ledgerBranch, runDir+"agent-files/seen-by-second"); !strings.Contains(seen, "first-output") {
		t.Errorf("the retried stage did not get the first stage's committed output: %q", seen)
	}
	for _, f := range []string{"stages/02_second.out", "stages/03_third.out", "result.md"} {
		if _, ok := gh.File(repo, ledgerBranch, runDir+f); !ok {
			t.Errorf("%s was not committed after the retry", f)
		}
	}
	log, _ := gh.File(repo, ledgerBranch, runDir+".coordination/watcher-log.md")
	if strings.Count(log, "\n## ") != 1 {
		t.Errorf("the watcher log lost or duplicated its entry:\n%s", log)
	}
}
