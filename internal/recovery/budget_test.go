package recovery

import (
	"sync"
	"testing"

	"github.com/optr-dev/optr/internal/agent"
)

func TestBudget(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		max       int64
		adds      []agent.Usage
		used      int64
		exhausted bool
	}{
		{"unlimited", 0, []agent.Usage{{InputTokens: 1 << 40}}, 1 << 40, false},
		{"negative is unlimited", -5, []agent.Usage{{InputTokens: 10}}, 10, false},
		{"below", 100, []agent.Usage{{InputTokens: 40, OutputTokens: 59}}, 99, false},
		{"at the limit", 100, []agent.Usage{{InputTokens: 40}, {OutputTokens: 60}}, 100, true},
		{"above", 100, []agent.Usage{{InputTokens: 400}}, 400, true},
		{"nothing yet", 100, nil, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := NewBudget(tt.max)
			for _, u := range tt.adds {
				b.Add(u)
			}
			if b.Used() != tt.used || b.Exhausted() != tt.exhausted {
				t.Errorf("Used() = %d, Exhausted() = %v; want %d, %v", b.Used(), b.Exhausted(), tt.used, tt.exhausted)
			}
		})
	}
}

func TestNilBudgetIsUnlimited(t *testing.T) {
	t.Parallel()
	var b *Budget
	b.Add(agent.Usage{InputTokens: 5})
	if b.Exhausted() || b.Used() != 0 || b.Max() != 0 {
		t.Errorf("nil budget: Exhausted() = %v, Used() = %d, Max() = %d", b.Exhausted(), b.Used(), b.Max())
	}
}

func TestBudgetConcurrent(t *testing.T) {
	t.Parallel()
	b := NewBudget(1000)
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			for range 100 {
				b.Add(agent.Usage{InputTokens: 1, OutputTokens: 1})
				_ = b.Exhausted()
			}
		})
	}
	wg.Wait()
	if got := b.Used(); got != 10000 || !b.Exhausted() {
		t.Errorf("Used() = %d, Exhausted() = %v; want 10000, true", got, b.Exhausted())
	}
}
