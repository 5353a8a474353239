package config

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		src  string
		want func() *Config
	}{
		{
			name: "one command agent gets every default",
			src: `
agents:
  echo:
    provider: command
    run: [./agent.sh]
`,
			want: func() *Config { return withAgents(base(), "echo", commandAgent("./agent.sh")) },
		},
		{
			name: "agents and constraints keep file order",
			src: `
agents:
  zeta: {provider: command, run: [./z.sh]}
  alpha: {provider: openai, model: gpt-4.1}
  mid: {provider: command, run: [./m.sh]}
constraints:
  z-last: {check: json}
  a-first: {check: json}
`,
			want: func() *Config {
				c := withAgents(base(),
					"zeta", commandAgent("./z.sh"),
					"alpha", llmAgent("openai", "gpt-4.1"),
					"mid", commandAgent("./m.sh"))
				return withConstraints(c,
					"z-last", Constraint{Check: "json", Hard: true},
					"a-first", Constraint{Check: "json", Hard: true})
			},
		},
		{
			name: "hard is true unless hard: false is written",
			src: `
agents: {a: {provider: command, run: [./a.sh]}}
constraints:
  unset: {check: json}
  soft: {check: json, hard: false}
  explicit: {check: json, hard: true}
`,
			want: func() *Config {
				c := withAgents(base(), "a", commandAgent("./a.sh"))
				return withConstraints(c,
					"unset", Constraint{Check: "json", Hard: true},
					"soft", Constraint{Check: "json", Hard: false},
					"explicit", Constraint{Check: "json", Hard: true})
			},
		},
		{
			name: "value is kept as a string whether written as a string or a number",
			src: `
agents: {a: {provider: command, run: [./a.sh]}}
constraints:
  limit: {check: max-length, value: 2000}
  quoted-limit: {check: max-length, value: "300"}
  needle: {check: contains, value: TODO}
  number-needle: {check: contains, value: 12.5}
`,
			want: func() *Config {
				c := withAgents(base(), "a", commandAgent("./a.sh"))
				return withConstraints(c,
					"limit", Constraint{Check: "max-length", Value: "2000", Hard: true},
					"quoted-limit", Constraint{Check: "max-length", Value: "300", Hard: true},
					"needle", Constraint{Check: "contains", Value: "TODO", Hard: true},
					"number-needle", Constraint{Check: "contains", Value: "12.5", Hard: true})
			},
		},
		{
			name: "a partial weights block keeps the other defaults",
			src: `
agents: {a: {provider: command, run: [./a.sh]}}
selection:
  weights: {ttv: 0, exec: 5}
`,
			want: func() *Config {
				c := withAgents(base(), "a", commandAgent("./a.sh"))
				c.Selection.Weights = Weights{Invariants: 40, TTV: 0, Exec: 5, Preference: 10}
				return c
			},
		},
		{
			name: "written zeros that mean something are kept",
			src: `
agents: {a: {provider: command, run: [./a.sh]}}
recovery: {max-alternatives: 0}
watcher: {max-restarts: 0}
budget: {max-tokens: 0}
checkpoints: {before-commit: false}
`,
			want: func() *Config {
				c := withAgents(base(), "a", commandAgent("./a.sh"))
				c.Recovery.MaxAlternatives = 0
				c.Watcher.MaxRestarts = 0
				return c
			},
		},
		{
			name: "pipelines get their mode, agents and the delegate keys",
			src: `
agents:
  a: {provider: command, run: [./a.sh]}
  b: {provider: command, run: [./b.sh]}
  c: {provider: command, run: [./c.sh]}
constraints:
  j: {check: json}
pipelines:
  everything: {}
  pair: {agents: [c, a], constraints: [j]}
  split: {mode: delegate}
  chain: {mode: stages, agents: [c, b, a]}
  by-b: {mode: delegate, agents: [a, c], coordinator: b, threshold: 1, max-topics: 8, candidates: 2}
`,
			want: func() *Config {
				c := withAgents(base(), "a", commandAgent("./a.sh"), "b", commandAgent("./b.sh"), "c", commandAgent("./c.sh"))
				c = withConstraints(c, "j", Constraint{Check: "json", Hard: true})
				c.Pipelines = map[string]Pipeline{
					"everything": {Mode: "select", Agents: []string{"a", "b", "c"}},
					"pair":       {Mode: "select", Agents: []string{"c", "a"}, Constraints: []string{"j"}},
					"split":      {Mode: "delegate", Agents: []string{"a", "b", "c"}, Coordinator: "a", Threshold: 0.5, MaxTopics: 4, Candidates: 1},
					"chain":      {Mode: "stages", Agents: []string{"c", "b", "a"}, Restarts: 3, RestartBackoff: Duration(time.Second)},
					"by-b":       {Mode: "delegate", Agents: []string{"a", "c"}, Coordinator: "b", Threshold: 1, MaxTopics: 8, Candidates: 2},
				}
				return c
			},
		},
		{
			name: "command and judge checks get a timeout, judges a criterion",
			src: `
agents:
  claude: {provider: anthropic, model: claude-sonnet-4-5}
constraints:
  tests: {check: command, run: [./check.sh]}
  slow-tests: {check: command, run: [./check.sh], timeout: 3m}
  helpful: {check: judge, agent: claude}
  precise: {check: judge, agent: claude, criterion: cites sources}
  fenced: {check: regex, pattern: "(?m)^` + "```" + `"}
`,
			want: func() *Config {
				c := withAgents(base(), "claude", llmAgent("anthropic", "claude-sonnet-4-5"))
				return withConstraints(c,
					"tests", Constraint{Check: "command", Run: []string{"./check.sh"}, Hard: true, Timeout: minutes(1)},
					"slow-tests", Constraint{Check: "command", Run: []string{"./check.sh"}, Hard: true, Timeout: minutes(3)},
					"helpful", Constraint{Check: "judge", Agent: "claude", Criterion: "helpful", Hard: true, Timeout: minutes(1)},
					"precise", Constraint{Check: "judge", Agent: "claude", Criterion: "cites sources", Hard: true, Timeout: minutes(1)},
					"fenced", Constraint{Check: "regex", Pattern: "(?m)^```", Hard: true})
			},
		},
		{
			name: "attempt-timeout defaults to the agent's timeout",
			src: `
agents:
  quick: {provider: command, run: [./a.sh], timeout: 2m}
  split: {provider: copilot, byok: openai, base-url: "https://llm.example/v1", model: gpt-4.1, timeout: 2m, attempt-timeout: 30s, max-tokens: 100}
`,
			want: func() *Config {
				quick := commandAgent("./a.sh")
				quick.Timeout, quick.AttemptTimeout = minutes(2), minutes(2)
				split := llmAgent("copilot", "gpt-4.1")
				split.BYOK, split.BaseURL = "openai", "https://llm.example/v1"
				split.Timeout, split.AttemptTimeout, split.MaxTokens = minutes(2), seconds(30), 100
				return withAgents(base(), "quick", quick, "split", split)
			},
		},
		{
			name: "numbers in argv and env are kept as written",
			src: `
agents:
  sleepy:
    provider: command
    run: [sleep, 5]
    env: {WORKERS: 4, MODE: fast}
`,
			want: func() *Config {
				a := commandAgent("sleep", "5")
				a.Env = map[string]string{"WORKERS": "4", "MODE": "fast"}
				return withAgents(base(), "sleepy", a)
			},
		},
		{
			name: "block scalars and !!str",
			src: `
agents:
  gpt:
    provider: azure-openai
    deployment: !!str 2024
    api-version: 2024-10-21
    role: |
      You review code.
      Be brief.
`,
			want: func() *Config {
				a := llmAgent("azure-openai", "")
				a.Deployment, a.APIVersion, a.Role = "2024", "2024-10-21", "You review code.\nBe brief.\n"
				return withAgents(base(), "gpt", a)
			},
		},
		{
			name: "anchors, aliases and merge keys",
			src: `
agents:
  codex: &llm
    provider: openai
    model: gpt-4.1
    timeout: 2m
  mini:
    <<: *llm
    model: gpt-4.1-mini
constraints:
  tests:
    check: command
    run: &argv [./check.sh, --all]
  again:
    check: command
    run: *argv
`,
			want: func() *Config {
				codex := llmAgent("openai", "gpt-4.1")
				codex.Timeout, codex.AttemptTimeout = minutes(2), minutes(2)
				mini := codex
				mini.Model = "gpt-4.1-mini"
				c := withAgents(base(), "codex", codex, "mini", mini)
				return withConstraints(c,
					"tests", Constraint{Check: "command", Run: []string{"./check.sh", "--all"}, Hard: true, Timeout: minutes(1)},
					"again", Constraint{Check: "command", Run: []string{"./check.sh", "--all"}, Hard: true, Timeout: minutes(1)})
			},
		},
		{
			name: "empty sections take the defaults",
			src: `
agents: {a: {provider: command, run: [./a.sh]}}
selection:
pipelines:
recovery: {}
`,
			want: func() *Config { return withAgents(base(), "a", commandAgent("./a.sh")) },
		},
		{
			name: "JSON is YAML",
			src:  `{"agents": {"a": {"provider": "command", "run": ["./a.sh"]}}, "executor": {"max-parallel": 2}}`,
			want: func() *Config {
				c := withAgents(base(), "a", commandAgent("./a.sh"))
				c.Executor.MaxParallel = 2
				return c
			},
		},
		{
			name: "executor limits written",
			src:  "agents: {a: {provider: command, run: [./a.sh]}}\nexecutor: {max-parallel: 3, max-output: 1048576}\n",
			want: func() *Config {
				c := withAgents(base(), "a", commandAgent("./a.sh"))
				c.Executor.MaxParallel, c.Executor.MaxOutput = 3, 1<<20
				return c
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Parse("optr.yml", []byte(tt.src))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			want := tt.want()
			want.Path = "optr.yml"
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Parse mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
