package main

import (
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/action/actiontest"
	"github.com/optr-dev/optr/internal/github/githubtest"
)

// A run whose commit-back is refused (a branch protection rule on the
// ledger branch) failed: the exit code, the status output, the job
// summary, the log's error annotation and the progress comment all say
// so, and none says completed (issue 22 item 5).
func TestActionCommitBackRefusedFailsEverywhere(t *testing.T) {
	t.Parallel()
	gh := githubtest.NewServer(t)
	gh.AddIssue(repo, 21, "Explain the ledger", "Please explain.", "maintainer")
	writer(gh, "maintainer")
	gh.FailNext("PATCH /repos/{owner}/{repo}/git/refs/{ref}", 10, githubtest.ProtectedBranch("main"))
	r := newRunner(t, gh, "2201")
	r.demo("fail")
	r.Env["INPUT_LEDGER-BRANCH"] = "main"
	r.Event("issues", "issues.labeled.json", actiontest.Labeled(21, "optr", "maintainer"))
	res := r.run()
	if res.code != 1 {
		t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	if res.outputs["status"] != "failed" || res.outputs["ledger-commit"] != "" {
		t.Errorf("outputs = %v, want status failed and no ledger-commit", res.outputs)
	}
	if !strings.Contains(res.summary, "❌") || !strings.Contains(res.summary, "— failed") {
		t.Errorf("the step summary does not say failed:\n%s", res.summary)
	}
	if strings.Contains(res.summary, "completed") {
		t.Errorf("the step summary of a failed run says completed:\n%s", res.summary)
	}
	if !strings.Contains(res.summary, "Protected branch update failed") {
		t.Errorf("the step summary does not say why the run failed:\n%s", res.summary)
	}
	var annotation string
	for _, line := range strings.Split(res.stdout, "\n") {
		if strings.HasPrefix(line, "::error") {
			annotation = line
		}
	}
	if !strings.Contains(annotation, "Protected branch update failed") {
		t.Errorf("the log has no ::error:: annotation saying why the run failed:\n%s", res.stdout)
	}
	cs := optrComments(gh, 21)
	if len(cs) != 1 {
		t.Fatalf("optr left %d comments, want the one progress comment: %+v", len(cs), cs)
	}
	body := cs[0].Body
	if !strings.Contains(body, "— failed") || strings.Contains(body, "completed") ||
		!strings.Contains(body, "Protected branch update failed") {
		t.Errorf("the progress comment does not agree with status failed:\n%s", body)
	}
}
