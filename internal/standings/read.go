package standings

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/optr-dev/optr/internal/ledger"
)

// emptyOutput is the output_sha256 of a result that produced nothing: it
// was not checked, so it counts toward no constraint.
const emptyOutput = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// Standings are the agents', constraints' and workflows' figures over the
// runs a ledger recorded in a window.
type Standings struct {
	// Since and Until bound the window; Runs counts its run entries.
	Since, Until time.Time
	Runs         int
	// Agents are sorted by win rate, then runs, then name; Constraints
	// and Workflows by name.
	Agents      []Agent
	Constraints []Constraint
	Workflows   []Workflow
	// Days are the agents' figures day by day (UTC), oldest first: the
	// HTML page's charts over time.
	Days []Day
}

// Agent is one agent's figures.
type Agent struct {
	Agent string `json:"agent"`
	// Runs counts the runs it took part in; Selected those whose π* it was.
	Runs     int     `json:"runs"`
	Selected int     `json:"selected"`
	WinRate  float64 `json:"win_rate"`
	// Admissible counts its results that passed every hard constraint.
	Admissible     int     `json:"admissible"`
	AdmissibleRate float64 `json:"admissible_rate"`
	// ExecMSMedian and ExecMSP90 are the median and the 90th percentile
	// (nearest rank) of its exec times.
	ExecMSMedian int64 `json:"exec_ms_median"`
	ExecMSP90    int64 `json:"exec_ms_p90"`
	// Tokens are everything spent for it (its attempts, analyses, the
	// judges of its outputs).
	Tokens int64 `json:"tokens"`
	// CostUSD sums the cost of its runs whose cost is known (PricedRuns
	// of them); null when none is. CostPerWinUSD is that cost over the
	// wins among those runs; null without one.
	CostUSD       *float64 `json:"cost_usd"`
	PricedRuns    int      `json:"priced_runs"`
	CostPerWinUSD *float64 `json:"cost_per_win_usd"`
}

// Constraint is one constraint's figures: of the outputs checked against
// it, how many passed.
type Constraint struct {
	Constraint string  `json:"constraint"`
	Checked    int     `json:"checked"`
	Passed     int     `json:"passed"`
	PassRate   float64 `json:"pass_rate"`
}

// Workflow is one workflow's figures: its runs and their outcomes
// (completed, failed, paused, … as each run entry recorded it).
type Workflow struct {
	Workflow string         `json:"workflow"`
	Runs     int            `json:"runs"`
	Outcomes map[string]int `json:"outcomes"`
}

// Day is one UTC day's figures per agent.
type Day struct {
	Date   string // 2006-01-02
	Agents map[string]DayAgent
}

// DayAgent is one agent's figures on one day.
type DayAgent struct {
	Runs, Selected int
	// CostUSD sums the known costs of Priced runs.
	CostUSD float64
	Priced  int
}

// runEntry is what standings read of a run entry.
type runEntry struct {
	Selected    string
	Status      string
	Constraints []string
	Results     []runResult
}

// runResult is what standings read of one of a run's results.
type runResult struct {
	Agent        string
	Admissible   bool
	ExecMS       int64
	Invariants   []string
	OutputSHA256 string
	TokensIn     int64
	TokensOut    int64
	CostUSD      *float64
}

// decode reads the members standings use from a run entry's line, into r
// (its slices reused). The line was checked as canonical JSON (ReadWindow),
// so one pass over it with gjson, which walks JSON without building it,
// is enough: a month of runs is read several times faster than with
// encoding/json, which decodes every member. A member of another type
// than optr writes reads as its zero value.
func (r *runEntry) decode(line []byte) {
	r.Selected, r.Status, r.Constraints, r.Results = "", "", r.Constraints[:0], r.Results[:0]
	gjson.ParseBytes(line).ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "selected":
			r.Selected = v.String()
		case "status":
			r.Status = v.String()
		case "constraints":
			r.Constraints = appendStrings(r.Constraints, v)
		case "results":
			v.ForEach(func(_, res gjson.Result) bool {
				r.Results = append(r.Results, decodeResult(res))
				return true
			})
		}
		return true
	})
}

func decodeResult(v gjson.Result) runResult {
	var x runResult
	v.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "agent":
			x.Agent = v.String()
		case "admissible":
			x.Admissible = v.Bool()
		case "exec_ms":
			x.ExecMS = v.Int()
		case "invariants":
			x.Invariants = appendStrings(nil, v)
		case "output_sha256":
			x.OutputSHA256 = v.String()
		case "tokens_in":
			x.TokensIn = v.Int()
		case "tokens_out":
			x.TokensOut = v.Int()
		case "cost_usd":
			if v.Type == gjson.Number {
				x.CostUSD = ptr(v.Float())
			}
		}
		return true
	})
	return x
}

func appendStrings(out []string, v gjson.Result) []string {
	v.ForEach(func(_, s gjson.Result) bool {
		out = append(out, s.String())
		return true
	})
	return out
}

