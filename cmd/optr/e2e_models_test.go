package main

import (
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/agent/llm/llmtest"
	"github.com/optr-dev/optr/internal/github/githubtest"
)

// With no config and nothing but the workflow's token, a labelled issue
// runs the embedded default: one GitHub Models agent on GITHUB_TOKEN.
func TestActionDefaultConfigRunsGitHubModels(t *testing.T) {
	t.Parallel()
	models := llmtest.NewGitHubModels(t)
	models.SetDefault(llmtest.Reply{Text: llmtest.Answer("# Release notes\n\n- faster ledger verify\n", 900)})
	gh := githubtest.NewServer(t)
	gh.AddIssue(repo, 31, "Release notes", "Write them.", "maintainer")
	writer(gh, "maintainer")
	r := newRunner(t, gh, "9401")
	r.env["INPUT_GITHUB-TOKEN"] = models.Key // the workflow token is also the Models key
	r.env["OPTR_GITHUB_MODELS_URL"] = models.URL
	r.event("issues", "issues.labeled.json", labeled(31, "optr", "maintainer"))
	res := r.run()
	if res.code != 0 || res.outputs["status"] != "completed" || res.outputs["selected-agent"] != "copilot" {
		t.Fatalf("exit %d outputs %v\n%s%s", res.code, res.outputs, res.stdout, res.stderr)
	}
	reqs := models.Requests()
	if len(reqs) != 1 {
		t.Fatalf("GitHub Models got %d requests, want 1", len(reqs))
	}
	if got := reqs[0].Header.Get("Authorization"); got != "Bearer "+models.Key {
		t.Errorf("Authorization = %q, want the workflow token", got)
	}
	if reqs[0].Model != "openai/gpt-4.1" || !strings.HasSuffix(reqs[0].Path, "/chat/completions") {
		t.Errorf("request = %s %s model %s", reqs[0].Method, reqs[0].Path, reqs[0].Model)
	}
	if cs := optrComments(gh, 31); len(cs) != 1 || !strings.Contains(cs[0].Body, "copilot") {
		t.Fatalf("progress comments = %+v", cs)
	}
	if result, _ := gh.File(repo, ledgerBranch, res.outputs["result-file"]); !strings.Contains(result, "faster ledger verify") {
		t.Fatalf("committed result = %q", result)
	}
	// The token must never reach the log, the outputs or a committed file.
	// ::add-mask:: lines are the one place it must appear: the runner
	// consumes them and hides the value everywhere else.
	for _, line := range strings.Split(res.stdout+"\n"+res.stderr, "\n") {
		if strings.Contains(line, models.Key) && line != "::add-mask::"+models.Key {
			t.Errorf("the token appears in the job log: %q", line)
		}
	}
	for path, content := range gh.Files(repo, ledgerBranch) {
		if strings.Contains(content, models.Key) {
			t.Errorf("the token appears in committed file %s", path)
		}
	}
}
