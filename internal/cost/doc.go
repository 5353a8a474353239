// Package cost says what a run's model calls cost and keeps the run within
// what it may spend (architecture §4.17).
//
// Prices come from a built-in table of the providers' list prices (one
// dated file, prices.go), which a config's prices: overrides. A call is
// priced by the model that answered it, else the model the agent names;
// a call no price covers — a command agent, a model the table does not
// know — makes the cost unknown, never zero: Spend.Cost says whether it is
// known.
//
// A Meter adds up one run's calls, per agent and in total, and tells
// recovery and the judges when the run's caps (budget.max-tokens,
// budget.max-usd-per-run, and what the day's and the month's budgets have
// left) are reached, so that no new attempt starts. Every agent a run
// builds is wrapped by Metered, so agent attempts, judges, the analyzer
// and any other caller that runs an agent are counted alike; the call is
// attributed to the agent whose result it serves by ForAgent on the
// context (a judge judging codex's output counts in codex's totals).
// Whoever calls a model without an agent.Agent (a detector) adds the call
// with Meter.Charge.
package cost
