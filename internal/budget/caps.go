package budget

import (
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/cost"
)

// The windows caps count over, as messages name them.
const (
	windowRun   = "this run"
	windowDay   = "today (UTC)"
	windowMonth = "this month (UTC)"
)

// RunCaps are the run's own caps: budget.max-tokens and
// budget.max-usd-per-run, counted from the run's start.
func RunCaps(b config.Budget) []cost.Cap {
	var caps []cost.Cap
	if b.MaxTokens > 0 {
		caps = append(caps, cost.Cap{Key: "budget.max-tokens", Window: windowRun, Tokens: true, Limit: float64(b.MaxTokens)})
	}
	if b.MaxUSDPerRun > 0 {
		caps = append(caps, cost.Cap{Key: "budget.max-usd-per-run", Window: windowRun, Limit: b.MaxUSDPerRun})
	}
	return caps
}
