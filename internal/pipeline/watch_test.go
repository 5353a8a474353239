package pipeline

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/optr-dev/optr/internal/config"
)

// The watcher recruits only the agents the config declares for it: never
// the analyzer or a judge, and never an agent --agents left out.
func TestReinforcementsAreDeclared(t *testing.T) {
	t.Parallel()
	const agents = `agents:
  a: { provider: command, run: ["true"] }
  b: { provider: command, run: ["true"] }
  spare: { provider: command, run: ["true"] }
  doctor: { provider: openai, model: gpt-4.1 }
  merger: { provider: openai, model: gpt-4.1 }
recovery: { analyzer: doctor }
`
	tests := []struct {
		name, watcher string
		agents        []string
		wantSpares    []string
		wantSynth     string
	}{
		{name: "nothing declared", agents: []string{"a"}},
		{name: "declared", watcher: "watcher: { spares: [spare, b], synthesizer: merger }\n",
			agents: []string{"a", "b"}, wantSpares: []string{"spare"}, wantSynth: "merger"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg, err := config.Parse("optr.yml", []byte(agents+tc.watcher))
			if err != nil {
				t.Fatal(err)
			}
			p, err := Prepare(Spec{Config: cfg, Workflow: "w", RunID: "r-1", Intent: "x", Agents: tc.agents,
				Datalake: t.TempDir(), LedgerPath: t.TempDir() + "/ledger.jsonl", Dir: t.TempDir()},
				Deps{Getenv: func(k string) string { return map[string]string{"OPENAI_API_KEY": "key"}[k] }})
			if err != nil {
				t.Fatal(err)
			}
			spares, synth := p.reinforcements()
			var got []string
			for _, s := range spares {
				got = append(got, s.Agent.Name())
			}
			if diff := cmp.Diff(tc.wantSpares, got); diff != "" {
				t.Errorf("spares (-want +got):\n%s", diff)
			}
			gotSynth := ""
			if synth != nil {
				gotSynth = synth.Agent.Name()
			}
			if gotSynth != tc.wantSynth || slices.Contains(got, "doctor") {
				t.Errorf("synthesizer = %q, want %q", gotSynth, tc.wantSynth)
			}
		})
	}
}
