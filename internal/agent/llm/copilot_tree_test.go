package llm_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/agent/llm"
	"github.com/optr-dev/optr/internal/agent/llm/llmtest"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/testkit/gittest"
)

// TestCopilotCodingAgentRealCLI drives the real Copilot CLI as a coding
// agent (Request.Worktree set) in BYOK mode against the fake OpenAI API,
// whose model asks for tool calls: the CLI offers only its file tools,
// writes inside the worktree land there, and reads or writes outside it,
// through a symbolic link or under .git are refused (the file stays as it
// was, and what was outside never reaches the model).
func TestCopilotCodingAgentRealCLI(t *testing.T) {
	t.Parallel()
	cli, home := llmtest.CopilotCLI(t)
	const secret = "outside-secret-4711"
	tests := []struct {
		name string
		// calls are the model's tool calls, given the worktree and a
		// directory outside it.
		calls func(tree, outside string) []llmtest.ToolCall
		// want are the files expected afterwards (path → content; "" means
		// absent), relative to tree, or absolute.
		want func(tree, outside string) map[string]string
	}{
		{
			name: "create and edit inside",
			calls: func(tree, _ string) []llmtest.ToolCall {
				return []llmtest.ToolCall{
					{Name: "create", Args: map[string]any{"path": filepath.Join(tree, "NOTES.md"), "file_text": "# New\n"}},
					{Name: "edit", Args: map[string]any{"path": filepath.Join(tree, "main.go"), "old_str": "old()", "new_str": "fixed()"}},
				}
			},
			want: func(tree, _ string) map[string]string {
				return map[string]string{"NOTES.md": "# New\n", "main.go": "package main\n\nfunc main() { fixed() }\n"}
			},
		},
		{
			name: "write outside",
			calls: func(_, outside string) []llmtest.ToolCall {
				return []llmtest.ToolCall{{Name: "create", Args: map[string]any{"path": filepath.Join(outside, "pwned.txt"), "file_text": "x"}}}
			},
			want: func(_, outside string) map[string]string {
				return map[string]string{filepath.Join(outside, "pwned.txt"): ""}
			},
		},
		{
			name: "write through a link out",
			calls: func(tree, _ string) []llmtest.ToolCall {
				return []llmtest.ToolCall{{Name: "create", Args: map[string]any{"path": filepath.Join(tree, "out", "pwned.txt"), "file_text": "x"}}}
			},
			want: func(_, outside string) map[string]string {
				return map[string]string{filepath.Join(outside, "pwned.txt"): ""}
			},
		},
		{
			name: "write under .git",
			calls: func(tree, _ string) []llmtest.ToolCall {
				return []llmtest.ToolCall{{Name: "edit", Args: map[string]any{"path": filepath.Join(tree, ".git", "config"), "old_str": "bare = false", "new_str": "bare = true"}}}
			},
			want: func(tree, _ string) map[string]string {
				return map[string]string{".git/config": "[core]\n\tbare = false\n"}
			},
		},
		{
			name: "read outside",
			calls: func(_, outside string) []llmtest.ToolCall {
				return []llmtest.ToolCall{
					{Name: "view", Args: map[string]any{"path": filepath.Join(outside, "secret.txt")}},
					{Name: "grep", Args: map[string]any{"pattern": "outside-secret", "paths": outside, "output_mode": "content"}},
				}
			},
			want: func(string, string) map[string]string { return nil },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tree, outside := t.TempDir(), t.TempDir()
			gittest.Write(t, tree, map[string]string{"main.go": "package main\n\nfunc main() { old() }\n", ".git/config": "[core]\n\tbare = false\n"})
			gittest.Write(t, outside, map[string]string{"secret.txt": secret + "\n"})
			if err := os.Symlink(outside, filepath.Join(tree, "out")); err != nil {
				t.Fatal(err)
			}
			fake := llmtest.NewOpenAI(t)
			fake.Script(llmtest.Reply{ToolCalls: tt.calls(tree, outside)}, llmtest.Reply{Text: llmtest.Answer("changed what was asked", 10)})
			env := copilotEnv(t, cli, home, fake)
			cfg := config.Agent{Provider: config.ProviderCopilot, BYOK: config.BYOKOpenAI, BaseURL: fake.URL, Model: "gpt-4.1", MaxTokens: 2000}
			a, err := llm.New("copilot", cfg, llm.Options{Getenv: func(k string) string { return env[k] }, HTTPClient: fake.Client()})
			if err != nil {
				t.Fatalf("llm.New: %v", err)
			}
			res, err := a.Run(t.Context(), agent.Request{Intent: "Fix main.go.", Worktree: tree})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if res.Output != "changed what was asked" {
				t.Errorf("output %q", res.Output)
			}
			reqs := fake.Requests()
			if len(reqs) != 2 {
				t.Fatalf("the fake got %d requests, want 2 (tool calls, then the answer)", len(reqs))
			}
			tools := reqs[0].Tools()
			slices.Sort(tools)
			if diff := cmp.Diff([]string{"create", "edit", "glob", "grep", "view"}, tools); diff != "" {
				t.Errorf("tools offered (-want +got):\n%s", diff)
			}
			if !strings.Contains(reqs[0].System, "yours alone") {
				t.Errorf("system prompt lacks the worktree rules: %q", reqs[0].System)
			}
			if results := toolResults(t, reqs[1]); strings.Contains(results, secret) {
				t.Errorf("what is outside the worktree reached the model: %s", results)
			}
			for p, content := range tt.want(tree, outside) {
				if !filepath.IsAbs(p) {
					p = filepath.Join(tree, p)
				}
				b, err := os.ReadFile(p)
				switch {
				case content == "" && err == nil:
					t.Errorf("%s was written: %q", p, b)
				case content != "" && string(b) != content:
					t.Errorf("%s = %q (%v), want %q", p, b, err, content)
				}
			}
		})
	}
}

// toolResults returns the tool messages a Chat Completions request sent
// back to the model, joined.
func toolResults(t *testing.T, r llmtest.Request) string {
	t.Helper()
	msgs, _ := r.Body["messages"].([]any)
	var b strings.Builder
	for _, m := range msgs {
		if mm, _ := m.(map[string]any); mm["role"] == "tool" {
			c, _ := json.Marshal(mm["content"])
			b.Write(c)
			b.WriteByte('\n')
		}
	}
	if b.Len() == 0 {
		t.Errorf("the request after the tool calls carries no tool results")
	}
	return b.String()
}
