package standings

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/optr-dev/optr/internal/cost"
)

// palette colours the agents' bars and lines, in order; dashes tell apart
// the lines of agents past the palette's length (the ninth agent's line
// is the first's colour, dashed), so every agent is drawn.
var (
	palette = []string{"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"}
	dashes  = []string{"", "6 3", "2 3", "9 3 2 3"}
)

// style is the colour and dash pattern of the i-th agent.
func style(i int) (color, dash string) {
	return palette[i%len(palette)], dashes[(i/len(palette))%len(dashes)]
}

// HTML renders the standings as one self-contained page: the tables, bar
// charts of win rate and cost per agent, and the same over time, day by
// day — inline SVG and CSS, no script, nothing fetched from anywhere.
// Every name the ledger recorded is escaped (esc).
func HTML(s *Standings) ([]byte, error) {
	page := htmlPage{
		Window: window(s), Ranking: ranking(s), Runs: s.Runs, Generated: s.Until.Format(time.RFC3339),
	}
	if !s.Verified {
		page.Unverified = unverified
	}
	for _, c := range s.Constraints {
		c.Constraint = name(c.Constraint)
		page.Constraints = append(page.Constraints, c)
	}
	for _, w := range s.Workflows {
		w.Workflow = name(w.Workflow)
		page.Workflows = append(page.Workflows, w)
	}
	for i, a := range s.Agents {
		color, dash := style(i)
		a.Agent = name(a.Agent) // esc escapes markup, not control or format characters
		page.Agents = append(page.Agents, agentRow{Agent: a, Color: color, Dash: dash,
			WinRate: percent(a.WinRate), Admissible: percent(a.AdmissibleRate), Median: execTime(a.ExecMSMedian), P90: execTime(a.ExecMSP90),
			Tokens: tokensCell(a), Cost: costCell(a), PerWin: cost.FormatUSD(a.CostPerWinUSD),
			MergedCell: mergedCell(a), MergeRateCell: rate(a.MergeRate), ToMerge: toMerge(a), PerMerged: perMergedCell(a)})
	}
	page.MergeRate = bars("Merge rate by agent (of its changes merged or closed)", page.Agents, func(a Agent) (float64, string, bool) {
		if a.MergeRate == nil {
			return 0, "", false
		}
		return *a.MergeRate, fmt.Sprintf("%s (%d/%d)", percent(*a.MergeRate), a.Merged, a.Decided()), true
	})
	page.PerMerged = bars("Cost per merged change by agent (USD)", page.Agents, func(a Agent) (float64, string, bool) {
		if a.CostPerMergedUSD == nil {
			return 0, "", false
		}
		return *a.CostPerMergedUSD, cost.FormatUSD(a.CostPerMergedUSD), true
	})
	page.WinRate = bars("Win rate by agent", page.Agents, func(a Agent) (float64, string, bool) {
		return a.WinRate, percent(a.WinRate), true
	})
	page.Cost = bars("Cost by agent (USD)", page.Agents, func(a Agent) (float64, string, bool) {
		if a.CostUSD == nil {
			return 0, "", false
		}
		return *a.CostUSD, cost.FormatUSD(a.CostUSD), true
	})
	page.WinRateOverTime = lines("Win rate by day", s, page.Agents, "%", func(d DayAgent) (float64, bool) {
		return 100 * ratio(d.Selected, d.Runs), d.Runs > 0
	})
	page.CostOverTime = lines("Cost by day (USD)", s, page.Agents, "$", func(d DayAgent) (float64, bool) {
		return d.CostUSD, d.Priced > 0
	})
	var b bytes.Buffer
	page.write(&b)
	return b.Bytes(), nil
}

type htmlPage struct {
	Window, Ranking, Generated, Unverified string
	Runs                                   int
	Agents                                 []agentRow
	Constraints                            []Constraint
	Workflows                              []Workflow
	MergeRate, PerMerged                   *barChart
	WinRate, Cost                          *barChart
	WinRateOverTime                        *lineChart
	CostOverTime                           *lineChart
}

type agentRow struct {
	Agent
	Color, Dash                                            string
	WinRate, Admissible, Median, P90, Tokens, Cost, PerWin string
	MergedCell, MergeRateCell, ToMerge, PerMerged          string
}

