package main

import (
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/action/actiontest"
	"github.com/optr-dev/optr/internal/demotest"

	"github.com/optr-dev/optr/internal/github/githubtest"
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
