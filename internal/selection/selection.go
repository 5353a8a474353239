package selection

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/cost"
)

// Candidate is one agent's result as selection sees it.
type Candidate struct {
	// Agent is the result's name; Configured the configured agent
	// (agents.<name>) it is of, which selection.preference names — they
	// differ for a delegation's candidates, <agent>.<NNN>. An empty
	// Configured is Agent.
	Agent, Configured string
	// HasOutput is false for agents that produced nothing usable.
	HasOutput bool
	// Admissible is true when every hard constraint passed.
	Admissible bool
	// Passed counts constraints verified to hold; Verified counts
	// constraints that were checked at all (unverified ones are left out).
	Passed, Verified int
	// TTV is the agent's time-to-value; Exec its measured execution time.
	TTV, Exec time.Duration
	// Spent is everything spent for the result — its attempts, analyses,
	// judges and scans — settled before it is weighed; its cost is unknown
	// when a call could not be priced (an unpriced model, a command agent).
	Spent cost.Spend
	// Kept is what people did with the agent's changes lately: it breaks
	// a tie of scores (architecture §4.19).
	Kept Record
}

// configured is the configured agent c is a result of.
func (c Candidate) configured() string {
	if c.Configured != "" {
		return c.Configured
	}
	return c.Agent
}

// Record is what people did with an agent's pull requests lately: how
// many they merged and how many they closed unmerged.
type Record struct {
	Merged, Closed int
}

// Decided is how many of the agent's pull requests were merged or closed.
func (r Record) Decided() int { return r.Merged + r.Closed }

// kept is the share of the agent's changes people keep, as a tie-break
// weighs it: the merge rate with one merge and one close added (Laplace's
// rule), so 3 of 3 merged (0.8) is above no outcome yet (0.5), which is
// above 0 of 2 (0.25), and 10 of 10 above 1 of 1.
func (r Record) kept() float64 { return float64(r.Merged+1) / float64(r.Decided()+2) }

// String says the record in words: "merged 3 of 4", "no pull request
// merged or closed".
func (r Record) String() string {
	if r.Decided() == 0 {
		return "no pull request merged or closed"
	}
	return fmt.Sprintf("merged %d of %d", r.Merged, r.Decided())
}

// Row is one line of the score table.
type Row struct {
	Agent      string  `json:"agent"`
	Admissible bool    `json:"admissible"`
	Candidate  bool    `json:"candidate"`
	Invariants float64 `json:"invariants_score"`
	TTV        float64 `json:"ttv"`
	Exec       float64 `json:"exec"`
	Preference float64 `json:"preference"`
	Score      float64 `json:"score"`
	Rank       int     `json:"rank"`
}

// Outcome says how π* was chosen.
type Outcome string

// The selection outcomes.
const (
	// Admissible: π* passed every hard constraint.
	Admissible Outcome = "admissible"
	// LeastBad: no candidate was admissible; the best-scoring one was taken.
	LeastBad Outcome = "least-bad"
	// NoAdmissible: no candidate was admissible and the policy selects nothing
	// (fail), or a human must decide (checkpoint).
	NoAdmissible Outcome = "no-admissible"
	// NoCandidate: no agent produced output at all.
	NoCandidate Outcome = "no-candidate"
)

// Result is the score table and the choice.
type Result struct {
	// Rows are sorted best first (rank 1 first); non-candidates last.
	Rows []Row `json:"rows"`
	// Selected is π*'s agent name, empty when nothing was selected.
	Selected string  `json:"selected"`
	Outcome  Outcome `json:"outcome"`
	// Best is the best-scoring candidate whatever its admissibility (what
	// "Proceed" on a NO_ADMISSIBLE checkpoint would take).
	Best string `json:"best,omitempty"`
	// TieBreak says, when the agent ranked first (π*, or Best) tied on
	// score with another and what people did with their changes decided
	// between them, why in numbers; empty otherwise.
	TieBreak string `json:"tie_break,omitempty"`
}

// Select scores cands with the given weights and preference list and picks
// π* under policy (one of the config.NoAdmissible* values).
func Select(cands []Candidate, sel config.Selection) Result {
	w := sel.Weights
	minTTV, minExec := fastest(cands)
	rows := make([]Row, len(cands))
	for i, c := range cands {
		r := Row{Agent: c.Agent, Admissible: c.Admissible && c.HasOutput, Candidate: c.HasOutput}
		if c.HasOutput {
			r.Invariants = w.Invariants * share(c.Passed, c.Verified)
			r.TTV = w.TTV * ratio(minTTV, c.TTV)
			r.Exec = w.Exec * ratio(minExec, c.Exec)
			r.Preference = w.Preference * preference(sel.Preference, c.configured())
			r.Score = round2(r.Invariants + r.TTV + r.Exec + r.Preference)
			r.Invariants, r.TTV, r.Exec, r.Preference = round2(r.Invariants), round2(r.TTV), round2(r.Exec), round2(r.Preference)
		}
		rows[i] = r
	}
	byAgent := make(map[string]Candidate, len(cands))
	for _, c := range cands {
		byAgent[c.Agent] = c
	}
	slices.SortStableFunc(rows, func(a, b Row) int { return compare(a, b, byAgent, sel.Prefer) })
	res := Result{Rows: rows, Outcome: NoCandidate}
	for i := range rows {
		if rows[i].Candidate {
			rows[i].Rank = i + 1
		}
	}
	if len(rows) == 0 || !rows[0].Candidate {
		return res
	}
	res.Best = bestScore(rows)
	first := res.Best
	if rows[0].Admissible {
		first = rows[0].Agent
	}
	res.TieBreak = tieBreak(rows, first, byAgent, sel.Prefer)
	if rows[0].Admissible {
		res.Selected, res.Outcome = rows[0].Agent, Admissible
		return res
	}
	if sel.OnNoAdmissible == config.NoAdmissibleLeastBad {
		res.Selected, res.Outcome = res.Best, LeastBad
		return res
	}
	res.Outcome = NoAdmissible
	return res
}