// Chart geometry, in SVG user units.
const (
	chartWidth = 720
	labelWidth = 160
	barHeight  = 22
	lineHeight = 260
	plotLeft   = 60
	plotBottom = 30
)

type barChart struct {
	Title         string
	Height        int
	Bars          []bar
	LabelWidth    int
	Width, MaxBar float64
}

type bar struct {
	Label, Value, Color string
	Y, TextY            int
	Width, ValueX       float64
}

// bars is a horizontal bar chart of value over the agents that have one;
// nil when none has.
func bars(title string, agents []agentRow, value func(Agent) (float64, string, bool)) *barChart {
	c := &barChart{Title: title, LabelWidth: labelWidth, Width: chartWidth, MaxBar: chartWidth - labelWidth - 80}
	top := 0.0
	for _, a := range agents {
		if v, _, ok := value(a.Agent); ok {
			top = max(top, v)
		}
	}
	for _, a := range agents {
		v, text, ok := value(a.Agent)
		if !ok {
			continue
		}
		y := 10 + len(c.Bars)*(barHeight+6)
		w := 0.0
		if top > 0 {
			w = c.MaxBar * v / top
		}
		c.Bars = append(c.Bars, bar{Label: a.Agent.Agent, Value: text, Color: a.Color, Y: y, TextY: y + barHeight - 6, Width: w, ValueX: labelWidth + w + 6})
	}
	if len(c.Bars) == 0 {
		return nil
	}
	c.Height = 20 + len(c.Bars)*(barHeight+6)
	return c
}

type lineChart struct {
	Title         string
	Width, Height int
	PlotLeft      int
	PlotTop       int
	PlotBottom    int
	PlotRight     int
	XTicks        []tick
	YTicks        []tick
	Series        []series
}

type tick struct {
	Label string
	At    float64
}

type series struct {
	Label, Color, Dash, Points string
	Dots                       []dot
	LegendY                    int
}

type dot struct{ X, Y float64 }

// lines is a chart of value per day for every agent, the legend naming
// each (the chart grows to hold it); nil with no day or no value.
func lines(title string, s *Standings, agents []agentRow, unit string, value func(DayAgent) (float64, bool)) *lineChart {
	if len(s.Days) == 0 {
		return nil
	}
	c := &lineChart{Title: title, Width: chartWidth, Height: max(lineHeight, 30+18*len(agents)), PlotLeft: plotLeft, PlotTop: 10,
		PlotBottom: lineHeight - plotBottom, PlotRight: chartWidth - labelWidth}
	top := 0.0
	for _, d := range s.Days {
		for _, a := range agents {
			if v, ok := value(d.Agents[a.Agent.Agent]); ok {
				top = max(top, v)
			}
		}
	}
	if top == 0 {
		top = 1
	}
	x := func(i int) float64 {
		if len(s.Days) == 1 {
			return float64(c.PlotLeft+c.PlotRight) / 2
		}
		return float64(c.PlotLeft) + float64(i)*float64(c.PlotRight-c.PlotLeft)/float64(len(s.Days)-1)
	}
	y := func(v float64) float64 { return float64(c.PlotBottom) - v/top*float64(c.PlotBottom-c.PlotTop) }
	for i, d := range s.Days {
		if len(s.Days) <= 10 || i%((len(s.Days)+9)/10) == 0 || i == len(s.Days)-1 {
			c.XTicks = append(c.XTicks, tick{Label: d.Date[5:], At: x(i)})
		}
	}
	for _, f := range []float64{0, 0.5, 1} {
		label := number(top * f)
		if unit == "%" {
			label += "%"
		} else {
			label = unit + label
		}
		c.YTicks = append(c.YTicks, tick{Label: label, At: y(top * f)})
	}
	for _, a := range agents {
		sr := series{Label: a.Agent.Agent, Color: a.Color, Dash: a.Dash}
		var pts bytes.Buffer
		for i, d := range s.Days {
			v, ok := value(d.Agents[a.Agent.Agent])
			if !ok {
				continue
			}
			fmt.Fprintf(&pts, "%.1f,%.1f ", x(i), y(v))
			sr.Dots = append(sr.Dots, dot{X: x(i), Y: y(v)})
		}
		if len(sr.Dots) == 0 {
			continue
		}
		sr.Points = pts.String()
		sr.LegendY = c.PlotTop + 10 + 18*len(c.Series)
		c.Series = append(c.Series, sr)
	}
	if len(c.Series) == 0 {
		return nil
	}
	return c
}

