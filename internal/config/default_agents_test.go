package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A file without agents keeps the embedded default's agents (architecture §4.8);
// a file that writes agents gets exactly those.
func TestFileWithoutAgentsKeepsTheDefaultAgents(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	onlyPolicy := write("policy.yml", "constraints:\n  short: { check: max-length, value: 2000 }\nselection:\n  on-no-admissible: fail\n")
	env := map[string]string{"OPENAI_API_KEY": "sk-x"}
	getenv := func(k string) string { return env[k] }

	got, err := LoadOrDefault(onlyPolicy, true, getenv)
	if err != nil {
		t.Fatalf("LoadOrDefault(a file with only constraints and selection): %v", err)
	}
	want := Default(getenv)
	if diff := cmp.Diff(want.AgentNames, got.AgentNames); diff != "" {
		t.Errorf("agent names (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want.Agents, got.Agents); diff != "" {
		t.Errorf("agents (-want +got):\n%s", diff)
	}
	if got.Selection.OnNoAdmissible != "fail" || got.Constraints["short"].Check != CheckMaxLength {
		t.Errorf("the file's own settings were lost: %+v", got)
	}

	// Parse knows no environment: the default agents of an empty one.
	parsed, err := Parse("policy.yml", []byte("selection:\n  on-no-admissible: fail\n"))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if diff := cmp.Diff([]string{"copilot"}, parsed.AgentNames); diff != "" {
		t.Errorf("Parse agent names (-want +got):\n%s", diff)
	}

	// Written agents replace the defaults; an empty mapping is an error.
	own, err := LoadOrDefault(write("own.yml", "agents:\n  mine: { provider: command, run: [./a.sh] }\n"), true, getenv)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"mine"}, own.AgentNames); diff != "" {
		t.Errorf("own agent names (-want +got):\n%s", diff)
	}
	if _, err := LoadOrDefault(write("empty.yml", "agents: {}\n"), true, getenv); err == nil || !strings.Contains(err.Error(), "at least one agent is required") {
		t.Errorf("agents: {} gave %v, want at least one agent is required", err)
	}
}

// Several agents missing their keys are reported at once, each at its line.
func TestEveryAgentProblemAtOnce(t *testing.T) {
	t.Parallel()
	_, err := Parse("optr.yml", []byte("agents:\n  a: { provider: openai }\n  b: { provider: anthropic }\n  c: { provider: command }\n  d: { model: gpt-4.1 }\n"))
	var got []string
	for _, e := range Errors(err) {
		got = append(got, e.Key)
	}
	want := []string{"agents.a.model", "agents.b.model", "agents.c.run", "agents.d.provider"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s\nerror: %v", diff, err)
	}
}

// Declared spares and synthesizer load as written.
func TestWatcherSparesAndSynthesizer(t *testing.T) {
	t.Parallel()
	c, err := Parse("optr.yml", []byte(`agents:
  a: { provider: command, run: [./a.sh] }
  b: { provider: command, run: [./b.sh] }
  c: { provider: openai, model: gpt-4.1 }
  analyzer: { provider: openai, model: gpt-4.1 }
recovery: { analyzer: analyzer }
watcher: { spares: [b, a], synthesizer: c }
`))
	if err != nil {
		t.Fatal(err)
	}
	want := Watcher{StuckAfter: minutes(5), MaxFailures: 3, MaxRestarts: 1, Spares: []string{"b", "a"}, Synthesizer: "c"}
	if diff := cmp.Diff(want, c.Watcher); diff != "" {
		t.Errorf("watcher (-want +got):\n%s", diff)
	}
}
