package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/config"
)

// optr config check on the demo: exit 0, every pipeline said, and on
// stdout the effective config, which reads back as the same config.
func TestConfigCheckTheDemo(t *testing.T) {
	demoWorkspace(t)
	got := optr(t, "config", "check", "--config", "testdata/demo/optr.yml")
	if got.code != ExitOK {
		t.Fatalf("exit %d\n%s", got.code, got.stderr)
	}
	for _, want := range []string{
		"testdata/demo/optr.yml: valid",
		"the default pipeline: select over good, sloppy, broken, slow",
		"pipeline research: delegate over good, slow, sloppy, planned by good",
		"sandbox (auto):",
		"a run with this config would start here",
	} {
		if !strings.Contains(got.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, got.stderr)
		}
	}
	want, err := config.Load("testdata/demo/optr.yml")
	if err != nil {
		t.Fatal(err)
	}
	back, err := config.Parse("testdata/demo/optr.yml", []byte(got.stdout))
	if err != nil {
		t.Fatalf("the effective config does not parse: %v\n%s", err, got.stdout)
	}
	if diff := cmp.Diff(want, back); diff != "" {
		t.Errorf("the effective config means something else (-file +printed):\n%s", diff)
	}
}

// What a run would refuse before any agent starts is found, and the check
// exits 2 saying it; what a run would start with passes.
func TestConfigCheckFindsWhatARunWouldRefuse(t *testing.T) {
	ws := t.TempDir()
	t.Chdir(ws)
	write := func(name, text string) string {
		t.Helper()
		if err := os.WriteFile(filepath.Join(ws, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return name
	}
	tests := []struct {
		name, config string
		env          map[string]string
		code         int
		want         []string
	}{
		{
			name:   "a bad key, with its line",
			config: write("bad.yml", "agents:\n  a:\n    provider: command\n    run: [\"true\"]\n    tiemout: 5m\n"),
			code:   ExitUsage,
			want:   []string{"bad.yml:5", "tiemout"},
		},
		{
			name:   "a check's program that is nowhere",
			config: write("check.yml", "agents:\n  a: {provider: command, run: [\"true\"]}\nconstraints:\n  lint: {check: command, run: [no-such-linter-here]}\n"),
			code:   ExitUsage,
			want:   []string{"a run with this config would be refused here", "no-such-linter-here"},
		},
		{
			name:   "an agent's program that is nowhere",
			config: write("agent.yml", "agents:\n  a: {provider: command, run: [no-such-agent-here]}\n"),
			code:   ExitUsage,
			want:   []string{"a run with this config would be refused here", "no-such-agent-here"},
		},
		{
			name:   "an agent without its key",
			config: write("keys.yml", "agents:\n  a: {provider: command, run: [\"true\"]}\n  codex: {provider: openai, model: gpt-4.1}\n"),
			code:   ExitUsage,
			want:   []string{"a run with this config would be refused here", "agent \"codex\" (openai): no API key", "OPENAI_API_KEY"},
		},
		{
			name:   "with its key",
			config: "keys.yml",
			env:    map[string]string{"OPENAI_API_KEY": "k"},
			code:   ExitOK,
			want:   []string{"keys.yml: valid", "a run with this config would start here"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := optrEnv(t, tt.env, "config", "check", "--config", tt.config)
			if got.code != tt.code {
				t.Errorf("exit %d, want %d\n%s", got.code, tt.code, got.stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(got.stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, got.stderr)
				}
			}
			if _, err := os.Stat(filepath.Join(ws, ".optr")); !os.IsNotExist(err) {
				t.Errorf("config check left .optr behind (%v)", err)
			}
		})
	}
}

// optr config default prints the embedded default for the keys set here,
// as a file that means the same.
func TestConfigDefault(t *testing.T) {
	t.Parallel()
	for _, env := range []map[string]string{nil, {"OPENAI_API_KEY": "k"}} {
		got := optrEnv(t, env, "config", "default")
		if got.code != ExitOK || got.stderr != "" {
			t.Fatalf("exit %d\n%s", got.code, got.stderr)
		}
		want := config.Default(func(k string) string { return env[k] })
		back, err := config.Parse("default.yml", []byte(got.stdout))
		if err != nil {
			t.Fatalf("the default does not parse: %v\n%s", err, got.stdout)
		}
		want.Path = "default.yml"
		if diff := cmp.Diff(want, back); diff != "" {
			t.Errorf("env %v: the printed default means something else (-embedded +printed):\n%s", env, diff)
		}
		if strings.Contains(got.stdout, "codex:") != (env != nil) {
			t.Errorf("env %v: codex is in the default exactly when OPENAI_API_KEY is set:\n%s", env, got.stdout)
		}
	}
}

// Without a config file the embedded default is checked: its Copilot agent
// cannot work without a token, and a run would be refused; the default
// agents that can are said.
func TestConfigCheckTheEmbeddedDefault(t *testing.T) {
	t.Chdir(t.TempDir())
	got := optr(t, "config", "check")
	if got.code != ExitUsage || !strings.Contains(got.stderr, ".github/optr.yml does not exist: checking the embedded default") || !strings.Contains(got.stderr, "no agent can run here") {
		t.Errorf("exit %d, want 2 naming the embedded default and no usable agent\n%s", got.code, got.stderr)
	}
	got = optrEnv(t, map[string]string{"OPENAI_API_KEY": "k"}, "config", "check")
	if got.code != ExitOK || !strings.Contains(got.stderr, `agent "copilot" (copilot) cannot run here`) || !strings.Contains(got.stderr, "select over copilot, codex") {
		t.Errorf("exit %d, want 0 saying copilot cannot work here and codex runs\n%s", got.code, got.stderr)
	}
}
