package cost

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/optr-dev/optr/internal/agent"
)

// Spend is what some model calls used and cost.
type Spend struct {
	// Usage is their tokens.
	Usage agent.Usage `json:"usage"`
	// Requests counts the calls that reached a model.
	Requests int64 `json:"requests,omitempty"`
	// USD is the cost of the calls that could be priced.
	USD float64 `json:"usd"`
	// Unpriced counts the calls no price covers: their cost, and so the
	// whole cost, is unknown.
	Unpriced int64 `json:"unpriced,omitempty"`
}

// Add returns the sum of s and t.
func (s Spend) Add(t Spend) Spend {
	return Spend{Usage: s.Usage.Add(t.Usage), Requests: s.Requests + t.Requests, USD: s.USD + t.USD, Unpriced: s.Unpriced + t.Unpriced}
}

// Tokens is the total of the tokens used.
func (s Spend) Tokens() int64 { return s.Usage.Total() }

// Cost returns the cost in US dollars and whether it is known: it is not
// when a call could not be priced.
func (s Spend) Cost() (float64, bool) { return s.USD, s.Unpriced == 0 }

// USDOrNil is the cost for JSON and tables: nil when it is unknown, so it
// shows as empty, never as 0.
func (s Spend) USDOrNil() *float64 {
	usd, ok := s.Cost()
	if !ok {
		return nil
	}
	return &usd
}

// FormatUSD renders a cost in US dollars for people: "$0.0123", "$12.40",
// "-" when it is unknown (nil).
func FormatUSD(usd *float64) string {
	if usd == nil {
		return "-"
	}
	return "$" + formatAmount(*usd)
}

// formatAmount prints an amount with cents, and with up to four
// significant digits when it is below a dollar (a run often costs a
// fraction of a cent).
func formatAmount(v float64) string {
	if v != 0 && v < 1 && v > -1 {
		scale := math.Pow(10, 3-math.Floor(math.Log10(math.Abs(v))))
		s := strconv.FormatFloat(math.Round(v*scale)/scale, 'f', -1, 64)
		if _, frac, _ := strings.Cut(s, "."); len(frac) < 2 {
			s += strings.Repeat("0", 2-len(frac))
		}
		return s
	}
	return fmt.Sprintf("%.2f", v)
}
