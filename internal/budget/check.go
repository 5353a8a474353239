package budget

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
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
		c.Before, c.UnknownBefore = float64(s.Tokens), s.TokensUnknown
		if !c.Tokens {
			c.Before, c.UnknownBefore = s.USD, s.CostUnknown
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
	runs map[string]runEntries
}

// runEntries are a run's entries in the window: the latest, which
// counts, and where the last one read is among all the window's entries
// (see Recorded).
type runEntries struct {
	runSpend
	last int
}

// runSpend is a run's totals as its latest entry in the window records
// them (a paused run's checkpoint, then its run entry).
type runSpend struct {
	seq    int64
	time   time.Time
	tokens int64
	usd    float64
	// hasUSD is false when nothing of the entry's cost was known.
	hasUSD bool
	// tokensUnknown and costUnknown say that a part of tokens or of usd
	// is unknown: they are the known part (architecture §4.17).
	tokensUnknown, costUnknown bool
}

// Window is what was spent in total.
type Window struct {
	// Tokens and USD sum the runs' totals: the known part, a run whose
	// spend was partly unknown adding what of it is known.
	Tokens int64
	USD    float64
	// Runs counts the runs; TokensUnknown and CostUnknown those whose
	// tokens or cost were partly or wholly unknown, which a cap counts by
	// their known part and names in its message.
	Runs                       int
	TokensUnknown, CostUnknown int
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
		if r.tokensUnknown {
			w.TokensUnknown++
		}
		if r.costUnknown {
			w.CostUnknown++
		}
	}
	return w
}

// Recorded reads what the ledger in st recorded since t: the totals of
// each run entry and of each paused run's checkpoint entry (a run counts
// once, by its latest entry). Entries written before runs recorded their
// totals are summed from their results.
//
// The figures are trusted only as far as they are verified (architecture
// §4.17): the window is read with ledger.ReadVerifiedWindow, so a line
// edited in it (a cost lowered, a time moved out of the window) is an
// error naming it, not a smaller sum; and, as a ledger optr wrote never
// holds them, a negative figure, or a later entry of a run that records
// less than an earlier one did (spend only grows), is refused with an
// error naming the entries: a ledger re-chained after an edit verifies,
// but cannot so lower what it says was spent.
func Recorded(ctx context.Context, st ledger.Store, since time.Time) (Spending, error) {
	s := Spending{runs: map[string]runEntries{}}
	// Every entry's figures, each with the index of the entry of its run
	// read before it (-1: none), to check that spend only grows.
	var seen []seenSpend
	err := ledger.ReadVerifiedWindow(ctx, st, since, func(e ledger.WindowEntry) error {
		if e.Kind != ledger.KindRun && e.Kind != ledger.KindCheckpoint {
			return nil
		}
		r := runSpend{seq: e.Seq, time: e.Time, tokens: e.Tokens, usd: e.CostUSD, hasUSD: e.HasCost,
			tokensUnknown: e.TokensUnknown, costUnknown: e.CostUnknown}
		totals := e.HasTokens || e.TokensUnknown
		if !totals && e.Kind != ledger.KindRun {
			return nil // an older checkpoint: its run entry counts
		}
		if !totals || (!e.HasCost && !e.CostUnknown) {
			// An entry written before runs recorded their totals, or
			// before an unknown cost was flagged (it was left out): its
			// results hold the known part.
			f, err := fromResults(e.Line)
			if errors.Is(err, errNegative) {
				return &UntrustedError{Seq: e.Seq, Run: strings.Clone(e.Run), Reason: "one of its results records a negative spend"}
			} else if err != nil {
				return fmt.Errorf("run %s (seq %d): %w", e.Run, e.Seq, err)
			}
			if !totals {
				r.tokens, r.tokensUnknown = f.tokens, f.tokensUnknown
			}
			r.usd, r.hasUSD, r.costUnknown = f.usd, f.hasUSD, f.costUnknown || e.HasTokens
		}
		if r.tokens < 0 || r.usd < 0 {
			return &UntrustedError{Seq: e.Seq, Run: strings.Clone(e.Run), Reason: fmt.Sprintf("it records a negative spend (%d tokens, $%g)", r.tokens, r.usd)}
		}
		// e.Run is the entry's own string, not the line's memory: kept.
		old, ok := s.runs[e.Run]
		latest := runEntries{runSpend: r, last: len(seen)}
		if !ok {
			seen = append(seen, seenSpend{r, -1})
		} else {
			seen = append(seen, seenSpend{r, old.last})
			if old.seq > e.Seq {
				latest.runSpend = old.runSpend
			}
		}
		s.runs[e.Run] = latest
		return nil
	})
	if err != nil {
		return Spending{}, err
	}
	for run, r := range s.runs {
		if err := growing(run, seen, r.last); err != nil {
			return Spending{}, err
		}
	}
	return s, nil
}

