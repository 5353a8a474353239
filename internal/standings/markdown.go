package standings

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/optr-dev/optr/internal/cost"
	"github.com/optr-dev/optr/internal/markdown"
	"github.com/optr-dev/optr/internal/progress"
)

// summaryAgents bounds the agents the step summary shows: a chart of more
// bars is unreadable, and `optr ledger stats` lists them all.
const summaryAgents = 20

// Markdown renders the standings for the end of a step summary: a heading
// naming the window (span, "the last 30 days"), the agents' table, and two
// Mermaid xychart-beta charts GitHub draws — win rate and cost per agent.
// An agent whose cost is unknown is left out of the cost chart (a bar of
// 0 would call it free).
func Markdown(s *Standings, span string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### Standings over %s\n\n", span)
	if s.Runs == 0 {
		b.WriteString("No run was recorded in that time.\n")
		return b.String()
	}
	b.WriteString(window(s) + "\n\n")
	agents := s.Agents
	more := 0
	if len(agents) > summaryAgents {
		agents, more = agents[:summaryAgents], len(agents)-summaryAgents
	}
	b.WriteString("| Agent | Runs | Win rate | Admissible | Median exec | p90 exec | Tokens | Cost | Cost per win |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, a := range agents {
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s | %s | %s | %s |\n",
			markdown.Inline(a.Agent, 64), a.Runs, percent(a.WinRate), percent(a.AdmissibleRate),
			execTime(a.ExecMSMedian), execTime(a.ExecMSP90), dash(progress.Thousands(a.Tokens)),
			dollars(costCell(a)), dollars(cost.FormatUSD(a.CostPerWinUSD)))
	}
	if more > 0 {
		fmt.Fprintf(&b, "\n… %d more agents; `optr ledger stats` lists them all.\n", more)
	}
	b.WriteString("\n```mermaid\n" + WinRateChart(agents, span) + "```\n")
	if c := CostChart(agents, span); c != "" {
		b.WriteString("\n```mermaid\n" + c + "```\n")
	}
	return b.String()
}

// dollars escapes the dollar signs of a cell we wrote, so that GitHub never
// reads two of them as the ends of a formula.
func dollars(s string) string { return strings.ReplaceAll(s, "$", `\$`) }

// WinRateChart is a Mermaid xychart-beta bar chart of the agents' win
// rates in percent (without the code fence).
func WinRateChart(agents []Agent, span string) string {
	names := make([]string, len(agents))
	values := make([]float64, len(agents))
	for i, a := range agents {
		names[i], values[i] = a.Agent, 100*a.WinRate
	}
	return xychart("Win rate over "+span, names, "Win rate (percent)", 100, values)
}

// CostChart is a Mermaid xychart-beta bar chart of what the agents whose
// cost is known cost, in US dollars (without the code fence); "" when no
// agent's cost is known.
func CostChart(agents []Agent, span string) string {
	var names []string
	var values []float64
	top := 0.0
	for _, a := range agents {
		if a.CostUSD == nil {
			continue
		}
		names, values = append(names, a.Agent), append(values, *a.CostUSD)
		top = max(top, *a.CostUSD)
	}
	if len(names) == 0 {
		return ""
	}
	if top == 0 {
		top = 1
	}
	return xychart("Cost over "+span+" (USD)", names, "Cost (USD)", top*1.1, values)
}

// xychart renders a bar chart. Category and title text is reduced to
// characters with no meaning to Mermaid inside quotes, so no recorded
// name can change the chart's structure.
func xychart(title string, names []string, yLabel string, yMax float64, values []float64) string {
	var b strings.Builder
	b.WriteString("xychart-beta\n")
	fmt.Fprintf(&b, "  title %q\n", chartText(title))
	cats := make([]string, len(names))
	for i, n := range names {
		cats[i] = strconv.Quote(chartText(n))
	}
	fmt.Fprintf(&b, "  x-axis [%s]\n", strings.Join(cats, ", "))
	fmt.Fprintf(&b, "  y-axis %q 0 --> %s\n", chartText(yLabel), number(yMax))
	vals := make([]string, len(values))
	for i, v := range values {
		vals[i] = number(v)
	}
	fmt.Fprintf(&b, "  bar [%s]\n", strings.Join(vals, ", "))
	return b.String()
}

// chartText keeps letters, digits, spaces and . _ - ( ) / , of s (others
// become _; %% starts a Mermaid comment even inside quotes), on one line,
// at most 40 characters.
func chartText(s string) string {
	s = markdown.OneLine(s, 40)
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', strings.ContainsRune(" ._-()/,", r):
			b.WriteRune(r)
		case r == '…':
			b.WriteString("...")
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// number prints a chart value with at most four decimals.
func number(v float64) string {
	s := strconv.FormatFloat(v, 'f', 4, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "" || s == "-" {
		return "0"
	}
	return s
}
