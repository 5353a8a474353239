// Package recovery decides what happens after an agent's attempt fails, and
// runs the attempts: it is optr's one retry layer (the provider SDKs are set
// to retry zero times beneath it).
//
// Every failure has a class (agent.ClassOf):
//
//   - Transient (HTTP 429, 5xx, Anthropic 529, timeouts, connection resets)
//     is retried after exponential backoff with full jitter. A wait the
//     provider asked for (Retry-After in seconds or as an HTTP date,
//     x-ratelimit-reset; parsed by the providers into agent.Error.RetryAfter)
//     is a floor: it is honoured even above Policy.MaxDelay, but never past
//     the Policy.MaxTotal deadline — a wait that would cross it stops the
//     agent and escalates with ReasonRetryBudget instead of sleeping in vain.
//     At most Policy.Attempts attempts may fail transiently.
//   - Systematic (unusable output, a non-zero exit, failed hard checks)
//     goes to Level-2 analysis: the analyzer agent reads a description of
//     the failure and answers
//     {"action":"alternative|diagnostics|unblock|escalate","hint":"…","reasoning":"…"}.
//     "alternative" retries the agent with the hint in Request.Hint (command
//     agents see it as OPTR_HINT, LLM agents in their prompt), at most
//     Policy.MaxAlternatives times (an analysis is not requested once they
//     are used up: its only actionable answer could not be followed). An
//     analyzer error or an answer that is not that JSON escalates with
//     ReasonAnalyzerFailed — except a provider's "unparseable output" whose
//     raw text is a valid analysis (the model skipped the provider's answer
//     format), which is used. No analyzer escalates at once with
//     ReasonNoAnalyzer.
//   - Fatal (401, 403, an unknown model, bad configuration) escalates at once.
//
// "diagnostics", "unblock" and "escalate" all stop the agent and escalate,
// each with its own reason (ReasonAnalyzerDiagnostics, ReasonAnalyzerUnblock,
// ReasonAnalyzerEscalate) and the analysis attached. This is deliberate:
// gathering diagnostics or removing a blocker needs someone with access
// optr does not have (the runner's environment, credentials, repository
// settings), and retrying unchanged would repeat a failure the analyzer has
// just judged not to be fixable by the agent. The escalation comment shows
// the analyzer's hint and reasoning so the human starts where it stopped.
//
// Bounds. Every attempt but the last leads either to a transient retry (at
// most Attempts-1 of them) or to an alternative (at most MaxAlternatives), so
// one Run makes at most Attempts+MaxAlternatives attempts. A shared Budget
// (budget.max-tokens, budget.max-usd-per-run, what the day's and month's
// budgets have left) is checked before every attempt and every analysis;
// once spent, nothing new starts and the Outcome says OutcomeBudgetExhausted,
// a distinct result the human loop turns into a BUDGET checkpoint. Attempts
// already running finish, so a run may overshoot the budget by what they use.
// Cancelling the context stops the agent at once, including during a wait.
//
// Every attempt — its class, reason, error text, the hint it ran with, the
// delay before the next one, its analysis and its outcome — is kept in
// Outcome.Attempts, which goes verbatim into the agent's result JSON.
package recovery