// The page is written by hand rather than with html/template: executing
// a template calls reflect's Method, and a binary from which that call
// can be reached keeps every exported method of every type it has — 10
// MB of optr's 53 (the stripped binary's size is bounded at 40 MiB). Every
// text from the ledger goes through esc, which escapes as html/template
// does (TestEscAsTemplate; page.golden.html holds the page it wrote).

// esc escapes s for an HTML element's text or a quoted attribute's value,
// as html/template's htmlEscaper does.
func esc(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case 0:
			b.WriteRune(utf8.RuneError)
		case '"':
			b.WriteString("&#34;")
		case '&':
			b.WriteString("&amp;")
		case '\'':
			b.WriteString("&#39;")
		case '+':
			b.WriteString("&#43;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// f1 is a number with one decimal, as the page draws coordinates.
func f1(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }

// write writes the page.
func (p htmlPage) write(b *bytes.Buffer) {
	w := func(parts ...string) {
		for _, s := range parts {
			b.WriteString(s)
		}
	}
	w(pageHead, "<p>", esc(p.Window), " ", esc(p.Ranking), ` <span class="note">Made `, esc(p.Generated), " by <code>optr ledger stats --html</code>.</span></p>\n")
	if p.Unverified != "" {
		w("<p><strong>", esc(p.Unverified), "</strong></p>\n")
	}
	if p.Runs == 0 {
		w("<p>No run was recorded in that time.</p>\n</body>\n</html>\n\n")
		return
	}
	w("\n<h2>Agents</h2>\n<table>\n<tr><th>Agent</th><th>Runs</th><th>Wins</th><th>Win rate</th><th>Pull requests</th><th>Merged</th><th>Merge rate</th><th>Median to merge</th><th>Reverted</th><th>Cost per merged</th><th>Admissible</th><th>Median exec</th><th>p90 exec</th><th>Tokens</th><th>Cost</th><th>Cost per win</th></tr>\n")
	for _, a := range p.Agents {
		w(`<tr><td><span class="swatch" style="background: `, a.Color, `"></span>`, esc(a.Agent.Agent), "</td><td>", strconv.Itoa(a.Runs), "</td><td>", strconv.Itoa(a.Selected),
			"</td><td>", esc(a.WinRate), "</td><td>", strconv.Itoa(a.PullRequests), "</td><td>", esc(a.MergedCell), "</td><td>", esc(a.MergeRateCell),
			"</td><td>", esc(a.ToMerge), "</td><td>", strconv.Itoa(a.Reverted), "</td><td>", esc(a.PerMerged),
			"</td><td>", esc(a.Admissible), "</td><td>", esc(a.Median), "</td><td>", esc(a.P90), "</td><td>", esc(a.Tokens),
			"</td><td>", esc(a.Cost), "</td><td>", esc(a.PerWin), "</td></tr>\n")
	}
	w("</table>\n")
	p.MergeRate.write(b)
	if p.MergeRate == nil {
		w(`<p class="note">No pull request optr opened was merged or closed in that time.</p>`)
	}
	p.PerMerged.write(b)
	w("\n")
	p.WinRate.write(b)
	p.Cost.write(b)
	if p.Cost == nil {
		w(`<p class="note">No agent's cost is known: no price covers its model.</p>`)
	}
	w("\n")
	p.WinRateOverTime.write(b)
	p.CostOverTime.write(b)
	w("\n<h2>Constraints</h2>\n")
	if len(p.Constraints) > 0 {
		w("<table>\n<tr><th>Constraint</th><th>Checked</th><th>Passed</th><th>Pass rate</th></tr>\n")
		for _, c := range p.Constraints {
			w("<tr><td>", esc(c.Constraint), "</td><td>", strconv.Itoa(c.Checked), "</td><td>", strconv.Itoa(c.Passed), "</td><td>", f1(100*c.PassRate), "%</td></tr>\n")
		}
		w("</table>")
	} else {
		w(`<p class="note">No output was checked against a constraint.</p>`)
	}
	w("\n<h2>Workflows</h2>\n<table>\n<tr><th>Workflow</th><th>Runs</th><th>Outcomes</th></tr>\n")
	for _, wf := range p.Workflows {
		w("<tr><td>", esc(wf.Workflow), "</td><td>", strconv.Itoa(wf.Runs), "</td><td>", esc(outcomes(wf.Outcomes)), "</td></tr>\n")
	}
	w("</table>\n\n</body>\n</html>\n\n")
}

// svgOpen opens a chart's SVG element under its heading.
func svgOpen(b *bytes.Buffer, title string, width, height int) {
	fmt.Fprintf(b, "<h2>%s</h2>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"%s\">\n",
		esc(title), width, height, width, height, esc(title))
}

func (c *barChart) write(b *bytes.Buffer) {
	if c == nil {
		return
	}
	svgOpen(b, c.Title, int(c.Width), c.Height)
	for _, r := range c.Bars {
		fmt.Fprintf(b, `<text x="%d" y="%d" text-anchor="end">%s</text><rect x="%d" y="%d" width="%s" height="22" fill="%s"></rect><text x="%s" y="%d">%s</text>`+"\n",
			c.LabelWidth-8, r.TextY, esc(r.Label), c.LabelWidth, r.Y, f1(r.Width), esc(r.Color), f1(r.ValueX), r.TextY, esc(r.Value))
	}
	b.WriteString("</svg>\n")
}

func (c *lineChart) write(b *bytes.Buffer) {
	if c == nil {
		return
	}
	svgOpen(b, c.Title, c.Width, c.Height)
	fmt.Fprintf(b, `<line class="axis" x1="%d" y1="%d" x2="%d" y2="%d"></line><line class="axis" x1="%d" y1="%d" x2="%d" y2="%d"></line>`+"\n",
		c.PlotLeft, c.PlotBottom, c.PlotRight, c.PlotBottom, c.PlotLeft, c.PlotTop, c.PlotLeft, c.PlotBottom)
	for _, t := range c.YTicks {
		fmt.Fprintf(b, `<text x="%d" y="%s" text-anchor="end">%s</text>`+"\n", c.PlotLeft-6, f1(t.At), esc(t.Label))
	}
	for _, t := range c.XTicks {
		fmt.Fprintf(b, `<text x="%s" y="%d" text-anchor="middle">%s</text>`+"\n", f1(t.At), c.PlotBottom+18, esc(t.Label))
	}
	for _, s := range c.Series {
		dash := ""
		if s.Dash != "" {
			dash = ` stroke-dasharray="` + esc(s.Dash) + `"`
		}
		fmt.Fprintf(b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"%s></polyline>`, esc(s.Points), esc(s.Color), dash)
		for _, d := range s.Dots {
			fmt.Fprintf(b, `<circle cx="%s" cy="%s" r="3" fill="%s"></circle>`, f1(d.X), f1(d.Y), esc(s.Color))
		}
		fmt.Fprintf(b, "\n"+`<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"%s></line><text x="%d" y="%d">%s</text>`+"\n",
			c.PlotRight+10, s.LegendY-4, c.PlotRight+28, s.LegendY-4, esc(s.Color), dash, c.PlotRight+32, s.LegendY, esc(s.Label))
	}
	b.WriteString("</svg>\n")
}

const pageHead = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>optr standings</title>
<style>
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto; max-width: 780px; color: #1b1f24; padding: 0 1em; }
h1 { font-size: 1.5em; } h2 { font-size: 1.15em; margin-top: 2em; }
table { border-collapse: collapse; width: 100%; margin: 0.5em 0; }
th, td { text-align: right; padding: 4px 8px; border-bottom: 1px solid #d0d7de; white-space: nowrap; }
th:first-child, td:first-child { text-align: left; white-space: normal; }
.swatch { display: inline-block; width: 0.8em; height: 0.8em; margin-right: 0.4em; vertical-align: baseline; }
svg text { font: 12px system-ui, sans-serif; fill: #1b1f24; }
.axis { stroke: #8c959f; stroke-width: 1; }
.note { color: #57606a; }
</style>
</head>
<body>
<h1>optr standings</h1>
`
