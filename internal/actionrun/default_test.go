package actionrun

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/action/actiontest"
	"github.com/optr-dev/optr/internal/agent/llm/llmtest"
	"github.com/optr-dev/optr/internal/github/githubtest"
)

// noSecrets is a labelled issue with no config file and no key: the
// embedded default's copilot agent is all there is. OPTR_COPILOT_CLI names
// nothing, standing for a runner without the Copilot CLI.
func noSecrets(t *testing.T, runID string) (*githubtest.Server, *job) {
	t.Helper()
	gh := githubtest.NewServer(t)
	gh.SetPermission(repo, "ada", "write")
	gh.AddIssue(repo, 12, "Spelling error in the README file", "It looks like you accidently spelled 'commit' with two 't's.", "ada")
	j := newJob(t, gh, runID)
	j.Env["OPTR_COPILOT_CLI"] = filepath.Join(t.TempDir(), "no-copilot")
	j.seen = &urls{}
	j.Event("issues", "issues.labeled.json", actiontest.Labeled(12, "optr", "ada"))
	return gh, j
}

// optrComments are the comments optr posted on issue.
func optrComments(gh *githubtest.Server, issue int) []string {
	var out []string
	for _, c := range gh.Comments(repo, issue) {
		if strings.Contains(c.Body, "<!-- optr:") {
			out = append(out, c.Body)
		}
	}
	return out
}

// noModels fails when any request went to GitHub Models, retired.
func noModels(t *testing.T, seen *urls) {
	t.Helper()
	for _, u := range seen.list() {
		if strings.Contains(u, "models.github.ai") || strings.Contains(u, "/inference") {
			t.Errorf("a request to GitHub Models: %s", u)
		}
	}
}

// TestNothingUsableOneComment: with no Copilot CLI and no key, the run
// is refused (exit 2, status failed) before any agent starts, with one comment
// that says exactly what to add — not a stack of provider errors.
func TestNothingUsableOneComment(t *testing.T) {
	t.Parallel()
	gh, j := noSecrets(t, "910")
	outs, err := j.run()
	var refused *UsageError
	if !errors.As(err, &refused) {
		t.Fatalf("Run = %v, want a *UsageError (refused before any agent started: exit 2)\n%s", err, j.log.String())
	}
	if outs["status"] != "failed" || outs["run-id"] != "910-1" {
		t.Errorf("outputs = %v", outs)
	}
	cs := optrComments(gh, 12)
	if len(cs) != 1 {
		t.Fatalf("%d optr comments, want 1: %q", len(cs), cs)
	}
	for _, m := range []string{"<!-- optr:run=910-1 -->", "copilot-requests: write", "Allow use of Copilot CLI billed to the organization",
		"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPTR_COPILOT_CLI"} {
		if !strings.Contains(cs[0], m) {
			t.Errorf("the comment does not mention %q:\n%s", m, cs[0])
		}
	}
	for _, stack := range []string{"fatal unusable", "HTTP 410", "bad_config"} {
		if strings.Contains(cs[0], stack) {
			t.Errorf("the comment shows provider errors (%q):\n%s", stack, cs[0])
		}
	}
	if n := gh.Count("POST /repos/{owner}/{repo}/git/commits"); n != 0 {
		t.Errorf("%d commits: a run that never started recorded something", n)
	}
	noModels(t, j.seen)
}

// TestOnlyOpenAIKeyCompletesOnCodex: with OPENAI_API_KEY and no Copilot
// CLI, the embedded default completes on codex; copilot is left behind,
// unusable, and nothing goes to GitHub Models.
func TestOnlyOpenAIKeyCompletesOnCodex(t *testing.T) {
	t.Parallel()
	gh, j := noSecrets(t, "911")
	openai := llmtest.NewOpenAI(t)
	openai.Script(llmtest.Reply{Text: llmtest.Answer("# Release notes\n\n- faster ledger verify\n", 900)})
	for k, v := range openai.Env() {
		j.Env[k] = v
	}
	outs, err := j.run()
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, j.log.String())
	}
	if outs["status"] != "completed" || outs["selected-agent"] != "codex" {
		t.Fatalf("outputs = %v\n%s", outs, j.log.String())
	}
	if reqs := openai.Requests(); len(reqs) != 1 || !strings.Contains(reqs[0].User, "spelled 'commit'") {
		t.Errorf("OpenAI got %d requests, want 1 with the issue's intent", len(reqs))
	}
	cs := optrComments(gh, 12)
	if len(cs) != 1 || !strings.Contains(cs[0], "codex") || strings.Contains(cs[0], "copilot-requests: write") {
		t.Errorf("comments = %q, want the one progress comment", cs)
	}
	if result, _ := gh.File(repo, "optr-ledger", outs["result-file"]); !strings.Contains(result, "faster ledger verify") {
		t.Errorf("committed result = %q", result)
	}
	noModels(t, j.seen)
}

// TestAllUnusableWhileRunningOneComment: the copilot agent looked usable
// (a CLI, the workflow's token) but failed as unusable when it ran (here
// the CLI does not start; on GitHub, Copilot refusing the token). The run
// fails, and its one comment — the progress comment — ends saying what to
// add.
func TestAllUnusableWhileRunningOneComment(t *testing.T) {
	t.Parallel()
	gh, j := noSecrets(t, "912")
	cli := filepath.Join(t.TempDir(), "copilot")
	if err := os.WriteFile(cli, []byte("#!/bin/sh\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	j.Env["OPTR_COPILOT_CLI"] = cli
	outs, err := j.run()
	var failed *FailedError
	if !errors.As(err, &failed) || outs["status"] != "failed" {
		t.Fatalf("Run = %v, outputs %v; want failed, exit 1\n%s", err, outs, j.log.String())
	}
	cs := optrComments(gh, 12)
	if len(cs) != 1 {
		t.Fatalf("%d optr comments, want 1: %q", len(cs), cs)
	}
	for _, m := range []string{"<!-- optr:run=912-1 -->", "did not start", "copilot-requests: write", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"} {
		if !strings.Contains(cs[0], m) {
			t.Errorf("the comment does not mention %q:\n%s", m, cs[0])
		}
	}
	if strings.Contains(cs[0], actiontest.Token) {
		t.Error("the comment holds the token")
	}
	noModels(t, j.seen)
}
