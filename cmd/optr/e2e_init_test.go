package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"

	"github.com/optr-dev/optr/internal/testkit/gittest"
)

// A new user's first minutes, through the binary: optr init in a fresh
// repository writes a config that optr config check accepts and a workflow
// that actionlint passes, from the keys and CLIs it finds; a second init
// changes nothing.
func TestInitThenConfigCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		env  map[string]string
		cli  string // a coding-agent CLI put on PATH
		// config and workflow must hold these.
		config, workflow []string
		// absent must be in neither.
		absent []string
	}{
		{
			name:     "no key: Copilot on the workflow's token, in the container",
			env:      map[string]string{"GH_TOKEN": "gho_local"},
			cli:      "copilot",
			config:   []string{"copilot: { provider: copilot }"},
			workflow: []string{"uses: optr-dev/optr@v1", "persist-credentials: false", "gh label create optr"},
			absent:   []string{"secrets.", "setup-node"},
		},
		{
			name:     "keys, and Claude Code on PATH: its preset, on the host",
			env:      map[string]string{"OPENAI_API_KEY": "sk-test", "ANTHROPIC_API_KEY": "sk-ant-test"},
			cli:      "claude",
			config:   []string{"copilot: { provider: copilot }", "codex: { provider: openai, model: gpt-4.1 }", "claude-code: { preset: claude-code }"},
			workflow: []string{"uses: optr-dev/optr/host@v1", "npm install -g @anthropic-ai/claude-code@", "OPENAI_API_KEY: ${{ secrets.OPENAI_API_KEY }}", "ANTHROPIC_API_KEY: ${{ secrets.ANTHROPIC_API_KEY }}", "persist-credentials: false"},
			absent:   []string{"sk-test", "sk-ant-test"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			repo := gittest.Repo(t, map[string]string{"README.md": "# a project\n"})
			env := map[string]string{}
			for k, v := range tt.env {
				env[k] = v
			}
			if tt.cli != "" {
				bin := t.TempDir()
				if err := os.WriteFile(filepath.Join(bin, tt.cli), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
					t.Fatal(err)
				}
				env["PATH"] = bin + string(os.PathListSeparator) + os.Getenv("PATH")
				env["OPTR_COPILOT_CLI"] = "" // found on PATH, as a user's
			}
			code, _, stderr := optrIn(t, repo, env, "init")
			if code != 0 || !strings.Contains(stderr, "optr config check") || !strings.Contains(stderr, "gh label create optr") || !strings.Contains(stderr, ".gitignore") {
				t.Fatalf("optr init: exit %d\n%s", code, stderr)
			}
			cfg, wf := read(t, filepath.Join(repo, ".github", "optr.yml")), read(t, filepath.Join(repo, ".github", "workflows", "optr.yml"))
			for _, w := range tt.config {
				if !strings.Contains(cfg, w) {
					t.Errorf("the config lacks %q:\n%s", w, cfg)
				}
			}
			for _, w := range tt.workflow {
				if !strings.Contains(wf, w) {
					t.Errorf("the workflow lacks %q:\n%s", w, wf)
				}
			}
			for _, a := range tt.absent {
				if strings.Contains(cfg+wf, a) {
					t.Errorf("the files hold %q:\n%s\n%s", a, cfg, wf)
				}
			}
			if code, _, stderr := optrIn(t, repo, env, "config", "check"); code != 0 || !strings.Contains(stderr, "a run with this config would start here") {
				t.Errorf("optr config check: exit %d\n%s", code, stderr)
			}
			lintWorkflow(t, wf)
			code, _, stderr = optrIn(t, repo, env, "init")
			if code != 2 || !strings.Contains(stderr, "already exist") {
				t.Errorf("a second optr init: exit %d, want 2 refusing to overwrite\n%s", code, stderr)
			}
			if again := read(t, filepath.Join(repo, ".github", "optr.yml")); again != cfg {
				t.Errorf("a second optr init changed the config")
			}
		})
	}
}

// lintWorkflow runs actionlint on a workflow's text, ignoring only the
// permission scope actionlint v1.7.12 does not know (architecture §6).
func lintWorkflow(t *testing.T, text string) {
	t.Helper()
	l, err := actionlint.NewLinter(io.Discard, &actionlint.LinterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	errs, err := l.Lint("optr.yml", []byte(text), nil)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for _, e := range errs {
		if e.Kind == "permissions" && strings.Contains(e.Message, `unknown permission scope "copilot-requests"`) {
			continue
		}
		b.WriteString(e.Error() + "\n")
	}
	if b.Len() > 0 {
		t.Errorf("actionlint:\n%s\n%s", b.String(), text)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
