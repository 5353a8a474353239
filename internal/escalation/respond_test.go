package escalation

import "testing"

func TestDecide(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		s    Situation
		want Action
	}{
		{"nothing known", Situation{}, Synthesize},
		{"error without outputs", Situation{Error: true}, Reassign},
		{"error with partial outputs", Situation{Error: true, PartialOutputs: true}, Synthesize},
		{"stuck", Situation{Stuck: true}, Restart},
		{"timeout", Situation{Timeout: true}, Restart},
		{"timeout beats error with outputs", Situation{Timeout: true, Error: true, PartialOutputs: true}, Restart},
		{"stuck, restarts exhausted, error, outputs", Situation{Stuck: true, RestartsExhausted: true, Error: true, PartialOutputs: true}, Synthesize},
		{"timeout, restarts exhausted, error", Situation{Timeout: true, RestartsExhausted: true, Error: true}, Reassign},
		{"stuck, restarts exhausted, no error", Situation{Stuck: true, RestartsExhausted: true}, Synthesize},
		{"conflict", Situation{Conflict: true}, EscalateCEO},
		{"deadlock", Situation{Deadlock: true}, EscalateCEO},
		{"conflict and deadlock", Situation{Conflict: true, Deadlock: true}, EscalateCEO},
		{"conflict beats stuck", Situation{Conflict: true, Stuck: true, Error: true}, EscalateCEO},
		{"three failures, default limit", Situation{FailedAgents: 3}, Abort},
		{"two failures, default limit", Situation{FailedAgents: 2, Error: true}, Reassign},
		{"abort beats conflict", Situation{FailedAgents: 3, Conflict: true, Stuck: true}, Abort},
		{"custom limit reached", Situation{FailedAgents: 2, MaxFailures: 2, Error: true}, Abort},
		{"custom limit not reached", Situation{FailedAgents: 4, MaxFailures: 5, Error: true}, Reassign},
		{"limit of one", Situation{FailedAgents: 1, MaxFailures: 1, Error: true}, Abort},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Respond(tt.s)
			if got.Action != tt.want {
				t.Errorf("Respond(%+v).Action = %s, want %s (reason %q)", tt.s, got.Action, tt.want, got.Reason)
			}
			if got.Reason == "" {
				t.Errorf("Respond(%+v) gave no reason", tt.s)
			}
		})
	}
}
