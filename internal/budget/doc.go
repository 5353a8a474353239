// Package budget decides what a run may spend (architecture §4.17): its own caps
// (budget.max-tokens, budget.max-usd-per-run) and what the day's and the
// month's budgets (budget.max-{tokens,usd}-per-{day,month}) have left,
// summed from the costs the ledger recorded in the current UTC day and
// month. Check refuses a run that would start over a day's or month's
// budget, with the figures, before any agent spends a token; the caps it
// returns go to the run's cost.Meter, which stops new attempts once one
// is reached.
//
// Only the ledger's segments that can hold the window are read
// (ledger.ReadWindow). Two runs that start at the same time both see the
// ledger without the other's spend: both may pass the check, so a budget
// may be passed by what concurrent runs spend.
package budget