// seenSpend is an entry's figures and the index of the entry of its run
// read before it (-1: none).
type seenSpend struct {
	runSpend
	before int
}

// growing checks that the entries of run (seen[last], the last read, and
// those before it by seenSpend.before, in any order) record a spend that
// never shrinks from one entry to the next: a later entry of the same run
// that records fewer tokens, or fewer dollars where both costs are known,
// supersedes a spend with a smaller one, which optr never writes (a
// carried-on run's meter starts from what it had spent).
func growing(run string, seen []seenSpend, last int) error {
	if seen[last].before < 0 {
		return nil
	}
	var rs []runSpend
	for k := last; k >= 0; k = seen[k].before {
		rs = append(rs, seen[k].runSpend)
	}
	slices.SortFunc(rs, func(a, b runSpend) int { return cmp.Compare(a.seq, b.seq) })
	for i := 1; i < len(rs); i++ {
		prev, r := rs[i-1], rs[i]
		if r.tokens < prev.tokens || (r.hasUSD && prev.hasUSD && r.usd < prev.usd) {
			return &UntrustedError{Seq: r.seq, Run: run, Reason: fmt.Sprintf(
				"it records %d tokens and $%g for the run, less than entry %d did (%d tokens, $%g): a run's spend only grows",
				r.tokens, r.usd, prev.seq, prev.tokens, prev.usd)}
		}
	}
	return nil
}

// UntrustedError is a ledger entry whose figures the budget does not sum:
// a negative spend, or one smaller than an earlier entry of the same run
// recorded. optr never writes either, so the ledger was edited (and, if
// it verifies, re-chained after the edit).
type UntrustedError struct {
	// Seq and Run name the entry.
	Seq int64
	Run string
	// Reason says what is wrong with its figures.
	Reason string
}

// Error implements error.
func (e *UntrustedError) Error() string {
	return fmt.Sprintf("ledger entry %d (run %s) cannot be counted against the budget: %s. optr never records that, so the ledger was edited: run `optr ledger verify --witness` in a clone of the ledger branch to find where, and restore it from the last commit that verifies", e.Seq, e.Run, e.Reason)
}

// errNegative is a result that records a negative spend.
var errNegative = errors.New("a result records a negative spend")

// fromResults sums the tokens and costs a run entry's results recorded:
// the known part, whether any cost was known (hasUSD), and whether some
// part is unknown (a result whose tokens or cost are null, flagged, or
// left out).
func fromResults(line []byte) (runSpend, error) {
	var entry struct {
		Results []struct {
			TokensIn      *int64   `json:"tokens_in"`
			TokensOut     *int64   `json:"tokens_out"`
			CostUSD       *float64 `json:"cost_usd"`
			TokensUnknown bool     `json:"tokens_unknown"`
			CostUnknown   bool     `json:"cost_unknown"`
		} `json:"results"`
	}
	if err := json.Unmarshal(line, &entry); err != nil {
		return runSpend{}, fmt.Errorf("read its results: %w", err)
	}
	var s runSpend
	for _, r := range entry.Results {
		for _, t := range []*int64{r.TokensIn, r.TokensOut} {
			if t != nil && *t < 0 {
				return runSpend{}, errNegative
			}
			if t != nil {
				s.tokens += *t
			}
		}
		s.tokensUnknown = s.tokensUnknown || r.TokensUnknown || r.TokensIn == nil
		switch {
		case r.CostUSD != nil && *r.CostUSD < 0:
			return runSpend{}, errNegative
		case r.CostUSD != nil:
			s.usd, s.hasUSD = s.usd+*r.CostUSD, true
		}
		s.costUnknown = s.costUnknown || r.CostUnknown || r.CostUSD == nil
	}
	return s, nil
}
