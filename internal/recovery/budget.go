package recovery

import (
	"sync/atomic"

	"github.com/optr-dev/optr/internal/agent"
)

// Budget is a run's token budget (budget.max-tokens), shared by every agent,
// judge and analyzer of the run. It is safe for concurrent use; a nil
// *Budget is unlimited.
type Budget struct {
	max  int64
	used atomic.Int64
}

// NewBudget returns a budget of maxTokens tokens; 0 or less means unlimited
// (the budget still counts).
func NewBudget(maxTokens int64) *Budget {
	return &Budget{max: max(maxTokens, 0)}
}

// Add counts the tokens of u against the budget.
func (b *Budget) Add(u agent.Usage) {
	if b == nil {
		return
	}
	b.used.Add(u.Total())
}

// Exhausted reports whether the budget is limited and fully spent: no new
// attempt may start.
func (b *Budget) Exhausted() bool {
	return b != nil && b.max > 0 && b.used.Load() >= b.max
}

// Used returns the tokens counted so far.
func (b *Budget) Used() int64 {
	if b == nil {
		return 0
	}
	return b.used.Load()
}

// Max returns the budget's limit, 0 when unlimited.
func (b *Budget) Max() int64 {
	if b == nil {
		return 0
	}
	return b.max
}
