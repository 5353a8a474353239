package budget

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/cost"
	"github.com/optr-dev/optr/internal/ledger"
)

// RefusedError is a run refused before it started: a day's or a month's
// budget is already spent. It says how each spent budget stands.
type RefusedError struct {
	// Spent describes each budget that is spent, with the figures.
	Spent []string
}

// Error implements error.
func (e *RefusedError) Error() string {
	return "the run was not started, its budget is spent: " + strings.Join(e.Spent, "; ") +
		". Raise the budget in the config, or wait until the day or month (UTC) is over"
}

// Check returns the caps the day's and the month's budgets set on a run
// that starts at now under b, with what the ledger in st recorded in the
// current UTC day and month (the run's own caps are RunCaps). A day or
// month already at or past its budget refuses the run with a
// *RefusedError, before any agent starts. The ledger is read only when b
// sets a day's or a month's budget, and only back to the window's start.
//
// run is the run being checked. What the ledger recorded of it is not
// counted: a paused run that is carried on (Proceed retries its failed
// stage) has its own checkpoint entry in the window, and its meter starts
// from that spend already; a new run has no entry.
func Check(ctx context.Context, st ledger.Store, b config.Budget, now time.Time, run string) ([]cost.Cap, error) {
	windows := windowCaps(b, now)
	if len(windows) == 0 {
		return nil, nil
	}
	var caps []cost.Cap
	since := windows[0].since
	for _, w := range windows {
		if w.since.Before(since) {
			since = w.since
		}
	}
	spent, err := Recorded(ctx, st, since)
	if err != nil {
		return nil, fmt.Errorf("check the budget: %w", err)
	}
	delete(spent.runs, run)
	var refused []string
	for _, w := range windows {
		s := spent.Since(w.since)
		c := w.cap
		c.Before = float64(s.Tokens)
		if !c.Tokens {
			c.Before = s.USD
		}
		if c.Reached(cost.Spend{}) {
			refused = append(refused, c.Describe(cost.Spend{}))
		}
		caps = append(caps, c)
	}
	if len(refused) > 0 {
		return nil, &RefusedError{Spent: refused}
	}
	return caps, nil
}

// window is a day's or a month's cap, counted since its start.
type window struct {
	cap   cost.Cap
	since time.Time
}

func windowCaps(b config.Budget, now time.Time) []window {
	now = now.UTC()
	day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	month := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	var out []window
	add := func(key, name string, since time.Time, tokens bool, limit float64) {
		if limit > 0 {
			out = append(out, window{cap: cost.Cap{Key: key, Window: name, Tokens: tokens, Limit: limit}, since: since})
		}
	}
	add("budget.max-tokens-per-day", windowDay, day, true, float64(b.MaxTokensPerDay))
	add("budget.max-usd-per-day", windowDay, day, false, b.MaxUSDPerDay)
	add("budget.max-tokens-per-month", windowMonth, month, true, float64(b.MaxTokensPerMonth))
	add("budget.max-usd-per-month", windowMonth, month, false, b.MaxUSDPerMonth)
	return out
}

// Spending is what the runs in a ledger window spent, run by run.
type Spending struct {
	runs map[string]runSpend
}

// runSpend is a run's totals as its latest entry in the window records
// them (a paused run's checkpoint, then its run entry).
type runSpend struct {
	seq    int64
	time   time.Time
	tokens int64
	usd    float64
}

// Window is what was spent in total.
type Window struct {
	// Tokens and USD sum the runs' totals; a run whose cost is unknown
	// adds its tokens and no dollars.
	Tokens int64
	USD    float64
	// Runs counts the runs.
	Runs int
}

// Since sums the runs whose latest entry was recorded at or after t.
func (s Spending) Since(t time.Time) Window {
	var w Window
	for _, r := range s.runs {
		if r.time.Before(t) {
			continue
		}
		w.Tokens += r.tokens
		w.USD += r.usd
		w.Runs++
	}
	return w
}

// Recorded reads what the ledger in st recorded since t: the totals of
// each run entry and of each paused run's checkpoint entry (a run counts
// once, by its latest entry). Entries written before runs recorded their
// totals are summed from their results.
func Recorded(ctx context.Context, st ledger.Store, since time.Time) (Spending, error) {
	s := Spending{runs: map[string]runSpend{}}
	err := ledger.ReadWindow(ctx, st, since, func(e ledger.WindowEntry) error {
		if e.Kind != ledger.KindRun && e.Kind != ledger.KindCheckpoint {
			return nil
		}
		if old, ok := s.runs[e.Run]; ok && old.seq > e.Seq {
			return nil
		}
		r := runSpend{seq: e.Seq, time: e.Time, tokens: e.Tokens, usd: e.CostUSD}
		if !e.HasTokens {
			if e.Kind != ledger.KindRun {
				return nil // an older checkpoint: its run entry counts
			}
			var err error
			if r.tokens, r.usd, err = fromResults(e.Line); err != nil {
				return fmt.Errorf("run %s (seq %d): %w", e.Run, e.Seq, err)
			}
		}
		s.runs[strings.Clone(e.Run)] = r // not the line's memory, kept for the window
		return nil
	})
	return s, err
}

// fromResults sums the tokens and costs a run entry's results recorded.
func fromResults(line []byte) (tokens int64, usd float64, err error) {
	var entry struct {
		Results []struct {
			TokensIn  int64    `json:"tokens_in"`
			TokensOut int64    `json:"tokens_out"`
			CostUSD   *float64 `json:"cost_usd"`
		} `json:"results"`
	}
	if err := json.Unmarshal(line, &entry); err != nil {
		return 0, 0, fmt.Errorf("read its results: %w", err)
	}
	for _, r := range entry.Results {
		tokens += r.TokensIn + r.TokensOut
		if r.CostUSD != nil {
			usd += *r.CostUSD
		}
	}
	return tokens, usd, nil
}
