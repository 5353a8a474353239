package recovery

// Budget is the run's spending limit (budget.max-tokens,
// budget.max-usd-per-run, and what the day's and month's budgets have
// left), shared by every agent, judge and analyzer of the run. Calls are
// counted where they are made — a cost.Meter counts every call of the
// agents it meters — and recovery asks before every attempt and every
// analysis whether one may start. A nil Budget is unlimited.
type Budget interface {
	// Exhausted reports whether the budget is spent: no new attempt or
	// analysis may start.
	Exhausted() bool
	// Spent says how the budget stands, for the message of an agent it
	// stopped.
	Spent() string
}

// exhausted reports whether b is set and spent.
func exhausted(b Budget) bool { return b != nil && b.Exhausted() }
