package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/preset"
	"github.com/optr-dev/optr/internal/program"
	"github.com/optr-dev/optr/internal/provider"
)

const initUsage = `optr init [--dir DIR]

Writes a starter .github/optr.yml and .github/workflows/optr.yml into the
repository at DIR (default: here), from what it finds: a GitHub Copilot
agent on the workflow's token always; for each provider key set here
(OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY, AZURE_OPENAI_API_KEY
with AZURE_OPENAI_ENDPOINT), an agent on it — a preset that runs the
coding-agent CLI of that provider when the CLI is on PATH (claude, codex,
gemini), else one that calls its API. The workflow checks out without
persisting the token, creates the trigger label when dispatched, and passes
only the secrets the agents need. It refuses to overwrite either file.
Check the result with 'optr config check'.`

// initPaths are the files optr init writes, relative to the repository.
var initPaths = []string{config.DefaultPath, ".github/workflows/optr.yml"}

func (c *CLI) cmdInit(_ context.Context, args []string) error {
	flags := c.flags("init")
	dir := flags.String("dir", ".", "the repository to write the files into")
	if err := c.parse(flags, initUsage, args); err != nil {
		return err
	}
	if flags.NArg() > 0 {
		return usageErr(errArgs("init", flags.Args()))
	}
	var there []string
	for _, p := range initPaths {
		if _, err := os.Lstat(filepath.Join(*dir, p)); !errors.Is(err, fs.ErrNotExist) {
			there = append(there, p)
		}
	}
	if len(there) > 0 {
		return usageErr(fmt.Errorf("%s already exist in %s; optr init writes nothing over a file: move it away to start again, or edit it (optr config check checks a config)", strings.Join(there, " and "), *dir))
	}
	found := c.survey()
	files := [][]byte{found.config(), found.workflow()}
	for i, p := range initPaths {
		path := filepath.Join(*dir, p)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("make %s: %w", filepath.Dir(path), err)
		}
		if err := writeNew(path, files[i]); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	c.initNext(found, *dir)
	return nil
}

