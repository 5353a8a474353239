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
	ByConstraint = "constraint"
	ByWorkflow   = "workflow"
)

// Bys are the groupings, in the order help lists them.
var Bys = []string{ByAgent, ByConstraint, ByWorkflow}

// Text writes the standings grouped by by as a table for a terminal.
// Names come from the ledger: control characters are removed, so no
// recorded name can move the cursor or recolour the terminal.
func Text(w io.Writer, s *Standings, by string) error {
	fmt.Fprintf(w, "%s\n\n", window(s))
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
		row("AGENT", "RUNS", "WINS", "WIN RATE", "ADMISSIBLE", "MEDIAN EXEC", "P90 EXEC", "TOKENS", "COST", "COST PER WIN")
		for _, a := range s.Agents {
			row(name(a.Agent), fmt.Sprint(a.Runs), fmt.Sprint(a.Selected), percent(a.WinRate), percent(a.AdmissibleRate),
				execTime(a.ExecMSMedian), execTime(a.ExecMSP90), dash(progress.Thousands(a.Tokens)), costCell(a), cost.FormatUSD(a.CostPerWinUSD))
		}
	}
	return tw.Flush()
}

// window says which runs the standings are of.
func window(s *Standings) string {
	runs := "runs"
	if s.Runs == 1 {
		runs = "run"
	}
	return fmt.Sprintf("Standings of %d %s recorded from %s to %s (UTC).", s.Runs, runs,
		s.Since.Format(time.DateOnly), s.Until.Format(time.DateOnly))
}

func name(s string) string { return markdown.OneLine(s, 64) }

func percent(r float64) string { return fmt.Sprintf("%.1f%%", 100*r) }

func execTime(ms int64) string {
	if ms <= 0 {
		return "-"
	}
	return progress.Duration(time.Duration(ms) * time.Millisecond)
}

func dash(s string) string {
	if s == "—" {
		return "-"
	}
	return s
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
	Since       time.Time     `json:"since"`
	Until       time.Time     `json:"until"`
	Runs        int           `json:"runs"`
	By          string        `json:"by"`
	Agents      *[]Agent      `json:"agents,omitempty"`
	Constraints *[]Constraint `json:"constraints,omitempty"`
	Workflows   *[]Workflow   `json:"workflows,omitempty"`
}

// View is the JSON view of s grouped by by; an empty group is [].
func View(s *Standings, by string) JSONView {
	v := JSONView{Since: s.Since, Until: s.Until, Runs: s.Runs, By: by}
	switch by {
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
