package pipeline

import (
	"testing"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/checkpoint"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/escalation"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/selection"
	"github.com/optr-dev/optr/internal/status"
)

func TestConclude(t *testing.T) {
	t.Parallel()
	ok := &executor.Result{Agent: "a", Status: status.Succeeded, Output: "x"}
	spent := &executor.Result{Agent: "b", Status: status.Escalated, BudgetExhausted: true}
	gaveUp := &executor.Result{Agent: "c", Status: status.Escalated}
	unusable := &executor.Result{Agent: "copilot", Provider: "copilot", Status: status.Escalated, Reason: agent.ReasonUnusable,
		Error: agent.Unusable("copilot", "copilot", "GitHub Copilot refused the token").Error()}
	picked := selection.Result{Selected: "a", Best: "a", Outcome: selection.Admissible}
	leastBad := selection.Result{Selected: "a", Best: "a", Outcome: selection.LeastBad}
	none := selection.Result{Best: "a", Outcome: selection.NoAdmissible}
	nothing := selection.Result{Outcome: selection.NoCandidate}
	abort := &escalation.AbortError{Reason: "3 agent(s) have failed"}
	tests := []struct {
		name         string
		policy       string
		beforeCommit bool
		results      []*executor.Result
		sel          selection.Result
		aborted      error
		status       status.Status
		trigger      checkpoint.Trigger
		selected     string
	}{
		{"admissible", config.NoAdmissibleFail, false, []*executor.Result{ok}, picked, nil, status.Completed, "", "a"},
		{"least bad", config.NoAdmissibleLeastBad, false, []*executor.Result{ok}, leastBad, nil, status.Completed, "", "a"},
		{"no admissible, fail", config.NoAdmissibleFail, false, []*executor.Result{ok}, none, nil, status.Failed, "", ""},
		{"no admissible, ask", config.NoAdmissibleCheckpoint, false, []*executor.Result{ok}, none, nil, status.Paused, checkpoint.TriggerNoAdmissible, ""},
		{"budget spent, ask", config.NoAdmissibleCheckpoint, false, []*executor.Result{ok, spent}, picked, nil, status.Paused, checkpoint.TriggerBudget, "a"},
		{"budget spent, fail policy", config.NoAdmissibleFail, false, []*executor.Result{ok, spent}, picked, nil, status.Completed, "", "a"},
		{"recovery gave up, nothing produced", config.NoAdmissibleCheckpoint, false, []*executor.Result{gaveUp}, nothing, nil, status.Paused, checkpoint.TriggerHiccup, ""},
		{"every agent unusable: no human can help", config.NoAdmissibleCheckpoint, false, []*executor.Result{unusable}, nothing, nil, status.Failed, "", ""},
		{"nothing produced, fail policy", config.NoAdmissibleFail, false, []*executor.Result{gaveUp}, nothing, nil, status.Failed, "", ""},
		{"approval before commit", config.NoAdmissibleFail, true, []*executor.Result{ok}, picked, nil, status.Paused, checkpoint.TriggerApproval, "a"},
		{"watcher aborted", config.NoAdmissibleCheckpoint, true, []*executor.Result{ok}, picked, abort, status.Failed, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := &config.Config{Selection: config.Selection{OnNoAdmissible: tt.policy}, Checkpoints: config.Checkpoints{BeforeCommit: tt.beforeCommit}}
			rep := &report{Outcome: Outcome{Spec: Spec{Config: cfg}, Results: tt.results, Selection: tt.sel}, aborted: tt.aborted}
			conclude(rep)
			if rep.Status != tt.status || rep.Trigger != tt.trigger || rep.Selected != tt.selected {
				t.Fatalf("Decide = %s/%q/%q, want %s/%q/%q (%s)", rep.Status, rep.Trigger, rep.Selected, tt.status, tt.trigger, tt.selected, rep.Message)
			}
			if rep.Status != status.Completed && rep.Message == "" {
				t.Fatal("a run that is not completed must say why")
			}
		})
	}
}