// Read computes the standings of the runs the ledger in st recorded from
// since to until, reading only the segments that window needs.
func Read(ctx context.Context, st ledger.Store, since, until time.Time) (*Standings, error) {
	acc := newAccumulator()
	var r runEntry
	err := ledger.ReadWindow(ctx, st, since, func(e ledger.WindowEntry) error {
		if e.Kind != ledger.KindRun || e.Time.After(until) {
			return nil
		}
		r.decode(e.Line)
		acc.add(e, &r)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the standings: %w", err)
	}
	return acc.standings(since.UTC(), until.UTC()), nil
}

type agentAcc struct {
	runs, selected, admissible int
	exec                       []int64
	tokens                     int64
	cost                       float64
	priced, pricedWins         int
}

type accumulator struct {
	runs        int
	agents      map[string]*agentAcc
	constraints map[string]*Constraint
	workflows   map[string]*Workflow
	days        map[string]map[string]DayAgent
}

func newAccumulator() *accumulator {
	return &accumulator{agents: map[string]*agentAcc{}, constraints: map[string]*Constraint{},
		workflows: map[string]*Workflow{}, days: map[string]map[string]DayAgent{}}
}

func (a *accumulator) add(e ledger.WindowEntry, r *runEntry) {
	a.runs++
	w := a.workflows[e.Workflow]
	if w == nil {
		w = &Workflow{Workflow: e.Workflow, Outcomes: map[string]int{}}
		a.workflows[e.Workflow] = w
	}
	w.Runs++
	status := r.Status
	if status == "" {
		status = "unknown" // recorded before run entries had a status
	}
	w.Outcomes[status]++
	date := e.Time.UTC().Format(time.DateOnly)
	day := a.days[date]
	if day == nil {
		day = map[string]DayAgent{}
		a.days[date] = day
	}
	for _, res := range r.Results {
		ag := a.agents[res.Agent]
		if ag == nil {
			ag = &agentAcc{}
			a.agents[res.Agent] = ag
		}
		won := res.Agent != "" && res.Agent == r.Selected
		ag.runs++
		d := day[res.Agent]
		d.Runs++
		if won {
			ag.selected++
			d.Selected++
		}
		if res.Admissible {
			ag.admissible++
		}
		ag.exec = append(ag.exec, res.ExecMS)
		ag.tokens += res.TokensIn + res.TokensOut
		if res.CostUSD != nil {
			ag.cost += *res.CostUSD
			ag.priced++
			d.CostUSD += *res.CostUSD
			d.Priced++
			if won {
				ag.pricedWins++
			}
		}
		day[res.Agent] = d
		if res.OutputSHA256 == emptyOutput {
			continue // no output: no check ran on it
		}
		for _, name := range r.Constraints {
			c := a.constraints[name]
			if c == nil {
				c = &Constraint{Constraint: name}
				a.constraints[name] = c
			}
			c.Checked++
			if slices.Contains(res.Invariants, name) {
				c.Passed++
			}
		}
	}
}

func (a *accumulator) standings(since, until time.Time) *Standings {
	s := &Standings{Since: since, Until: until, Runs: a.runs}
	for name, ag := range a.agents {
		x := Agent{Agent: name, Runs: ag.runs, Selected: ag.selected, Admissible: ag.admissible,
			WinRate: ratio(ag.selected, ag.runs), AdmissibleRate: ratio(ag.admissible, ag.runs), Tokens: ag.tokens, PricedRuns: ag.priced}
		slices.Sort(ag.exec)
		x.ExecMSMedian, x.ExecMSP90 = median(ag.exec), nearestRank(ag.exec, 0.9)
		if ag.priced > 0 {
			x.CostUSD = ptr(nano(ag.cost))
			if ag.pricedWins > 0 {
				x.CostPerWinUSD = ptr(nano(ag.cost / float64(ag.pricedWins)))
			}
		}
		s.Agents = append(s.Agents, x)
	}
	slices.SortFunc(s.Agents, func(x, y Agent) int {
		switch {
		case x.WinRate != y.WinRate:
			return cmpFloat(y.WinRate, x.WinRate)
		case x.Runs != y.Runs:
			return y.Runs - x.Runs
		}
		return strings.Compare(x.Agent, y.Agent)
	})
	for _, c := range a.constraints {
		c.PassRate = ratio(c.Passed, c.Checked)
		s.Constraints = append(s.Constraints, *c)
	}
	slices.SortFunc(s.Constraints, func(x, y Constraint) int { return strings.Compare(x.Constraint, y.Constraint) })
	for _, w := range a.workflows {
		s.Workflows = append(s.Workflows, *w)
	}
	slices.SortFunc(s.Workflows, func(x, y Workflow) int { return strings.Compare(x.Workflow, y.Workflow) })
	for date, agents := range a.days {
		s.Days = append(s.Days, Day{Date: date, Agents: agents})
	}
	slices.SortFunc(s.Days, func(x, y Day) int { return strings.Compare(x.Date, y.Date) })
	return s
}

// ratio is n/d, 0 when d is.
func ratio(n, d int) float64 {
	if d == 0 {
		return 0
	}
	return float64(n) / float64(d)
}

// median of sorted xs: the mean of the middle two when their number is
// even; 0 for none.
func median(xs []int64) int64 {
	n := len(xs)
	if n == 0 {
		return 0
	}
	return (xs[(n-1)/2] + xs[n/2]) / 2
}

// nearestRank is the p-th percentile of sorted xs by the nearest-rank
// method: the smallest value with at least p of the values at or below it.
func nearestRank(xs []int64, p float64) int64 {
	if len(xs) == 0 {
		return 0
	}
	i := int(math.Ceil(p*float64(len(xs)))) - 1
	return xs[max(i, 0)]
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func ptr(v float64) *float64 { return &v }

// nano rounds a sum of costs to a billionth of a dollar, below any price,
// so that float sums print as the amounts they add up to.
func nano(usd float64) float64 { return math.Round(usd*1e9) / 1e9 }
