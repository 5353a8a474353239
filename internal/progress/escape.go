package progress

import (
	"fmt"
	"strings"
	"time"

	"github.com/optr-dev/optr/internal/cost"
)

// Duration renders d for people: 850ms, 2.1s, 1m5s.
func Duration(d time.Duration) string {
	switch {
	case d <= 0:
		return ""
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	default:
		return d.Round(time.Second).String()
	}
}

// ms renders a millisecond count as a duration, "—" when zero.
func ms(n int64) string {
	if n <= 0 {
		return "—"
	}
	return Duration(time.Duration(n) * time.Millisecond)
}

// Thousands renders n with thousands separators, "—" when zero.
func Thousands(n int64) string {
	if n == 0 {
		return "—"
	}
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// usd renders a cost in US dollars, "-" when it is unknown (architecture
// §4.17: never 0).
func usd(v *float64) string { return cost.FormatUSD(v) }

// tokensCell renders a row's tokens: "—" when nothing of them is known,
// the known part followed by "+" when a part of them is not, never a 0
// that stands for unknown.
func tokensCell(r Row) string {
	if r.Tokens == nil {
		return "—"
	}
	n := "0"
	if *r.Tokens != 0 {
		n = Thousands(*r.Tokens)
	}
	if r.TokensUnknown {
		return n + "+"
	}
	return n
}

// costCell renders a row's cost: "-" when nothing of it is known, the
// known part followed by "+" when a part of it is not.
func costCell(r Row) string {
	if r.CostUSD != nil && r.CostUnknown {
		return usd(r.CostUSD) + "+"
	}
	return usd(r.CostUSD)
}

// shortHash shows the first 12 characters of a hash or sha.
func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
