package preset_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/agent/llm"
	"github.com/optr-dev/optr/internal/preset"
)

// .ci/run installs the releases the presets were measured with, and the
// Copilot CLI preset runs the release optr's own copilot provider drives.
func TestCIInstallsTheTestedCLIs(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("..", "..", ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^AGENT_CLIS="([^"]*)"$`).FindSubmatch(b)
	if m == nil {
		t.Fatal(".ci/run has no AGENT_CLIS line")
	}
	var want []string
	for _, p := range preset.All() {
		want = append(want, p.Name+"="+p.Package+"@"+p.Tested)
	}
	if got := strings.Fields(string(m[1])); !slices.Equal(got, want) {
		t.Errorf(".ci/run installs %q, the presets name %q", got, want)
	}
	if p, _ := preset.Lookup(preset.CopilotCLI); p.Tested != llm.CopilotCLIVersion {
		t.Errorf("the copilot-cli preset names %s, the copilot provider drives %s (llm.CopilotCLIVersion)", p.Tested, llm.CopilotCLIVersion)
	}
}

func TestRegistry(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, p := range preset.All() {
		if p.Name == "" || seen[p.Name] || p.Title == "" || p.Package == "" || p.Tested == "" || p.Program == "" || p.Format == "" || p.Timeout <= 0 || len(p.Gateway) == 0 {
			t.Errorf("preset %+v: every field says something, and the name is unique", p)
		}
		seen[p.Name] = true
		if _, ok := preset.Lookup(p.Name); !ok {
			t.Errorf("preset.Lookup(%s) fails", p.Name)
		}
	}
	if !slices.Equal(preset.Names(), []string{preset.ClaudeCode, preset.Codex, preset.GeminiCLI, preset.CopilotCLI}) {
		t.Errorf("preset.Names() = %q", preset.Names())
	}
}

func TestArgvAndEnviron(t *testing.T) {
	t.Parallel()
	p, _ := preset.Lookup(preset.ClaudeCode)
	if got := p.Argv(nil, ""); !slices.Equal(got, append([]string{"claude"}, p.Args...)) {
		t.Errorf("Argv = %q", got)
	}
	if got := p.Argv(nil, "claude-sonnet-4-5"); !slices.Equal(got[len(got)-2:], []string{"--model", "claude-sonnet-4-5"}) {
		t.Errorf("Argv with a model = %q", got)
	}
	if got := p.Argv([]string{"claude", "-p"}, "m"); !slices.Equal(got, []string{"claude", "-p", "--model", "m"}) {
		t.Errorf("Argv with run = %q", got)
	}
	env := p.Environ(map[string]string{"DISABLE_AUTOUPDATER": "0", "MINE": "1"})
	if env["DISABLE_AUTOUPDATER"] != "0" || env["MINE"] != "1" || env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] != "1" {
		t.Errorf("Environ = %v, want the agent's env over the preset's", env)
	}
	if p.Env["DISABLE_AUTOUPDATER"] != "1" {
		t.Errorf("Environ changed the registry's map")
	}
}

// Codex CLI's own openai provider ignores OPENAI_BASE_URL: the preset
// writes a provider of that URL into its config, quoted as TOML.
func TestCodexHome(t *testing.T) {
	t.Parallel()
	p, _ := preset.Lookup(preset.Codex)
	if files := p.Home(func(string) string { return "" }); len(files) != 0 {
		t.Errorf("without OPENAI_BASE_URL: %v, want preset.Codex's own provider", files)
	}
	files := p.Home(func(k string) string {
		return map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:3128/openai/v1?a=\"b\"\\"}[k]
	})
	if len(files) != 1 || files[0].Path != ".codex/config.toml" ||
		!strings.Contains(string(files[0].Data), `base_url = "http://127.0.0.1:3128/openai/v1?a=\"b\"\\"`) ||
		!strings.Contains(string(files[0].Data), `env_key = "OPENAI_API_KEY"`) {
		t.Errorf("config.toml = %q", files)
	}
}

// The Copilot CLI reads its provider from variables of its own, made from
// the ones the gateway gives; the agent's own env wins.
func TestCopilotDerived(t *testing.T) {
	t.Parallel()
	p, _ := preset.Lookup(preset.CopilotCLI)
	get := func(k string) string {
		return map[string]string{"OPENAI_BASE_URL": "http://gw/openai/v1", "OPENAI_API_KEY": "placeholder"}[k]
	}
	got := p.Derived(get, map[string]string{"COPILOT_PROVIDER_WIRE_API": "completions"})
	want := []string{"COPILOT_PROVIDER_TYPE=openai", "COPILOT_PROVIDER_BASE_URL=http://gw/openai/v1", "COPILOT_PROVIDER_API_KEY=placeholder"}
	if !slices.Equal(got, want) {
		t.Errorf("Derived = %q, want %q", got, want)
	}
}
