package selection

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/cost"
)

var defaults = config.Selection{
	Weights:        config.Weights{Invariants: 40, TTV: 30, Exec: 20, Preference: 10},
	OnNoAdmissible: config.NoAdmissibleFail,
}

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

func TestSelectScoresAndRanks(t *testing.T) {
	t.Parallel()
	sel := defaults
	sel.Preference = []string{"b", "a"}
	got := Select([]Candidate{
		{Agent: "a", HasOutput: true, Admissible: true, Passed: 2, Verified: 2, TTV: ms(100), Exec: ms(100)},
		{Agent: "b", HasOutput: true, Admissible: false, Passed: 1, Verified: 2, TTV: ms(50), Exec: ms(200)},
		{Agent: "c", HasOutput: false},
	}, sel)
	want := Result{
		Rows: []Row{
			// b: 40*0.5 + 30*1 + 20*0.5 + 10*1 = 70; a: 40 + 15 + 20 + 5 = 80.
			{Agent: "a", Admissible: true, Candidate: true, Invariants: 40, TTV: 15, Exec: 20, Preference: 5, Score: 80, Rank: 1},
			{Agent: "b", Candidate: true, Invariants: 20, TTV: 30, Exec: 10, Preference: 10, Score: 70, Rank: 2},
			{Agent: "c"},
		},
		Selected: "a", Outcome: Admissible, Best: "a",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Select() mismatch (-want +got):\n%s", diff)
	}
}

func TestSelectPrefersAdmissibleOverHigherScore(t *testing.T) {
	t.Parallel()
	got := Select([]Candidate{
		{Agent: "fast-but-wrong", HasOutput: true, Passed: 1, Verified: 2, TTV: ms(1), Exec: ms(1)},
		{Agent: "slow-but-right", HasOutput: true, Admissible: true, Passed: 2, Verified: 2, TTV: ms(1000), Exec: ms(1000)},
	}, defaults)
	if got.Selected != "slow-but-right" || got.Best != "fast-but-wrong" {
		t.Fatalf("Selected = %q, Best = %q", got.Selected, got.Best)
	}
	if got.Rows[0].Agent != "slow-but-right" || got.Rows[0].Rank != 1 {
		t.Fatalf("π* is not ranked first: %+v", got.Rows)
	}
}

func TestSelectTieBreakIsDeterministic(t *testing.T) {
	t.Parallel()
	same := func(name string, exec int) Candidate {
		return Candidate{Agent: name, HasOutput: true, Admissible: true, TTV: ms(10), Exec: ms(exec)}
	}
	// Equal scores need equal exec ratios: both at the fastest time.
	for _, order := range [][]Candidate{{same("beta", 10), same("alpha", 10)}, {same("alpha", 10), same("beta", 10)}} {
		if got := Select(order, defaults); got.Selected != "alpha" {
			t.Fatalf("tie went to %q, want alpha (name order)", got.Selected)
		}
	}
}

func TestSelectNoAdmissiblePolicies(t *testing.T) {
	t.Parallel()
	cands := []Candidate{
		{Agent: "x", HasOutput: true, Passed: 0, Verified: 1, Exec: ms(5)},
		{Agent: "y", HasOutput: true, Passed: 1, Verified: 2, Exec: ms(5)},
	}
	tests := []struct {
		policy string
		want   Outcome
		sel    string
	}{
		{config.NoAdmissibleFail, NoAdmissible, ""},
		{config.NoAdmissibleCheckpoint, NoAdmissible, ""},
		{config.NoAdmissibleLeastBad, LeastBad, "y"},
	}
	for _, tt := range tests {
		sel := defaults
		sel.OnNoAdmissible = tt.policy
		got := Select(cands, sel)
		if got.Outcome != tt.want || got.Selected != tt.sel || got.Best != "y" {
			t.Errorf("%s: outcome %s selected %q best %q; want %s %q y", tt.policy, got.Outcome, got.Selected, got.Best, tt.want, tt.sel)
		}
	}
	if got := Select([]Candidate{{Agent: "dead"}}, defaults); got.Outcome != NoCandidate || got.Selected != "" {
		t.Errorf("no candidates: %+v", got)
	}
}

func TestSelectNoConstraintsGivesFullInvariants(t *testing.T) {
	t.Parallel()
	got := Select([]Candidate{{Agent: "a", HasOutput: true, Admissible: true, Exec: ms(3)}}, defaults)
	if got.Rows[0].Invariants != 40 || got.Rows[0].Score != 90 {
		t.Fatalf("row = %+v", got.Rows[0])
	}
}

