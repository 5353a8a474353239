package cost

import (
	"fmt"
	"strconv"
)

// Cap is one limit on what may be spent: a budget.* key of the config.
// The run's own caps count from zero; a day's or a month's count what the
// ledger recorded in the window before the run started (Before).
type Cap struct {
	// Key is the config key that sets the cap (budget.max-usd-per-day).
	Key string
	// Window says over what the cap counts, for messages: "this run",
	// "today (UTC)", "this month (UTC)".
	Window string
	// Tokens is true for a cap on tokens, false for one on US dollars.
	Tokens bool
	// Limit is the cap: tokens or US dollars.
	Limit float64
	// Before is what the window had spent before this run.
	Before float64
}

// Spent is what the window has spent with s, this run's spend, added.
func (c Cap) Spent(s Spend) float64 {
	if c.Tokens {
		return c.Before + float64(s.Tokens())
	}
	return c.Before + s.USD
}

// Reached reports whether the window, with s spent by this run, is at or
// past the cap: nothing more may start.
func (c Cap) Reached(s Spend) bool { return c.Spent(s) >= c.Limit }

// Describe says how the cap stands with s spent by this run:
// "budget.max-usd-per-day: $5.12 of $5.00 spent today (UTC)".
func (c Cap) Describe(s Spend) string {
	return fmt.Sprintf("%s: %s of %s spent %s", c.Key, c.amount(c.Spent(s)), c.amount(c.Limit), c.Window)
}

func (c Cap) amount(v float64) string {
	if c.Tokens {
		return strconv.FormatFloat(v, 'f', 0, 64) + " tokens"
	}
	return "$" + formatAmount(v)
}
