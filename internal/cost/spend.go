package cost

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/optr-dev/optr/internal/agent"
)

// Spend is what some model calls used and cost. Unknown is never 0
// (architecture §4.17): what optr could not know — a call without usage
// (Usage.Unknown), a call no price covers (Unpriced) — is counted apart,
// and the figures are the known part of the whole.
type Spend struct {
	// Usage is their tokens, and the calls whose use is unknown.
	Usage agent.Usage `json:"usage"`
	// Requests counts the calls that reached a model.
	Requests int64 `json:"requests,omitempty"`
	// USD is the cost of the calls that could be priced.
	USD float64 `json:"usd"`
	// Priced counts the calls USD prices; Unpriced those with a known use
	// that no price covers.
	Priced   int64 `json:"priced,omitempty"`
	Unpriced int64 `json:"unpriced,omitempty"`
}

// Add returns the sum of s and t.
func (s Spend) Add(t Spend) Spend {
	return Spend{
		Usage: s.Usage.Add(t.Usage), Requests: s.Requests + t.Requests, USD: s.USD + t.USD,
		Priced: s.Priced + t.Priced, Unpriced: s.Unpriced + t.Unpriced,
	}
}

// Tokens is the total of the tokens used: the known part.
func (s Spend) Tokens() int64 { return s.Usage.Total() }

// TokensOrNil is the tokens for JSON and tables: nil when nothing of them
// is known, so they show as empty, never as 0; else the known part
// (TokensKnown says whether that is all).
func (s Spend) TokensOrNil() *int64 {
	if s.Usage.IsUnknown() {
		return nil
	}
	t := s.Tokens()
	return &t
}

// TokensKnown reports whether every call's tokens are known.
func (s Spend) TokensKnown() bool { return s.Usage.Known() }

// Cost returns the cost in US dollars and whether it is known: it is not
// when a call could not be priced or its use is unknown. The amount is
// the known part either way.
func (s Spend) Cost() (float64, bool) { return s.USD, s.Unpriced == 0 && s.Usage.Known() }

// USDOrNil is the cost for JSON and tables: nil when nothing of it is
// known, so it shows as empty, never as 0; else the known part (Cost says
// whether that is all). A spend of nothing at all costs a known 0.
func (s Spend) USDOrNil() *float64 {
	usd, ok := s.Cost()
	if !ok && s.Priced == 0 {
		return nil
	}
	return &usd
}

// Unknowns counts the calls whose cost is not known: without usage, or
// without a price.
func (s Spend) Unknowns() int64 { return s.Unpriced + s.Usage.Unknown }

// FormatUSD renders a cost in US dollars for people: "$0.0123", "$12.40",
// "-" when it is unknown (nil).
func FormatUSD(usd *float64) string {
	if usd == nil {
		return "-"
	}
	return "$" + formatAmount(*usd)
}

// Format renders the spend's cost for people: FormatUSD of the known
// cost, with a "+" after a known part of a cost that is partly unknown
// ("$0.0123+").
func (s Spend) Format() string {
	usd := s.USDOrNil()
	if _, ok := s.Cost(); usd != nil && !ok {
		return FormatUSD(usd) + "+"
	}
	return FormatUSD(usd)
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
