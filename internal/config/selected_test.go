package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSelected(t *testing.T) {
	t.Parallel()
	c, err := Parse("optr.yml", []byte(`
agents:
  c: {provider: command, run: [./c.sh]}
  a: {provider: command, run: [./a.sh]}
  b: {provider: command, run: [./b.sh]}
pipelines:
  pair: {agents: [b, c]}
  chain: {mode: stages, agents: [b, a, c]}
`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		pipeline string
		agents   []string
		want     []string
		wantErr  string // a substring of the error; empty for success
	}{
		{name: "every agent in file order but stage-only ones", want: []string{"c", "b"}},
		{name: "a stage-only agent on its own", agents: []string{"a"}, want: []string{"a"}},
		{name: "filter keeps file order", agents: []string{"b", "c"}, want: []string{"c", "b"}},
		{name: "filter repeats collapse", agents: []string{"a", "a"}, want: []string{"a"}},
		{name: "pipeline agents in pipeline order", pipeline: "pair", want: []string{"b", "c"}},
		{name: "stages in stage order", pipeline: "chain", want: []string{"b", "a", "c"}},
		{name: "filter within a pipeline", pipeline: "pair", agents: []string{"c"}, want: []string{"c"}},
		{name: "unknown agents are named", agents: []string{"a", "x", "y"}, wantErr: `unknown agents "x", "y"; the agents are c, a, b`},
		{name: "agent outside the pipeline", pipeline: "pair", agents: []string{"a"}, wantErr: `agents "a" are not part of pipeline "pair"`},
		{name: "unknown pipeline", pipeline: "nope", wantErr: `unknown pipeline "nope"; the pipelines are chain, pair`},
		{name: "stages cannot be filtered", pipeline: "chain", agents: []string{"a"}, wantErr: "a stage cannot be skipped"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := c.Selected(tt.pipeline, tt.agents)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Selected(%q, %q) error = %v, want one containing %q", tt.pipeline, tt.agents, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Selected(%q, %q): %v", tt.pipeline, tt.agents, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Selected(%q, %q) mismatch (-want +got):\n%s", tt.pipeline, tt.agents, diff)
			}
		})
	}

	// The result is the caller's: changing it leaves the config alone.
	got, _ := c.Selected("pair", nil)
	got[0] = "changed"
	if again, _ := c.Selected("pair", nil); again[0] != "b" {
		t.Errorf("Selected returned the pipeline's own slice")
	}
}
