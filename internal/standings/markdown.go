package standings

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/optr-dev/optr/internal/cost"
	"github.com/optr-dev/optr/internal/markdown"
)

// summaryAgents bounds the agents the step summary shows: a chart of more
// bars is unreadable, and `optr ledger stats` lists them all.
const summaryAgents = 20

// Markdown renders the standings for the end of a step summary: a heading
// naming the window (span, "the last 30 days") and how the agents are
// ranked (by merge rate once people merged or closed their changes, and
// how many; by win rate before), the agents' table, and Mermaid
// xychart-beta charts GitHub draws — merge rate and cost per merged
// change (when any agent has them), win rate and cost per agent. An agent
// whose figure is unknown is left out of that chart (a bar of 0 would
// call it free, or never merged).
func Markdown(s *Standings, span string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### Standings over %s\n\n", span)
	if s.Runs == 0 {
		b.WriteString("No run was recorded in that time.\n")
		return b.String()
	}
	b.WriteString(window(s) + " " + ranking(s) + "\n\n")
	if !s.Verified {
		b.WriteString(unverified + "\n\n")
	}
	agents := s.Agents
	more := 0
	if len(agents) > summaryAgents {
		agents, more = agents[:summaryAgents], len(agents)-summaryAgents
	}
	b.WriteString("| Agent | Runs | Win rate | Merged | Merge rate | Median to merge | Reverted | Cost per merged | Admissible | Median exec | p90 exec | Tokens | Cost | Cost per win |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, a := range agents {
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s | %d | %s | %s | %s | %s | %s | %s | %s |\n",
			markdown.Inline(name(a.Agent), 64), a.Runs, percent(a.WinRate), mergedCell(a), rate(a.MergeRate), toMerge(a), a.Reverted,
			dollars(perMergedCell(a)), percent(a.AdmissibleRate),
			execTime(a.ExecMSMedian), execTime(a.ExecMSP90), tokensCell(a),
			dollars(costCell(a)), dollars(cost.FormatUSD(a.CostPerWinUSD)))
	}
	if more > 0 {
		fmt.Fprintf(&b, "\n… %d more agents; `optr ledger stats` lists them all.\n", more)
	}
	for _, c := range []string{MergeRateChart(agents, span), CostPerMergedChart(agents, span), WinRateChart(agents, span), CostChart(agents, span)} {
		if c != "" {
			b.WriteString("\n```mermaid\n" + c + "```\n")
		}
	}
	return b.String()
}

// MergeRateChart is a Mermaid xychart-beta bar chart of the merge rates,
// in percent, of the agents people merged or closed changes of (without
// the code fence); "" when there is none.
func MergeRateChart(agents []Agent, span string) string {
	var names []string
	var values []float64
	for _, a := range agents {
		if a.MergeRate != nil {
			names, values = append(names, a.Name()), append(values, 100**a.MergeRate)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return xychart("Merge rate over "+span, names, "Merged (percent of merged or closed)", 100, values)
}

// CostPerMergedChart is a Mermaid xychart-beta bar chart of what a merged
// change of each agent cost, in US dollars, for the agents whose cost per
// merged change is known (without the code fence); "" when none is.
func CostPerMergedChart(agents []Agent, span string) string {
	return costBars("USD per merged change, "+span, "Cost per merged change (USD)", agents, func(a Agent) *float64 { return a.CostPerMergedUSD })
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
		names[i], values[i] = a.Name(), 100*a.WinRate
	}
	return xychart("Win rate over "+span, names, "Win rate (percent)", 100, values)
}

// CostChart is a Mermaid xychart-beta bar chart of what the agents whose
// cost is known cost, in US dollars (without the code fence); "" when no
// agent's cost is known.
func CostChart(agents []Agent, span string) string {
	return costBars("Cost over "+span+" (USD)", "Cost (USD)", agents, func(a Agent) *float64 { return a.CostUSD })
}

// costBars is a bar chart of the known costs usd of agents, "" when none
// is known.
func costBars(title, yLabel string, agents []Agent, usd func(Agent) *float64) string {
	var names []string
	var values []float64
	top := 0.0
	for _, a := range agents {
		v := usd(a)
		if v == nil {
			continue
		}
		names, values = append(names, a.Name()), append(values, *v)
		top = max(top, *v)
	}
	if len(names) == 0 {
		return ""
	}
	if top == 0 {
		top = 1
	}
	return xychart(title, names, yLabel, top*1.1, values)
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