// With prefer: cheaper, equal scores go to the lower cost, a known cost
// before an unknown one, and only then to the shorter execution time; with
// faster (or nothing written) the cost is never read.
func TestSelectPreferCheaper(t *testing.T) {
	t.Parallel()
	// Equal scores: every ratio at the best, so the exec tie-break and the
	// name would pick "fast".
	cand := func(name string, exec int, spent cost.Spend) Candidate {
		return Candidate{Agent: name, HasOutput: true, Admissible: true, TTV: ms(10), Exec: ms(exec), Spent: spent}
	}
	weights := config.Weights{Invariants: 40, TTV: 30}
	tests := []struct {
		name   string
		prefer string
		cands  []Candidate
		want   string
	}{
		{"faster by default", "", []Candidate{cand("fast", 10, usd(0.3)), cand("cheap", 20, usd(0.1))}, "fast"},
		{"faster", config.PreferFaster, []Candidate{cand("fast", 10, usd(0.3)), cand("cheap", 20, usd(0.1))}, "fast"},
		{"cheaper", config.PreferCheaper, []Candidate{cand("fast", 10, usd(0.3)), cand("cheap", 20, usd(0.1))}, "cheap"},
		{"a known cost before an unknown one", config.PreferCheaper, []Candidate{cand("fast", 10, unknown), cand("priced", 20, usd(5))}, "priced"},
		{"equal costs: the shorter time", config.PreferCheaper, []Candidate{cand("slow", 20, usd(0.1)), cand("fast", 10, usd(0.1))}, "fast"},
		{"both unknown: the shorter time", config.PreferCheaper, []Candidate{cand("slow", 20, unknown), cand("fast", 10, unknown)}, "fast"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sel := config.Selection{Weights: weights, OnNoAdmissible: config.NoAdmissibleFail, Prefer: tt.prefer}
			got := Select(tt.cands, sel)
			if got.Selected != tt.want || got.Rows[0].Score != got.Rows[1].Score {
				t.Errorf("Selected = %q, want %q (rows %+v)", got.Selected, tt.want, got.Rows)
			}
		})
	}
}

// A tie of scores goes to the agent whose changes people merged, not to
// one whose changes they closed, whatever the names and the order (and
// before the execution time); the choice says why in numbers. Evidence
// counts: no outcome yet stands between mostly merged and mostly closed.
func TestSelectTieBreakByOutcomes(t *testing.T) {
	t.Parallel()
	tied := func(name string, merged, closed int) Candidate {
		return Candidate{Agent: name, HasOutput: true, Admissible: true, TTV: ms(10), Exec: ms(10), Kept: Record{Merged: merged, Closed: closed}}
	}
	for _, tt := range []struct {
		name  string
		cands []Candidate
		want  string
		why   string
	}{
		{"merged over closed", []Candidate{tied("alpha", 0, 2), tied("beta", 3, 1)}, "beta",
			"beta tied with alpha at 90.00 and ranks first on what people did with their pull requests lately: beta's merged 3 of 4, alpha's merged 0 of 2"},
		{"merged over no outcome", []Candidate{tied("alpha", 0, 0), tied("beta", 2, 0)}, "beta", "no pull request merged or closed"},
		{"no outcome over closed", []Candidate{tied("alpha", 0, 3), tied("beta", 0, 0)}, "beta", "alpha's merged 0 of 3"},
		{"more evidence", []Candidate{tied("alpha", 1, 0), tied("beta", 9, 0)}, "beta", "merged 9 of 9"},
		{"same record: the name", []Candidate{tied("beta", 1, 1), tied("alpha", 1, 1)}, "alpha", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, order := range [][]Candidate{tt.cands, {tt.cands[1], tt.cands[0]}} {
				got := Select(order, defaults)
				if got.Selected != tt.want || !strings.Contains(got.TieBreak, tt.why) || (tt.why == "") != (got.TieBreak == "") {
					t.Errorf("Selected %q (tie break %q); want %q, saying %q", got.Selected, got.TieBreak, tt.want, tt.why)
				}
			}
		})
	}
	// A faster agent whose changes were closed does not win a tie of
	// scores against a slower one whose changes were merged; nor does
	// either over a higher score.
	fast, slow := tied("fast", 0, 2), tied("slow", 2, 0)
	slow.Exec = ms(10) // equal exec ratios need equal times: both the fastest
	if got := Select([]Candidate{fast, slow}, defaults); got.Selected != "slow" {
		t.Errorf("tie went to %q, want slow: merges before execution time", got.Selected)
	}
	better := tied("closer", 0, 5)
	worse := tied("merger", 5, 0)
	worse.Passed, worse.Verified = 1, 2
	better.Passed, better.Verified = 2, 2
	if got := Select([]Candidate{better, worse}, defaults); got.Selected != "closer" || got.TieBreak != "" {
		t.Errorf("outcomes outweighed a score: %+v", got)
	}
	// Among results none of which is admissible, the one "Proceed" takes.
	a, b := tied("a", 0, 2), tied("b", 2, 0)
	a.Admissible, b.Admissible = false, false
	if got := Select([]Candidate{a, b}, defaults); got.Best != "b" || got.TieBreak == "" {
		t.Errorf("Best = %q (%q); want b", got.Best, got.TieBreak)
	}
	// prefer: cheaper is the user's own tie-break: cost decides first,
	// and outcomes are not said to.
	cheap, dear := tied("cheap", 0, 3), tied("dear", 3, 0)
	cheap.Spent, dear.Spent = usd(0.01), usd(0.5)
	sel := defaults
	sel.Prefer = config.PreferCheaper
	if got := Select([]Candidate{dear, cheap}, sel); got.Selected != "cheap" || got.TieBreak != "" {
		t.Errorf("prefer cheaper: %q (%q); want cheap, the cost deciding", got.Selected, got.TieBreak)
	}
}

// usd is a spend whose cost is known; unknown one whose cost is not.
func usd(v float64) cost.Spend { return cost.Spend{USD: v} }

var unknown = cost.Spend{Unpriced: 1}

// Every value of selection.prefer has its tie-break here, and every
// tie-break here is a value config accepts.
func TestPreferencesAgree(t *testing.T) {
	t.Parallel()
	for _, p := range config.Prefers {
		if preferences[p] == nil {
			t.Errorf("selection.prefer: %s has no tie-break in preferences", p)
		}
	}
	for p := range preferences {
		if !slices.Contains(config.Prefers, p) {
			t.Errorf("the tie-break %s is not a value of selection.prefer (config.Prefers)", p)
		}
	}
}
