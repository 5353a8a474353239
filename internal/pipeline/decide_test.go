package pipeline

import (
	"testing"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/checkpoint"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/escalation"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/selection"
)

func TestConclude(t *testing.T) {
	t.Parallel()
	ok := &executor.Result{Agent: "a", Status: executor.Succeeded, Output: "x"}
	spent := &executor.Result{Agent: "b", Status: executor.Escalated, BudgetExhausted: true}
	gaveUp := &executor.Result{Agent: "c", Status: executor.Escalated}
	unusable := &executor.Result{Agent: "copilot", Provider: "copilot", Status: executor.Escalated, Reason: agent.ReasonUnusable,
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
		status       RunStatus
		trigger      checkpoint.Trigger
		selected     string
	}{
		{"admissible", config.NoAdmissibleFail, false, []*executor.Result{ok}, picked, nil, Completed, "", "a"},
		{"least bad", config.NoAdmissibleLeastBad, false, []*executor.Result{ok}, leastBad, nil, Completed, "", "a"},
		{"no admissible, fail", config.NoAdmissibleFail, false, []*executor.Result{ok}, none, nil, Failed, "", ""},
		{"no admissible, ask", config.NoAdmissibleCheckpoint, false, []*executor.Result{ok}, none, nil, Paused, checkpoint.TriggerNoAdmissible, ""},
		{"budget spent, ask", config.NoAdmissibleCheckpoint, false, []*executor.Result{ok, spent}, picked, nil, Paused, checkpoint.TriggerBudget, "a"},
		{"budget spent, fail policy", config.NoAdmissibleFail, false, []*executor.Result{ok, spent}, picked, nil, Completed, "", "a"},
		{"recovery gave up, nothing produced", config.NoAdmissibleCheckpoint, false, []*executor.Result{gaveUp}, nothing, nil, Paused, checkpoint.TriggerHiccup, ""},
		{"every agent unusable: no human can help", config.NoAdmissibleCheckpoint, false, []*executor.Result{unusable}, nothing, nil, Failed, "", ""},
		{"nothing produced, fail policy", config.NoAdmissibleFail, false, []*executor.Result{gaveUp}, nothing, nil, Failed, "", ""},
		{"approval before commit", config.NoAdmissibleFail, true, []*executor.Result{ok}, picked, nil, Paused, checkpoint.TriggerApproval, "a"},
		{"watcher aborted", config.NoAdmissibleCheckpoint, true, []*executor.Result{ok}, picked, abort, Failed, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := &config.Config{Selection: config.Selection{OnNoAdmissible: tt.policy}, Checkpoints: config.Checkpoints{BeforeCommit: tt.beforeCommit}}
			rep := &Report{Spec: Spec{Config: cfg}, Results: tt.results, Selection: tt.sel, aborted: tt.aborted}
			Conclude(rep)
			if rep.Status != tt.status || rep.Trigger != tt.trigger || rep.Selected != tt.selected {
				t.Fatalf("Decide = %s/%q/%q, want %s/%q/%q (%s)", rep.Status, rep.Trigger, rep.Selected, tt.status, tt.trigger, tt.selected, rep.Message)
			}
			if rep.Status != Completed && rep.Message == "" {
				t.Fatal("a run that is not completed must say why")
			}
		})
	}
}
