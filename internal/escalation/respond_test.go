package escalation

import (
	"strings"
	"testing"
)

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
		{"three failures, the run can still succeed", Situation{FailedAgents: 3, Error: true, Outlook: &Outlook{Open: true, Why: "2 running"}}, Reassign},
		{"three failures with partial output, the run can still succeed", Situation{FailedAgents: 3, Error: true, PartialOutputs: true, Outlook: &Outlook{Open: true, Why: "2 running"}}, Synthesize},
		{"three failures, the run cannot succeed", Situation{FailedAgents: 3, Error: true, Outlook: &Outlook{Why: "0 running"}}, Abort},
		{"two failures, the run cannot succeed, default limit", Situation{FailedAgents: 2, Error: true, Outlook: &Outlook{Why: "0 running"}}, Reassign},
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
			// Whether it aborts or not, a decision taken on the run's
			// outlook at the failure limit says why, in its numbers.
			if o := tt.s.Outlook; o != nil && tt.s.FailedAgents >= maxFailuresOf(tt.s) && !strings.Contains(got.Reason, o.Why) {
				t.Errorf("Respond(%+v).Reason = %q, which does not say where the run stands", tt.s, got.Reason)
			}
		})
	}
}