// tieBreak says why first ranks above the candidates of its admissibility
// that tied with it on score, when their records differ: "codex tied with
// claude at 72.50 and ranks first on what people did with their pull
// requests lately: codex's merged 3 of 4, claude's merged 0 of 2". Empty
// when first tied with none, or only with agents of the same record (the
// time or the name broke the tie).
func tieBreak(rows []Row, first string, cands map[string]Candidate, prefer string) string {
	kept := func(agent string) Record { return cands[agent].Kept }
	costTied := func(agent string) bool {
		by := preferences[prefer]
		return by == nil || by(cands[agent], cands[first]) == 0
	}
	var lead Row
	for _, r := range rows {
		if r.Agent == first {
			lead = r
		}
	}
	var names, records []string
	for _, r := range rows {
		if r.Agent != first && r.Candidate && r.Admissible == lead.Admissible && r.Score == lead.Score && costTied(r.Agent) &&
			kept(r.Agent).kept() != kept(first).kept() {
			names = append(names, r.Agent)
			records = append(records, fmt.Sprintf("%s's %s", r.Agent, kept(r.Agent)))
		}
	}
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf("%s tied with %s at %.2f and ranks first on what people did with their pull requests lately: %s's %s, %s",
		first, strings.Join(names, ", "), lead.Score, first, kept(first), strings.Join(records, ", "))
}

// compare orders candidates first, admissible ones before the rest, then
// by score (higher first), by the tie-break prefer names (preferences),
// by what people did with the agent's changes (Record.kept, higher
// first), then by execution time (shorter first) and name; so rank 1 is
// π* whenever anything is admissible.
func compare(a, b Row, cands map[string]Candidate, prefer string) int {
	if a.Candidate != b.Candidate {
		if a.Candidate {
			return -1
		}
		return 1
	}
	if a.Admissible != b.Admissible {
		if a.Admissible {
			return -1
		}
		return 1
	}
	if a.Score != b.Score {
		if a.Score > b.Score {
			return -1
		}
		return 1
	}
	if by := preferences[prefer]; by != nil {
		if c := by(cands[a.Agent], cands[b.Agent]); c != 0 {
			return c
		}
	}
	if ka, kb := cands[a.Agent].Kept.kept(), cands[b.Agent].Kept.kept(); ka != kb {
		if ka > kb {
			return -1
		}
		return 1
	}
	if c := cmp.Compare(cands[a.Agent].Exec, cands[b.Agent].Exec); c != 0 {
		return c
	}
	return strings.Compare(a.Agent, b.Agent)
}

// preferences are the tie-breaks selection.prefer names (config.Prefers),
// each ordering two candidates of equal score: negative when a goes
// first, positive when b does, 0 when it cannot tell them apart. What
// people did with the agents' changes, the execution time and the name
// come after it.
var preferences = map[string]func(a, b Candidate) int{
	config.PreferFaster:  func(Candidate, Candidate) int { return 0 },
	config.PreferCheaper: func(a, b Candidate) int { return cheaper(a.Spent, b.Spent) },
}

// cheaper orders two spends by cost, lower first, a known one before an
// unknown one; 0 when neither is lower.
func cheaper(a, b cost.Spend) int {
	ca, knownA := a.Cost()
	cb, knownB := b.Cost()
	switch {
	case knownA != knownB:
		if knownA {
			return -1
		}
		return 1
	case !knownA:
		return 0
	}
	return cmp.Compare(ca, cb)
}

func fastest(cands []Candidate) (ttv, exec time.Duration) {
	ttv, exec = -1, -1
	for _, c := range cands {
		if !c.HasOutput {
			continue
		}
		if c.TTV > 0 && (ttv < 0 || c.TTV < ttv) {
			ttv = c.TTV
		}
		if c.Exec > 0 && (exec < 0 || c.Exec < exec) {
			exec = c.Exec
		}
	}
	return ttv, exec
}

// ratio is best/d in [0,1]; a zero or unknown duration counts as the best.
func ratio(best, d time.Duration) float64 {
	if best <= 0 || d <= 0 || d <= best {
		return 1
	}
	return float64(best) / float64(d)
}

func share(passed, verified int) float64 {
	if verified == 0 {
		return 1
	}
	return float64(passed) / float64(verified)
}

func preference(list []string, agent string) float64 {
	i := slices.Index(list, agent)
	if i < 0 {
		return 0
	}
	return float64(len(list)-i) / float64(len(list))
}

func round2(f float64) float64 { return math.Round(f*100) / 100 }

// bestScore is the best-scoring candidate regardless of admissibility (rows
// are sorted, so only the admissible prefix can hide a higher score).
func bestScore(rows []Row) string {
	best := rows[0]
	for _, r := range rows[1:] {
		if r.Candidate && r.Score > best.Score {
			best = r
		}
	}
	return best.Agent
}
