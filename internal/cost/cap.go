package cost

import (
	"fmt"

	"github.com/optr-dev/optr/internal/agent"
	"strconv"
	"strings"
)

// Cap is one limit on what may be spent: a budget.* key of the config.
// The run's own caps count from zero; a day's or a month's count what the
// ledger recorded in the window before the run started (Before).
//
// A cap counts the known part of what was spent: a call whose use or
// price optr could not know adds nothing to it, and Describe says that
// such calls were made, so that nobody reads the figure as the whole.
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
	// Before is what the window had spent before this run (its known
	// part); UnknownBefore counts the earlier runs of the window whose
	// spend was partly or wholly unknown.
	Before        float64
	UnknownBefore int
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

// Passed reports whether spending next on top of s would take the window
// past the cap, or it is reached already.
func (c Cap) Passed(s, next Spend) bool { return c.Reached(s) || c.Spent(s.Add(next)) > c.Limit }

// Describe says how the cap stands with s spent by this run:
// "budget.max-usd-per-day: $5.12 of $5.00 spent today (UTC)", and what
// it could not count.
func (c Cap) Describe(s Spend) string {
	d := fmt.Sprintf("%s: %s of %s spent %s", c.Key, c.amount(c.Spent(s)), c.amount(c.Limit), c.Window)
	if note := c.unknown(s); note != "" {
		d += " (" + note + ")"
	}
	return d
}

// DescribeNext is Describe for a call refused with s spent: when the cap
// is not reached yet, it says what the call would add (next, an estimate:
// its prompt alone), since that is what passes it — "budget.max-usd-per-day:
// $4.99 of $5.00 spent today (UTC); this call would add about $0.03".
func (c Cap) DescribeNext(s, next Spend) string {
	d := c.Describe(s)
	if c.Reached(s) {
		return d
	}
	add := next.USD
	if c.Tokens {
		add = float64(next.Tokens())
	}
	return d + "; this call would add about " + c.amount(add)
}

// unknown says what the cap could not count, "" when it counted it all.
func (c Cap) unknown(s Spend) string {
	calls := s.Usage.Unknown
	if !c.Tokens {
		calls = s.Unknowns()
	}
	var parts []string
	if calls > 0 {
		parts = append(parts, plural(calls, "call")+" of this run")
	}
	if c.UnknownBefore > 0 {
		parts = append(parts, plural(int64(c.UnknownBefore), "earlier run"))
	}
	if len(parts) == 0 {
		return ""
	}
	what := "cost"
	if c.Tokens {
		what = "tokens"
	}
	return "the known part: " + strings.Join(parts, " and ") + " spent " + what + " optr could not know, not counted"
}

func plural(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.FormatInt(n, 10) + " " + noun + "s"
}

func (c Cap) amount(v float64) string {
	if c.Tokens {
		return strconv.FormatFloat(v, 'f', 0, 64) + " tokens"
	}
	return "$" + formatAmount(v)
}

// CapError is a model call refused because it would take the run past a
// cap (Meter.Allow).
type CapError struct {
	// Spent describes each cap the call would pass, with the figures.
	Spent []string
}

// Is makes a CapError an agent.ErrBudgetSpent.
func (e *CapError) Is(target error) bool { return target == agent.ErrBudgetSpent }

// Error implements error.
func (e *CapError) Error() string {
	return "optr's budget allows no further model call: " + strings.Join(e.Spent, "; ") +
		". Raise the budget in optr's config (budget:), or wait until the day or month (UTC) is over"
}
