package recovery

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/agent/agenttest"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/cost"
)

func TestFromConfig(t *testing.T) {
	t.Parallel()
	an := agenttest.New("analyzer", agenttest.Steps(t))
	b := cost.NewMeter(cost.Pricer{}, cost.Cap{Key: "budget.max-tokens", Tokens: true, Limit: 10})
	tests := []struct {
		name string
		in   config.Recovery
		want Policy
	}{
		{
			name: "zero values take the defaults, MaxAlternatives 0 stays",
			in:   config.Recovery{},
			want: Policy{Attempts: 3, MaxAlternatives: 0, BaseDelay: time.Second, MaxDelay: 30 * time.Second,
				MaxTotal: 10 * time.Minute, Analyzer: an, Budget: b},
		},
		{
			name: "set values are kept",
			in: config.Recovery{Attempts: 5, Analyzer: "analyzer", MaxAlternatives: 1,
				BaseDelay: config.Duration(2 * time.Second), MaxDelay: config.Duration(time.Minute), MaxTotal: config.Duration(time.Hour)},
			want: Policy{Attempts: 5, MaxAlternatives: 1, BaseDelay: 2 * time.Second, MaxDelay: time.Minute,
				MaxTotal: time.Hour, Analyzer: an, Budget: b},
		},
		{
			name: "negative alternatives mean none",
			in:   config.Recovery{MaxAlternatives: -1},
			want: Policy{Attempts: 3, BaseDelay: time.Second, MaxDelay: 30 * time.Second,
				MaxTotal: 10 * time.Minute, Analyzer: an, Budget: b},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := FromConfig(tt.in, an, b)
			opts := cmp.Options{cmpopts.IgnoreFields(Policy{}, "Rand"), cmp.Comparer(func(x, y agent.Agent) bool { return x == y }),
				cmp.Comparer(func(x, y Budget) bool { return x == y })}
			if diff := cmp.Diff(tt.want, got, opts); diff != "" {
				t.Errorf("FromConfig (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAttemptJSON pins the field names that go into the agent result JSON.
func TestAttemptJSON(t *testing.T) {
	t.Parallel()
	at := Attempt{
		N: 2, Start: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC), DurationMS: 1500,
		Class: agent.Systematic, Reason: "failed_checks", Error: "constraint json failed", DelayMS: 0,
		Hint: "answer in JSON", Outcome: OutcomeAlternative, Usage: agent.Usage{InputTokens: 10, OutputTokens: 20},
		Analysis: &Analysis{Action: ActionAlternative, Hint: "use a list", Reasoning: "r", Usage: agent.Usage{InputTokens: 3}},
	}
	got, err := json.Marshal(at)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"n":2,"start":"2025-03-01T12:00:00Z","duration_ms":1500,"class":"systematic","reason":"failed_checks",` +
		`"error":"constraint json failed","hint":"answer in JSON","outcome":"alternative",` +
		`"usage":{"input_tokens":10,"output_tokens":20},` +
		`"analysis":{"action":"alternative","hint":"use a list","reasoning":"r","usage":{"input_tokens":3,"output_tokens":0}}}`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("Attempt JSON (-want +got):\n%s", diff)
	}
}
