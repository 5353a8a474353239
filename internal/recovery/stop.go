package recovery

import (
	"context"
	"errors"
	"fmt"
)

// escalate ends the Run: recovery gives up on the agent for reason; why
// tells the user what was wrong and what to do.
func (r *runner) escalate(at *Attempt, reason, why string) {
	at.Outcome = OutcomeEscalated
	r.out.Status = OutcomeEscalated
	r.out.Escalated = true
	r.out.EscalationReason = reason
	r.out.Err = fmt.Errorf("agent %s escalated after %d attempt(s): %s: %w", r.agent.Name(), at.N, why, r.lastErr)
}

// budgetExhausted ends the Run because the run's budget is spent.
func (r *runner) budgetExhausted(at *Attempt) {
	if at != nil {
		at.Outcome = OutcomeBudgetExhausted
	}
	r.out.Status = OutcomeBudgetExhausted
	r.out.BudgetExhausted = true
	r.out.EscalationReason = OutcomeBudgetExhausted
	err := fmt.Errorf("agent %s stopped: %w (%s); raise that budget to let the run go on",
		r.agent.Name(), ErrBudgetExhausted, r.p.Budget.Spent())
	if r.lastErr != nil {
		err = fmt.Errorf("%w; its last attempt failed: %w", err, r.lastErr)
	}
	r.out.Err = err
}

// cancelled ends the Run because ctx is done (or the clock could not wait).
func (r *runner) cancelled(ctx context.Context, at *Attempt, cause error) {
	if at != nil {
		at.Outcome = OutcomeCancelled
	}
	r.out.Status = OutcomeCancelled
	r.out.EscalationReason = OutcomeCancelled
	if c := context.Cause(ctx); c != nil && !errors.Is(cause, c) {
		cause = fmt.Errorf("%w (%w)", cause, c)
	}
	r.out.Err = fmt.Errorf("agent %s stopped: %w", r.agent.Name(), cause)
}

// says is the analysis' hint and reasoning, for an escalation message.
func (a *Analysis) says() string {
	switch {
	case a.Hint != "" && a.Reasoning != "":
		return a.Hint + " (" + a.Reasoning + ")"
	case a.Hint != "":
		return a.Hint
	case a.Reasoning != "":
		return a.Reasoning
	}
	return "no reason given"
}
