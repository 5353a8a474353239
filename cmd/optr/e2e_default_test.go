package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/action/actiontest"
	"github.com/optr-dev/optr/internal/agent/llm/llmtest"
	"github.com/optr-dev/optr/internal/github/githubtest"
)

// The embedded default with no config file, on a runner without the
// Copilot CLI (OPTR_COPILOT_CLI names nothing): with no key the run is
// refused before any agent starts, exit 2, with one comment saying what to
// add; with OPENAI_API_KEY it
// completes on codex. The token never reaches the log, an output or a file.
func TestActionDefaultConfigWithoutCopilot(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		openai bool
		code   int
		status string
		// comment must be in the one comment optr leaves.
		comment []string
	}{
		{"no key: one comment saying what to add", false, 2, "failed",
			[]string{"no agent is usable", "copilot-requests: write", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"}},
		{"OPENAI_API_KEY: completed on codex", true, 0, "completed", []string{"codex", "copilot"}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			gh := githubtest.NewServer(t)
			gh.AddIssue(repo, 31, "Release notes", "Write them.", "maintainer")
			writer(gh, "maintainer")
			r := newRunner(t, gh, fmt.Sprintf("94%02d", i))
			r.Env["OPTR_COPILOT_CLI"] = filepath.Join(r.Dir, "no-copilot")
			var openai *llmtest.Server
			if tt.openai {
				openai = llmtest.NewOpenAI(t)
				openai.Script(llmtest.Reply{Text: llmtest.Answer("# Release notes\n\n- faster ledger verify\n", 900)})
				for k, v := range openai.Env() {
					r.Env[k] = v
				}
			}
			r.Event("issues", "issues.labeled.json", actiontest.Labeled(31, "optr", "maintainer"))
			res := r.run()
			if res.code != tt.code || res.outputs["status"] != tt.status {
				t.Fatalf("exit %d status %q, want %d %q\n%s%s", res.code, res.outputs["status"], tt.code, tt.status, res.stdout, res.stderr)
			}
			cs := optrComments(gh, 31)
			if len(cs) != 1 {
				t.Fatalf("%d optr comments, want 1: %+v", len(cs), cs)
			}
			for _, m := range tt.comment {
				if !strings.Contains(cs[0].Body, m) {
					t.Errorf("the comment does not mention %q:\n%s", m, cs[0].Body)
				}
			}
			if tt.openai && res.outputs["selected-agent"] != "codex" {
				t.Errorf("selected %q, want codex", res.outputs["selected-agent"])
			}
			secrets := []string{r.Env["INPUT_GITHUB-TOKEN"]}
			if openai != nil {
				secrets = append(secrets, openai.Key)
			}
			for _, s := range secrets {
				for _, line := range strings.Split(res.stdout+"\n"+res.stderr, "\n") {
					if strings.Contains(line, s) && line != "::add-mask::"+s {
						t.Errorf("a secret appears in the job log: %q", line)
					}
				}
				for path, content := range gh.Files(repo, ledgerBranch) {
					if strings.Contains(content, s) {
						t.Errorf("a secret appears in committed file %s", path)
					}
				}
				if strings.Contains(cs[0].Body, s) {
					t.Error("a secret appears in the comment")
				}
			}
		})
	}
}
