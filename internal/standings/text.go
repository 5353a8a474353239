package standings

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/optr-dev/optr/internal/cost"
	"github.com/optr-dev/optr/internal/markdown"
	"github.com/optr-dev/optr/internal/progress"
)

// The groupings of `optr ledger stats --by`.
const (
	ByAgent      = "agent"
	ByModel      = "model"
	ByConstraint = "constraint"
	ByWorkflow   = "workflow"
)

// Bys are the groupings, in the order help lists them.
var Bys = []string{ByAgent, ByModel, ByConstraint, ByWorkflow}

// Text writes the standings grouped by by as a table for a terminal.
// Names come from the ledger: control characters are removed, so no
// recorded name can move the cursor or recolour the terminal.
func Text(w io.Writer, s *Standings, by string) error {
	fmt.Fprintf(w, "%s\n", window(s))
	if by == ByAgent || by == ByModel {
		fmt.Fprintf(w, "%s\n", ranking(s))
	}
	if !s.Verified {
		fmt.Fprintf(w, "%s\n", unverified)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(cells ...string) {
		for i, c := range cells {
			cells[i] = strings.ReplaceAll(c, "\t", " ")
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	switch by {
	case ByConstraint:
		row("CONSTRAINT", "CHECKED", "PASSED", "PASS RATE")
		for _, c := range s.Constraints {
			row(name(c.Constraint), fmt.Sprint(c.Checked), fmt.Sprint(c.Passed), percent(c.PassRate))
		}
	case ByWorkflow:
		row("WORKFLOW", "RUNS", "OUTCOMES")
		for _, wf := range s.Workflows {
			row(name(wf.Workflow), fmt.Sprint(wf.Runs), outcomes(wf.Outcomes))
		}
	default:
		head, rows := "AGENT", s.Agents
		if by == ByModel {
			head, rows = "MODEL", s.Models
		}
		row(head, "RUNS", "WINS", "WIN RATE", "ADMISSIBLE", "MEDIAN EXEC", "P90 EXEC", "TOKENS", "COST", "COST PER WIN",
			"PRS", "MERGED", "MERGE RATE", "MEDIAN TO MERGE", "REVERTED", "COST PER MERGED")
		for _, a := range rows {
			row(name(a.Name()), fmt.Sprint(a.Runs), fmt.Sprint(a.Selected), percent(a.WinRate), percent(a.AdmissibleRate),
				execTime(a.ExecMSMedian), execTime(a.ExecMSP90), tokensCell(a), costCell(a), cost.FormatUSD(a.CostPerWinUSD),
				fmt.Sprint(a.PullRequests), mergedCell(a), rate(a.MergeRate), toMerge(a), fmt.Sprint(a.Reverted), perMergedCell(a))
		}
	}
	return tw.Flush()
}

// unverified is what the standings say when the ledger was not verified.
const unverified = "The ledger was not verified (--no-verify): these figures are what its lines say, whoever wrote them."

// window says which runs and outcomes the standings are of.
func window(s *Standings) string {
	what := plural(s.Runs, "run", "runs")
	if s.Outcomes > 0 {
		what += " and " + plural(s.Outcomes, "outcome", "outcomes")
	}
	return fmt.Sprintf("Standings of %s recorded from %s to %s (UTC).", what,
		s.Since.Format(time.DateOnly), s.Until.Format(time.DateOnly))
}

// ranking says how the agents are ranked: by merge rate once people
// merged or closed their changes (and how many), by win rate before.
func ranking(s *Standings) string {
	if s.Outcomes == 0 {
		return "Ranked by win rate: no pull request optr opened was merged or closed in that time."
	}
	return fmt.Sprintf("Ranked by merge rate where people merged or closed an agent's changes (%s in that time), then by win rate.",
		plural(s.Outcomes, "pull request", "pull requests"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// name is a name the ledger recorded, as standings show it: valid UTF-8
// on one line, at most 64 characters, without control characters or
// format characters (bidirectional overrides, zero-width characters), so
// that no recorded name can move a terminal's cursor, recolour it, or
// show itself reversed.
func name(s string) string { return markdown.OneLine(s, 64) }

func percent(r float64) string { return fmt.Sprintf("%.1f%%", 100*r) }

// rate is a rate that may be unknown ("-").
func rate(r *float64) string {
	if r == nil {
		return "-"
	}
	return percent(*r)
}

// mergedCell is how many of an agent's decided changes were merged.
func mergedCell(a Agent) string {
	if a.Decided() == 0 {
		return "-"
	}
	return fmt.Sprintf("%d/%d", a.Merged, a.Decided())
}

// toMerge is the median time to merge.
func toMerge(a Agent) string {
	if a.MedianTimeToMergeMS == nil {
		return "-"
	}
	return progress.Duration(time.Duration(*a.MedianTimeToMergeMS) * time.Millisecond)
}

// perMergedCell is the cost per merged change, saying how many merges it
// covers when not all of them could be priced.
func perMergedCell(a Agent) string {
	c := cost.FormatUSD(a.CostPerMergedUSD)
	if a.CostPerMergedUSD != nil && a.PricedMerged < a.Merged {
		c += fmt.Sprintf(" (%d/%d merges priced)", a.PricedMerged, a.Merged)
	}
	return c
}

func execTime(ms int64) string {
	if ms <= 0 {
		return "-"
	}
	return progress.Duration(time.Duration(ms) * time.Millisecond)
}

// tokensCell is an agent's tokens, "-" when none of its runs' are known,
// saying how many of its runs they cover when not all of them.
func tokensCell(a Agent) string {
	if a.Tokens == nil {
		return "-"
	}
	c := progress.Thousands(*a.Tokens)
	if *a.Tokens == 0 {
		c = "0"
	}
	if a.MeteredRuns < a.Runs {
		c += fmt.Sprintf(" (%d/%d runs metered)", a.MeteredRuns, a.Runs)
	}
	return c
}

// costCell is an agent's cost, saying how many of its runs it covers when
// not all of them could be priced.
func costCell(a Agent) string {
	c := cost.FormatUSD(a.CostUSD)
	if a.CostUSD != nil && a.PricedRuns < a.Runs {
		c += fmt.Sprintf(" (%d/%d runs priced)", a.PricedRuns, a.Runs)
	}
	return c
}

// outcomes lists a workflow's outcomes, most frequent first.
func outcomes(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if m[a] != m[b] {
			return m[b] - m[a]
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", name(k), m[k])
	}
	return strings.Join(parts, ", ")
}

// JSONView is what `optr ledger stats --json` prints: the window and the
// figures grouped by By (only that group's member is set).
type JSONView struct {
	Since    time.Time `json:"since"`
	Until    time.Time `json:"until"`
	Runs     int       `json:"runs"`
	Outcomes int       `json:"outcomes"`
	// Verified is false when the ledger was read with --no-verify.
	Verified    bool          `json:"verified"`
	By          string        `json:"by"`
	Agents      *[]Agent      `json:"agents,omitempty"`
	Models      *[]Agent      `json:"models,omitempty"`
	Constraints *[]Constraint `json:"constraints,omitempty"`
	Workflows   *[]Workflow   `json:"workflows,omitempty"`
}

// View is the JSON view of s grouped by by; an empty group is [].
func View(s *Standings, by string) JSONView {
	v := JSONView{Since: s.Since, Until: s.Until, Runs: s.Runs, Outcomes: s.Outcomes, Verified: s.Verified, By: by}
	switch by {
	case ByModel:
		ms := nonNil(s.Models)
		v.Models = &ms
	case ByConstraint:
		cs := nonNil(s.Constraints)
		v.Constraints = &cs
	case ByWorkflow:
		ws := nonNil(s.Workflows)
		v.Workflows = &ws
	default:
		v.By = ByAgent
		as := nonNil(s.Agents)
		v.Agents = &as
	}
	return v
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