// writeNew writes a file that must not exist yet: one made meanwhile is
// never overwritten.
func writeNew(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// initAgent is one agent optr init writes.
type initAgent struct {
	name string
	// yaml is the agent's flow mapping; note says what it is.
	yaml, note string
	// secrets are the repository secrets and vars the workflow passes it.
	secrets, vars []string
	// npm is the CLI's package@version a host-mode job installs.
	npm string
}

// initSurvey is what optr init found here.
type initSurvey struct {
	agents []initAgent
	// seen says what was found, for the config's header.
	seen []string
}

// survey finds the keys set here and the coding-agent CLIs on PATH.
func (c *CLI) survey() initSurvey {
	s := initSurvey{agents: []initAgent{{
		name: "copilot", yaml: "{ provider: copilot }",
		note: "GitHub Copilot on the workflow's GITHUB_TOKEN (permissions: copilot-requests: write)",
	}}}
	for _, p := range provider.All() {
		if !p.LLM() || p.Name == provider.Copilot || len(p.KeyEnv) == 0 || c.Getenv(p.KeyEnv[0]) == "" {
			continue
		}
		key := p.KeyEnv[0]
		if p.Name == provider.AzureOpenAI && c.Getenv(p.BaseURLEnv) == "" {
			s.seen = append(s.seen, key+" without "+p.BaseURLEnv+" (no azure-openai agent)")
			continue
		}
		if pr, ok := c.presetFor(p.Name); ok {
			s.seen = append(s.seen, key, pr.Program+" on PATH")
			s.agents = append(s.agents, initAgent{
				name: pr.Name, yaml: "{ preset: " + pr.Name + " }",
				note:    fmt.Sprintf("%s (npm %s@%s), on %s", pr.Title, pr.Package, pr.Tested, key),
				secrets: []string{key}, npm: pr.Package + "@" + pr.Tested,
			})
			continue
		}
		s.seen = append(s.seen, key)
		a := initAgent{
			name: p.DefaultAgent, yaml: fmt.Sprintf("{ provider: %s, model: %s }", p.Name, p.ExampleModel),
			note: fmt.Sprintf("%s's API on %s", p.Title, key), secrets: []string{key},
		}
		if a.name == "" {
			a.name = p.Name
		}
		if p.Name == provider.AzureOpenAI {
			a.note = fmt.Sprintf("Azure OpenAI on %s at %s; model is your deployment's name", key, p.BaseURLEnv)
			a.vars = []string{p.BaseURLEnv}
		}
		s.agents = append(s.agents, a)
	}
	if len(s.seen) == 0 {
		s.seen = []string{"no provider key (OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY, …)"}
	}
	return s
}

// presetFor finds on PATH the coding-agent CLI of a provider: the preset
// whose CLI calls that provider (the Copilot CLI, which needs a model of
// the user's, is left to the copilot agent).
func (c *CLI) presetFor(providerName string) (preset.Preset, bool) {
	for _, pr := range preset.All() {
		if pr.Name == preset.CopilotCLI || !slices.Contains(pr.Gateway, providerName) {
			continue
		}
		if _, err := program.Resolve(pr.Program, "", c.Getenv("PATH")); err == nil {
			return pr, true
		}
	}
	return preset.Preset{}, false
}

// hostMode reports whether an agent needs a CLI installed on the runner,
// so the workflow runs optr on the host.
func (s initSurvey) hostMode() bool {
	return slices.ContainsFunc(s.agents, func(a initAgent) bool { return a.npm != "" })
}

// config is the starter .github/optr.yml.
func (s initSurvey) config() []byte {
	var b strings.Builder
	b.WriteString("# optr's config: the agents a run starts on an issue's intent, and what\n")
	b.WriteString("# their answers must pass. Written by `optr init` from what it found:\n")
	b.WriteString("# " + strings.Join(s.seen, "; ") + ".\n")
	b.WriteString("# `optr config check` checks it as a run would; docs/configuration.md says\n")
	b.WriteString("# what else it can hold.\n")
	b.WriteString("agents:\n")
	width := 0
	for _, a := range s.agents {
		width = max(width, len(a.name)+len(a.yaml))
	}
	for _, a := range s.agents {
		fmt.Fprintf(&b, "  %s: %s%s  # %s\n", a.name, a.yaml, strings.Repeat(" ", width-len(a.name)-len(a.yaml)), a.note)
	}
	b.WriteString("# Every run's answers must pass these (hard ones decide which are admissible):\n")
	b.WriteString("# constraints:\n")
	b.WriteString("#   tests: { check: command, run: [go, test, ./...] }\n")
	b.WriteString("#   no-todo: { check: not-regex, pattern: '(?i)\\bTODO\\b' }\n")
	return []byte(b.String())
}

// workflow is the starter .github/workflows/optr.yml: the quick start's,
// in host mode when an agent runs a CLI from npm.
func (s initSurvey) workflow() []byte {
	var b strings.Builder
	b.WriteString(`# optr on this repository's issues: label an issue "optr" (or comment
# "/optr run" on it), or run this workflow from the Actions tab.
# Written by optr init; docs/actions.md has every input and output.
name: optr
on:
  issues: { types: [opened, labeled] }
  issue_comment: { types: [created] }
  workflow_dispatch:
    inputs:
      intent: { description: What to do, required: true }
      workflow: { description: "Workflow name (a slug; default: this workflow's name)", required: false }
      constraints: { description: Comma-separated constraints, required: false }
permissions:
  contents: write           # commit the ledger and the run's outputs (branch optr-ledger)
  issues: write             # progress, checkpoint and escalation comments; the label
  copilot-requests: write   # GitHub Copilot on GITHUB_TOKEN
concurrency:
  group: optr-${{ github.event.issue.number || github.run_id }}
jobs:
  optr:
    # Start only for what optr acts on: the trigger label, an /optr comment
    # from someone who may write, a dispatch.
    if: >-
      github.event_name == 'workflow_dispatch' ||
      (github.event.action == 'labeled' && github.event.label.name == 'optr') ||
      (github.event.action == 'opened' && contains(github.event.issue.labels.*.name, 'optr')) ||
      (github.event_name == 'issue_comment' && startsWith(github.event.comment.body, '/optr') &&
       contains(fromJSON('["OWNER","MEMBER","COLLABORATOR"]'), github.event.comment.author_association))
    runs-on: ubuntu-latest
    steps:
      - name: The trigger label exists
        if: github.event_name == 'workflow_dispatch'
        env:
          GH_TOKEN: ${{ github.token }}
        run: gh label create optr --repo "$GITHUB_REPOSITORY" --color 5319E7 --description "optr runs its agents on this issue" --force
      - uses: actions/checkout@v4
        with:
          persist-credentials: false   # no token left in .git/config for agents to read
`)
	uses := "optr-dev/optr@v1"
	if s.hostMode() {
		uses = "optr-dev/optr/host@v1   # on the runner: the agents' CLIs come from npm"
		var pkgs []string
		for _, a := range s.agents {
			if a.npm != "" {
				pkgs = append(pkgs, a.npm)
			}
		}
		b.WriteString("      - uses: actions/setup-node@v4\n        with: { node-version: 22 }\n")
		b.WriteString("      - run: npm install -g " + strings.Join(pkgs, " ") + "\n")
	}
	b.WriteString("      - uses: " + uses + "\n")
	var env []string
	for _, a := range s.agents {
		for _, k := range a.secrets {
			env = append(env, fmt.Sprintf("          %s: ${{ secrets.%s }}", k, k))
		}
		for _, k := range a.vars {
			env = append(env, fmt.Sprintf("          %s: ${{ vars.%s }}", k, k))
		}
	}
	if len(env) > 0 {
		b.WriteString("        env:\n" + strings.Join(env, "\n") + "\n")
	}
	return []byte(b.String())
}

// initNext says what optr init wrote and what is left to do.
func (c *CLI) initNext(s initSurvey, dir string) {
	w := c.Stderr
	fmt.Fprintf(w, "optr: wrote %s and %s in %s\n", initPaths[0], initPaths[1], dir)
	for _, a := range s.agents {
		fmt.Fprintf(w, "  agent %-12s %s\n", a.name, a.note)
	}
	fmt.Fprintln(w, "Next:")
	n := 1
	step := func(format string, args ...any) {
		fmt.Fprintf(w, "  %d. "+format+"\n", append([]any{n}, args...)...)
		n++
	}
	step("check the config as a run would: optr config check")
	var secrets, vars []string
	for _, a := range s.agents {
		secrets, vars = append(secrets, a.secrets...), append(vars, a.vars...)
	}
	for _, k := range secrets {
		step("add the repository secret %s: gh secret set %s", k, k)
	}
	for _, k := range vars {
		step("add the repository variable %s: gh variable set %s", k, k)
	}
	step("create the trigger label: gh label create optr (a dispatch of the workflow creates it too)")
	step("commit and push both files, then label an issue optr")
	if !ignored(dir) {
		step("keep local runs' datalake out of git: add .optr/ to .gitignore (in Actions optr commits it to the optr-ledger branch, never yours)")
	}
}

// ignored reports whether dir's .gitignore names .optr.
func ignored(dir string) bool {
	data, err := os.ReadFile(filepath.Join(dir, ".gitignore"))
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(data), "\n") {
		switch strings.TrimSpace(line) {
		case ".optr", ".optr/", "/.optr", "/.optr/":
			return true
		}
	}
	return false
}
