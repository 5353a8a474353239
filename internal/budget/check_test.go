package budget

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/cost"
	"github.com/optr-dev/optr/internal/ledger"
)

var now = time.Date(2026, 11, 25, 15, 0, 0, 0, time.UTC)

// history writes a ledger: runs of other months, of earlier this month and
// of today, a paused run whose checkpoint and run entries both count once,
// and a run recorded before runs had totals.
func history(t *testing.T) string {
	t.Helper()
	run := func(id string, at time.Time, tokens int64, usd float64) ledger.Draft {
		f := map[string]any{"tokens": tokens, "results": []any{}}
		if usd >= 0 {
			f["cost_usd"] = usd
		}
		return ledger.Draft{Kind: ledger.KindRun, Run: id, Workflow: "w", Time: at, Fields: f}
	}
	cp := run("paused", now.Add(-2*time.Hour), 500, 0.50)
	cp.Kind, cp.Fields = ledger.KindCheckpoint, map[string]any{"tokens": int64(500), "cost_usd": 0.50, "checkpoint": "c1"}
	old := ledger.Draft{Kind: ledger.KindRun, Run: "old", Workflow: "w", Time: now.Add(-3 * time.Hour), Fields: map[string]any{
		"results": []any{
			map[string]any{"agent": "a", "tokens_in": int64(100), "tokens_out": int64(20), "cost_usd": 0.02},
			map[string]any{"agent": "b", "tokens_in": int64(50), "tokens_out": int64(5)},
		},
	}}
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	if _, err := ledger.Append(path,
		run("october", time.Date(2026, 10, 31, 23, 0, 0, 0, time.UTC), 10_000, 9),
		run("early", time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC), 2_000, 1.25),
		run("yesterday", now.Add(-24*time.Hour), 1_000, 0.75),
		old,
		cp,
		run("unknown", now.Add(-90*time.Minute), 300, -1), // a cost optr could not know: its tokens count
		run("paused", now.Add(-time.Hour), 800, 0.80),     // the paused run, finished: counts once
	); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestRecordedSumsEachRunOnce(t *testing.T) {
	t.Parallel()
	s, err := Recorded(t.Context(), ledger.Local(history(t)), time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	day := s.Since(time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC))
	if want := (Window{Tokens: 175 + 300 + 800, USD: 0.02 + 0.80, Runs: 3}); !windowNear(day, want) {
		t.Errorf("today = %+v, want %+v", day, want)
	}
	month := s.Since(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
	if want := (Window{Tokens: 2_000 + 1_000 + 175 + 300 + 800, USD: 1.25 + 0.75 + 0.02 + 0.80, Runs: 5}); !windowNear(month, want) {
		t.Errorf("this month = %+v, want %+v", month, want)
	}
}

func windowNear(a, b Window) bool {
	return a.Tokens == b.Tokens && a.Runs == b.Runs && a.USD-b.USD < 1e-9 && b.USD-a.USD < 1e-9
}

func TestCheck(t *testing.T) {
	t.Parallel()
	path := history(t)
	tests := []struct {
		name    string
		b       config.Budget
		caps    []string // Describe of each cap before the run spends anything
		refused string
	}{
		{"no window budget: the ledger is not read", config.Budget{MaxTokens: 10, MaxUSDPerRun: 1}, nil, ""},
		{"below the day's and month's budgets", config.Budget{MaxUSDPerDay: 5, MaxTokensPerMonth: 100_000}, []string{
			"budget.max-usd-per-day: $0.82 of $5.00 spent today (UTC) (the known part: 2 earlier runs spent cost optr could not know, not counted)",
			"budget.max-tokens-per-month: 4275 tokens of 100000 tokens spent this month (UTC)",
		}, ""},
		{"the day's dollars spent", config.Budget{MaxUSDPerDay: 0.5, MaxUSDPerMonth: 100}, nil,
			"budget.max-usd-per-day: $0.82 of $0.50 spent today (UTC)"},
		{"the month's tokens spent", config.Budget{MaxTokensPerDay: 1_000_000, MaxTokensPerMonth: 4_000}, nil,
			"budget.max-tokens-per-month: 4275 tokens of 4000 tokens spent this month (UTC)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st := &reads{Store: ledger.Local(path)}
			caps, err := Check(t.Context(), st, tt.b, now, "new")
			if tt.refused != "" {
				var re *RefusedError
				if !errors.As(err, &re) || !strings.Contains(err.Error(), tt.refused) || !strings.Contains(err.Error(), "Raise the budget") {
					t.Fatalf("Check = %v, want a refusal saying %q", err, tt.refused)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range caps {
				got = append(got, c.Describe(cost.Spend{}))
			}
			if diff := cmp.Diff(tt.caps, got); diff != "" {
				t.Errorf("caps (-want +got):\n%s", diff)
			}
			if tt.caps == nil && st.n.Load() != 0 {
				t.Errorf("the ledger was read %d times without a day's or month's budget", st.n.Load())
			}
		})
	}
}

// TestCapsStopTheRunAtTheDaysBudget: the day's cap counts what the run
// spends on top of what the day had spent.
func TestCapsStopTheRunAtTheDaysBudget(t *testing.T) {
	t.Parallel()
	caps, err := Check(t.Context(), ledger.Local(history(t)), config.Budget{MaxUSDPerDay: 1}, now, "new")
	if err != nil || len(caps) != 1 {
		t.Fatalf("Check = %v, %v", caps, err)
	}
	if caps[0].Reached(cost.Spend{USD: 0.17}) || !caps[0].Reached(cost.Spend{USD: 0.18}) {
		t.Errorf("with $0.82 spent today, a cap of $1 is reached at $%g more", caps[0].Limit-caps[0].Before)
	}
}

// TestCheckLeavesOutTheRunItself: a paused run carried on is checked
// without what it had spent (its meter starts from that): counted twice,
// its own spend refused it.
func TestCheckLeavesOutTheRunItself(t *testing.T) {
	t.Parallel()
	b := config.Budget{MaxUSDPerDay: 0.5}
	if _, err := Check(t.Context(), ledger.Local(history(t)), b, now, "another"); err == nil {
		t.Fatal("Check of another run = nil, want today's $0.82 refused")
	}
	caps, err := Check(t.Context(), ledger.Local(history(t)), b, now, "paused")
	if err != nil || len(caps) != 1 {
		t.Fatalf("Check of the paused run = %v, %v; want its cap without its own $0.80", caps, err)
	}
	if got, want := caps[0].Describe(cost.Spend{}), "budget.max-usd-per-day: $0.02 of $0.50 spent today (UTC) (the known part: 2 earlier runs spent cost optr could not know, not counted)"; got != want {
		t.Errorf("cap = %q, want %q", got, want)
	}
}

func TestRunCaps(t *testing.T) {
	t.Parallel()
	if caps := RunCaps(config.Budget{}); caps != nil {
		t.Errorf("no budget: %v", caps)
	}
	caps := RunCaps(config.Budget{MaxTokens: 100, MaxUSDPerRun: 0.25, MaxUSDPerDay: 3})
	want := []cost.Cap{
		{Key: "budget.max-tokens", Window: "this run", Tokens: true, Limit: 100},
		{Key: "budget.max-usd-per-run", Window: "this run", Limit: 0.25},
	}
	if diff := cmp.Diff(want, caps); diff != "" {
		t.Errorf("RunCaps (-want +got):\n%s", diff)
	}
}

// reads counts the reads of a store.
type reads struct {
	ledger.Store
	n atomic.Int64
}

func (r *reads) Active(ctx context.Context) (io.ReadCloser, error) {
	r.n.Add(1)
	return r.Store.Active(ctx)
}

// Figures a ledger optr wrote never holds are refused, naming the entry,
// even in a ledger that verifies: a negative total or result, a later
// entry of a run that records less than an earlier one. A later entry
// whose cost is unknown lowers nothing, and is summed by its tokens.
func TestRecordedRefusesFiguresOptrNeverWrites(t *testing.T) {
	t.Parallel()
	at := now.Add(-time.Hour)
	entry := func(kind, id string, f map[string]any) ledger.Draft {
		return ledger.Draft{Kind: kind, Run: id, Workflow: "w", Time: at, Fields: f}
	}
	totals := func(tokens int64, usd any) map[string]any {
		f := map[string]any{"tokens": tokens, "results": []any{}}
		if usd != nil {
			f["cost_usd"] = usd
		}
		return f
	}
	for _, tc := range []struct {
		name    string
		entries []ledger.Draft
		want    string // "" when it sums
		usd     float64
		tokens  int64
		// sealed, when not 0, is how many of the entries are moved into a
		// sealed segment: the window is read newest segment first.
		sealed int
	}{
		{"a negative cost", []ledger.Draft{entry(ledger.KindRun, "a", totals(10, 1.0)), entry(ledger.KindRun, "b", totals(10, -100.0))},
			"ledger entry 2 (run b) cannot be counted against the budget: it records a negative spend", 0, 0, 0},
		{"negative tokens", []ledger.Draft{entry(ledger.KindRun, "a", totals(-10, nil))},
			"ledger entry 1 (run a)", 0, 0, 0},
		{"a negative result", []ledger.Draft{entry(ledger.KindRun, "a", map[string]any{"results": []any{
			map[string]any{"agent": "x", "tokens_in": int64(5), "cost_usd": 2.0},
			map[string]any{"agent": "y", "tokens_in": int64(5), "cost_usd": -1.5}}})},
			"one of its results records a negative spend", 0, 0, 0},
		{"a later run entry with $0", []ledger.Draft{entry(ledger.KindRun, "a", totals(10, 5.0)), entry(ledger.KindRun, "a", totals(10, 0.0))},
			"ledger entry 2 (run a) cannot be counted against the budget: it records 10 tokens and $0 for the run, less than entry 1 did", 0, 0, 0},
		{"a run entry below its checkpoint", []ledger.Draft{entry(ledger.KindCheckpoint, "a", totals(500, 0.5)), entry(ledger.KindRun, "a", totals(400, 0.5))},
			"less than entry 1 did (500 tokens", 0, 0, 0},
		{"a run entry whose cost became unknown", []ledger.Draft{entry(ledger.KindCheckpoint, "a", totals(500, 0.5)), entry(ledger.KindRun, "a", totals(800, nil))},
			"", 0, 800, 0},
		{"a run entry above its checkpoint", []ledger.Draft{entry(ledger.KindCheckpoint, "a", totals(500, 0.5)), entry(ledger.KindRun, "a", totals(800, 0.8))},
			"", 0.8, 800, 0},
		{"a run entry after its checkpoints, in the segment after theirs", []ledger.Draft{entry(ledger.KindCheckpoint, "a", totals(500, 0.5)), entry(ledger.KindCheckpoint, "a", totals(600, 0.6)), entry(ledger.KindRun, "a", totals(800, 0.8))},
			"", 0.8, 800, 2},
		{"a run entry below its checkpoint in the segment before", []ledger.Draft{entry(ledger.KindCheckpoint, "a", totals(500, 0.5)), entry(ledger.KindCheckpoint, "a", totals(600, 0.6)), entry(ledger.KindRun, "a", totals(400, 0.8))},
			"ledger entry 3 (run a) cannot be counted against the budget: it records 400 tokens and $0.8 for the run, less than entry 2 did (600 tokens", 0, 0, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "ledger.jsonl")
			if _, err := ledger.Append(path, tc.entries...); err != nil {
				t.Fatal(err)
			}
			if tc.sealed > 0 {
				seal(t, path, tc.sealed)
			}
			s, err := Recorded(t.Context(), ledger.Local(path), now.Add(-24*time.Hour))
			if tc.want != "" {
				var ue *UntrustedError
				if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("Recorded = %v; want an *UntrustedError saying %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if w := s.Since(now.Add(-24 * time.Hour)); w.USD != tc.usd || w.Tokens != tc.tokens || w.Runs != 1 {
				t.Errorf("Since = %+v; want $%g, %d tokens, 1 run", w, tc.usd, tc.tokens)
			}
		})
	}
}

// An edit in the window that the chain does not carry (a cost lowered
// where it stands) is an error naming the line, not a smaller sum.
func TestRecordedReadsOnlyAWindowThatVerifies(t *testing.T) {
	t.Parallel()
	path := history(t)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	edited := bytes.Replace(data, []byte(`"cost_usd":0.8,`), []byte(`"cost_usd":0,`), 1)
	if bytes.Equal(edited, data) {
		t.Fatal("no cost to edit")
	}
	if err := os.WriteFile(path, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Recorded(t.Context(), ledger.Local(path), now.Add(-24*time.Hour))
	var verr *ledger.VerifyError
	if !errors.As(err, &verr) || verr.Line != 7 {
		t.Fatalf("Recorded = %v; want a *ledger.VerifyError at line 7", err)
	}
}

// TestKnownPartCounts: a run whose cost was partly unknown (an agent no
// price covers beside one that is priced) counts its known part toward
// the day's budget, and the refusal says that some spend was unknown; a
// run nothing of whose spend is known counts nothing, and is named too.
func TestKnownPartCounts(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	run := func(id string, f map[string]any) ledger.Draft {
		f["results"] = []any{}
		return ledger.Draft{Kind: ledger.KindRun, Run: id, Workflow: "w", Time: now.Add(-time.Hour), Fields: f}
	}
	if _, err := ledger.Append(path,
		run("part", map[string]any{"tokens": int64(900), "cost_usd": 0.6, "cost_unknown": true}),
		run("none", map[string]any{"tokens": nil, "cost_usd": nil, "tokens_unknown": true, "cost_unknown": true}),
	); err != nil {
		t.Fatal(err)
	}
	_, err := Check(t.Context(), ledger.Local(path), config.Budget{MaxUSDPerDay: 0.5}, now, "new")
	want := "budget.max-usd-per-day: $0.60 of $0.50 spent today (UTC) (the known part: 2 earlier runs spent cost optr could not know, not counted)"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Check = %v, want a refusal saying %q", err, want)
	}
	caps, err := Check(t.Context(), ledger.Local(path), config.Budget{MaxTokensPerDay: 1000}, now, "new")
	if err != nil || len(caps) != 1 || caps[0].Before != 900 || caps[0].UnknownBefore != 1 {
		t.Errorf("the day's tokens = %+v, %v; want the known 900, one run of unknown tokens", caps, err)
	}
}

// seal moves the first n entries of the ledger at path into a sealed
// segment, as Append does when the active segment is full.
func seal(t *testing.T, path string, n int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	if err := os.MkdirAll(ledger.SegmentDir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ledger.SegmentDir(path), ledger.SegmentName(1, int64(n))), bytes.Join(lines[:n], nil), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, bytes.Join(lines[n:], nil), 0o644); err != nil {
		t.Fatal(err)
	}
}
