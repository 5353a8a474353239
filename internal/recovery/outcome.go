package recovery

import (
	"time"

	"github.com/optr-dev/optr/internal/agent"
)

// Attempt outcomes (Attempt.Outcome) and final statuses (Outcome.Status).
// A final status is one of OutcomeSucceeded, OutcomeEscalated,
// OutcomeBudgetExhausted and OutcomeCancelled.
const (
	// OutcomeSucceeded: the attempt's output was accepted.
	OutcomeSucceeded = "succeeded"
	// OutcomeRetry: the attempt failed transiently and another one followed.
	OutcomeRetry = "retry"
	// OutcomeAlternative: the analyzer suggested a hint and another attempt
	// ran with it.
	OutcomeAlternative = "alternative"
	// OutcomeEscalated: recovery gave up and handed the agent to a human.
	OutcomeEscalated = "escalated"
	// OutcomeBudgetExhausted: the run's budget was spent, so nothing new
	// started.
	OutcomeBudgetExhausted = "budget_exhausted"
	// OutcomeCancelled: the context was cancelled.
	OutcomeCancelled = "cancelled"
)

// Escalation reasons (Outcome.EscalationReason).
const (
	// ReasonFatal: a fatal failure (401, 403, unknown model, bad config).
	ReasonFatal = "fatal"
	// ReasonRetriesExhausted: Policy.Attempts attempts failed transiently.
	ReasonRetriesExhausted = "retries_exhausted"
	// ReasonRetryBudget: the next retry would start after the
	// Policy.MaxTotal deadline.
	ReasonRetryBudget = "retry budget exhausted"
	// ReasonNoAnalyzer: a systematic failure with no analyzer configured.
	ReasonNoAnalyzer = "no_analyzer"
	// ReasonAlternativesExhausted: Policy.MaxAlternatives alternatives were
	// tried and the agent still fails systematically.
	ReasonAlternativesExhausted = "alternatives_exhausted"
	// ReasonAnalyzerFailed: the analyzer returned an error or an answer that
	// is not the expected JSON.
	ReasonAnalyzerFailed = "analyzer_failed"
	// ReasonAnalyzerDiagnostics, ReasonAnalyzerUnblock and
	// ReasonAnalyzerEscalate: the analyzer answered that action.
	ReasonAnalyzerDiagnostics = "analyzer_diagnostics"
	ReasonAnalyzerUnblock     = "analyzer_unblock"
	ReasonAnalyzerEscalate    = "analyzer_escalate"
)

// ReasonFailedChecks is the Attempt.Reason of an attempt whose output the
// accept function rejected without giving a reason of its own.
const ReasonFailedChecks = "failed_checks"

// ErrBudgetExhausted is wrapped by Outcome.Err when the run's budget
// stopped the agent.
var ErrBudgetExhausted = agent.ErrBudgetSpent

// Outcome is what Policy.Run returns: the last response, how the agent's
// attempts ended, and every attempt on the way.
type Outcome struct {
	// Response is the last attempt's response; on failure it still holds
	// whatever that attempt captured (partial output, stderr, exit code).
	// Its Network is every attempt's hosts, merged.
	Response agent.Response `json:"-"`
	// Err is nil on success, otherwise why the agent stopped; it wraps the
	// last attempt's error, ErrBudgetExhausted or the context's error.
	Err error `json:"-"`
	// Status is the final status: OutcomeSucceeded, OutcomeEscalated,
	// OutcomeBudgetExhausted or OutcomeCancelled.
	Status string `json:"status"`
	// Attempts are the attempts in order, N = 1, 2, ….
	Attempts []Attempt `json:"attempts"`
	// Usage is the token use of every attempt and every analysis.
	Usage agent.Usage `json:"usage"`
	// AnalyzerUsage is the analyzer's part of Usage.
	AnalyzerUsage agent.Usage `json:"analyzer_usage"`
	// Escalated is true when recovery gave up on the agent; then
	// EscalationReason is one of the Reason* constants.
	Escalated bool `json:"escalated"`
	// EscalationReason says why the agent stopped without success
	// (OutcomeBudgetExhausted and OutcomeCancelled as well).
	EscalationReason string `json:"escalation_reason,omitempty"`
	// BudgetExhausted is true when the run's budget stopped the agent.
	BudgetExhausted bool `json:"budget_exhausted"`
	// Analysis is the last Level-2 analysis, nil when none ran.
	Analysis *Analysis `json:"analysis,omitempty"`
}

// Attempt records one attempt of an agent.
type Attempt struct {
	// N numbers the attempts of one agent from 1.
	N int `json:"n"`
	// Start is when the attempt started.
	Start time.Time `json:"start"`
	// DurationMS is how long the agent ran, in milliseconds.
	DurationMS int64 `json:"duration_ms"`
	// Class is the failure class, empty on success.
	Class agent.Class `json:"class,omitempty"`
	// Reason is the failure's short cause ("rate_limited", "failed_checks", …).
	Reason string `json:"reason,omitempty"`
	// Error is the failure's message.
	Error string `json:"error,omitempty"`
	// DelayMS is how long recovery waited before the next attempt.
	DelayMS int64 `json:"delay_ms,omitempty"`
	// Hint is the recovery hint this attempt ran with.
	Hint string `json:"hint,omitempty"`
	// Outcome is what followed the attempt: one of the Outcome* constants.
	Outcome string `json:"outcome"`
	// Usage is the tokens the attempt used (analysis excluded).
	Usage agent.Usage `json:"usage"`
	// Calls are the model requests the attempt made through the model
	// gateway, CallsOmitted those past its record's bound; the agent's
	// result lists them all (its requests).
	Calls        []agent.Call `json:"-"`
	CallsOmitted int          `json:"-"`
	// Analysis is the Level-2 analysis of this attempt's failure, if one ran.
	Analysis *Analysis `json:"analysis,omitempty"`
}
