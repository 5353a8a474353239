package standings

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unsafe"

	"github.com/tidwall/gjson"

	"github.com/optr-dev/optr/internal/ledger"
	"github.com/optr-dev/optr/internal/outcome"
)

// emptyOutput is the output_sha256 of a result that produced nothing: it
// was not checked, so it counts toward no constraint.
const emptyOutput = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// Standings are the agents', constraints' and workflows' figures over the
// runs a ledger recorded in a window.
type Standings struct {
	// Since and Until bound the window; Runs counts its run entries and
	// Outcomes its outcomes (merges and closes: a close the same pull
	// request's merge followed counts as the merge).
	Since, Until time.Time
	Runs         int
	Outcomes     int
	// Verified says whether the window was verified as it was read (see
	// Read); false only for ReadUnverified.
	Verified bool
	// Agents and Models are ranked (rank); Constraints and Workflows are
	// sorted by name.
	Agents      []Agent
	Models      []Agent
	Constraints []Constraint
	Workflows   []Workflow
	// Days are the agents' figures day by day (UTC), oldest first: the
	// HTML page's charts over time.
	Days []Day
}

// Agent is one agent's figures, or one model's: the figures of every
// result the model answered, and of the changes it wrote as π*.
type Agent struct {
	// Agent is the agent's name (by agent), Model the model's (by model;
	// "unknown" for results that recorded none).
	Agent string `json:"agent,omitempty"`
	Model string `json:"model,omitempty"`
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
	// Tokens sum everything spent for it (its attempts, analyses, the
	// judges of its outputs) in its runs whose tokens are known
	// (MeteredRuns of them); null when none is (architecture §4.17:
	// unknown is never 0).
	Tokens      *int64 `json:"tokens"`
	MeteredRuns int    `json:"metered_runs"`
	// CostUSD sums the cost of its runs whose cost is known (PricedRuns
	// of them); null when none is. CostPerWinUSD is that cost over the
	// wins among those runs; null without one.
	CostUSD       *float64 `json:"cost_usd"`
	PricedRuns    int      `json:"priced_runs"`
	CostPerWinUSD *float64 `json:"cost_per_win_usd"`

	// What people did with its changes (architecture §4.19). PullRequests
	// counts the pull requests its runs opened in the window as π*;
	// Merged and Closed the merges and closes recorded in it, and
	// MergeRate is Merged over both (null without either: no outcome
	// yet). MedianTimeToMergeMS is the median time from opening to merge
	// (null without a merge); Reverted counts the reverts recorded.
	PullRequests        int      `json:"pull_requests"`
	Merged              int      `json:"merged"`
	Closed              int      `json:"closed"`
	MergeRate           *float64 `json:"merge_rate"`
	MedianTimeToMergeMS *int64   `json:"median_time_to_merge_ms"`
	Reverted            int      `json:"reverted"`
	// CostPerMergedUSD is what its merged changes cost (each change: every
	// agent of every run on its pull request) over the merged changes
	// whose cost is known (PricedMerged of them); null when none is.
	CostPerMergedUSD *float64 `json:"cost_per_merged_usd"`
	PricedMerged     int      `json:"priced_merged"`
}

// Decided counts the agent's changes people merged or closed.
func (a Agent) Decided() int { return a.Merged + a.Closed }

// Name is the agent's name, or the model's.
func (a Agent) Name() string {
	if a.Model != "" {
		return a.Model
	}
	return a.Agent
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
	// PullRequest is the pull request it opened (Iteration 1) or worked
	// on; 0 for none.
	PullRequest, Iteration int
}

// runResult is what standings read of one of a run's results.
type runResult struct {
	Agent        string
	Model        string
	Admissible   bool
	ExecMS       int64
	Invariants   []string
	OutputSHA256 string
	TokensIn     int64
	TokensOut    int64
	// Metered is false when its tokens are not (all) known: null, or
	// flagged tokens_unknown. CostUSD is nil when its cost is not (all)
	// known: null, or flagged cost_unknown.
	Metered bool
	CostUSD *float64
}

// decode reads the members standings use from a run entry's line, into r
// (its slices reused). The line was checked as canonical JSON (ReadWindow),
// so one pass over it with gjson, which walks JSON without building it,
// is enough: a month of runs is read several times faster than with
// encoding/json, which decodes every member. A member of another type
// than optr writes reads as its zero value.
//
// The line is read in place, not copied into a string (gjson.ParseBytes
// would copy every line, most of it hashes): the few short strings r
// keeps (names, a status) are cloned, and the invariants, only compared,
// point into the line, valid until the next one.
func (r *runEntry) decode(line []byte) {
	r.Selected, r.Status, r.Constraints, r.Results = "", "", r.Constraints[:0], r.Results[:0]
	r.PullRequest, r.Iteration = 0, 0
	gjson.Parse(unsafe.String(unsafe.SliceData(line), len(line))).ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "pull_request":
			r.PullRequest = int(v.Int())
		case "iteration":
			r.Iteration = int(v.Int())
		case "selected":
			r.Selected = strings.Clone(v.String())
		case "status":
			r.Status = strings.Clone(v.String())
		case "constraints":
			r.Constraints = appendStrings(r.Constraints, v, true)
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
	x := runResult{Metered: true}
	costUnknown := false
	v.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "agent":
			x.Agent = strings.Clone(v.String())
		case "model":
			x.Model = strings.Clone(v.String())
		case "admissible":
			x.Admissible = v.Bool()
		case "exec_ms":
			x.ExecMS = v.Int()
		case "invariants":
			x.Invariants = appendStrings(nil, v, false)
		case "output_sha256":
			x.OutputSHA256 = v.String()
		case "tokens_in":
			x.TokensIn, x.Metered = v.Int(), x.Metered && v.Type == gjson.Number
		case "tokens_out":
			x.TokensOut, x.Metered = v.Int(), x.Metered && v.Type == gjson.Number
		case "tokens_unknown":
			x.Metered = x.Metered && v.Type != gjson.True
		case "cost_unknown":
			costUnknown = v.Type == gjson.True
		case "cost_usd":
			if v.Type == gjson.Number {
				x.CostUSD = ptr(v.Float())
			}
		}
		return true
	})
	if costUnknown {
		x.CostUSD = nil // a known part is not the cost
	}
	return x
}

// appendStrings appends the strings of the array v, cloned when clone
// says (see decode).
func appendStrings(out []string, v gjson.Result, clone bool) []string {
	v.ForEach(func(_, s gjson.Result) bool {
		str := s.String()
		if clone {
			str = strings.Clone(str)
		}
		out = append(out, str)
		return true
	})
	return out
}

// Read computes the standings of the runs and outcomes the ledger in st
// recorded from since to until, reading only the segments that window
// needs, and verifying what it reads (ledger.ReadVerifiedWindow): a
// window that does not verify is an error naming the file and the line,
// never figures.
func Read(ctx context.Context, st ledger.Store, since, until time.Time) (*Standings, error) {
	return readStandings(ctx, st, since, until, true)
}

// ReadUnverified is Read without verifying the window (`optr ledger stats
// --no-verify`): for a ledger known to be broken, whose figures are
// wanted all the same. Standings.Verified is false.
func ReadUnverified(ctx context.Context, st ledger.Store, since, until time.Time) (*Standings, error) {
	return readStandings(ctx, st, since, until, false)
}

func readStandings(ctx context.Context, st ledger.Store, since, until time.Time, verify bool) (*Standings, error) {
	acc := newAccumulator()
	var r runEntry
	readWindow := ledger.ReadWindow
	if verify {
		readWindow = ledger.ReadVerifiedWindow
	}
	err := readWindow(ctx, st, since, func(e ledger.WindowEntry) error {
		if e.Time.After(until) {
			return nil
		}
		switch e.Kind {
		case ledger.KindRun:
			r.decode(e.Line)
			acc.add(e, &r)
		case ledger.KindOutcome:
			if o, ok := outcome.Decode(e); ok {
				acc.outcome(o)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the standings: %w", err)
	}
	s := acc.standings(since.UTC(), until.UTC())
	s.Verified = verify
	return s, nil
}

type agentAcc struct {
	runs, selected, admissible int
	exec                       []int64
	tokens                     int64
	metered                    int
	cost                       float64
	priced, pricedWins         int
	// The changes it wrote as π*: pull requests opened; merges (their
	// times to merge, the cost of those whose cost is known), closes,
	// reverts.
	opened, merged, closed, reverted int
	toMerge                          []int64
	mergedCost                       float64
	pricedMerged                     int
}

type accumulator struct {
	runs        int
	agents      map[string]*agentAcc
	models      map[string]*agentAcc
	constraints map[string]*Constraint
	workflows   map[string]*Workflow
	days        map[string]map[string]DayAgent
	// outcomes are the window's outcomes by run, at most one of each kind
	// (the first recorded).
	outcomes map[string]*runOutcomes
}

// runOutcomes are the outcomes recorded of the pull request one run
// opened: what standings count of each.
type runOutcomes struct{ merged, closed, reverted *counted }

// counted is what standings count of one outcome.
type counted struct {
	agent, model string
	elapsedMS    int64
	costUSD      *float64
}

func newAccumulator() *accumulator {
	return &accumulator{agents: map[string]*agentAcc{}, models: map[string]*agentAcc{}, constraints: map[string]*Constraint{},
		workflows: map[string]*Workflow{}, days: map[string]map[string]DayAgent{}, outcomes: map[string]*runOutcomes{}}
}

// unknownModel groups the results that recorded no model.
const unknownModel = "unknown"

func modelOf(m string) string {
	if m == "" {
		return unknownModel
	}
	return m
}

// of returns the accumulator of name in m, made on first use.
func of(m map[string]*agentAcc, name string) *agentAcc {
	a := m[name]
	if a == nil {
		a = &agentAcc{}
		m[name] = a
	}
	return a
}

// outcome notes an outcome; one of a kind already noted for its run (a
// duplicate the ledger should not hold) is not counted twice.
func (a *accumulator) outcome(o outcome.Outcome) {
	ro := a.outcomes[o.Run]
	if ro == nil {
		ro = &runOutcomes{}
		a.outcomes[o.Run] = ro
	}
	var slot **counted
	switch o.Outcome {
	case outcome.Merged:
		slot = &ro.merged
	case outcome.Closed:
		slot = &ro.closed
	default:
		slot = &ro.reverted
	}
	if *slot == nil {
		*slot = &counted{agent: o.Agent, model: modelOf(o.Model), elapsedMS: o.Elapsed.Milliseconds(), costUSD: o.CostUSD}
	}
}

// settle counts the window's outcomes: a pull request merged counts as
// merged, whatever closes came before (closed, reopened, merged).
func (a *accumulator) settle() int {
	decided := 0
	for _, ro := range a.outcomes {
		for _, g := range []struct {
			m    map[string]*agentAcc
			name func(*counted) string
		}{
			{a.agents, func(c *counted) string { return c.agent }},
			{a.models, func(c *counted) string { return c.model }},
		} {
			switch {
			case ro.merged != nil:
				x := of(g.m, g.name(ro.merged))
				x.merged++
				x.toMerge = append(x.toMerge, ro.merged.elapsedMS)
				if c := ro.merged.costUSD; c != nil {
					x.mergedCost += *c
					x.pricedMerged++
				}
			case ro.closed != nil:
				of(g.m, g.name(ro.closed)).closed++
			}
			if ro.reverted != nil {
				of(g.m, g.name(ro.reverted)).reverted++
			}
		}
		if ro.merged != nil || ro.closed != nil {
			decided++
		}
	}
	return decided
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
		won := res.Agent != "" && res.Agent == r.Selected
		for _, ag := range [2]*agentAcc{of(a.agents, res.Agent), of(a.models, modelOf(res.Model))} {
			ag.runs++
			if won {
				ag.selected++
				if r.PullRequest > 0 && r.Iteration <= 1 {
					ag.opened++
				}
			}
			if res.Admissible {
				ag.admissible++
			}
			ag.exec = append(ag.exec, res.ExecMS)
			if res.Metered {
				ag.tokens += res.TokensIn + res.TokensOut
				ag.metered++
			}
			if res.CostUSD != nil {
				ag.cost += *res.CostUSD
				ag.priced++
				if won {
					ag.pricedWins++
				}
			}
		}
		d := day[res.Agent]
		d.Runs++
		if won {
			d.Selected++
		}
		if res.CostUSD != nil {
			d.CostUSD += *res.CostUSD
			d.Priced++
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
	s := &Standings{Since: since, Until: until, Runs: a.runs, Outcomes: a.settle()}
	s.Agents = figures(a.agents, func(x *Agent, name string) { x.Agent = name })
	s.Models = figures(a.models, func(x *Agent, name string) { x.Model = name })
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

// figures are the accumulated figures of each name in m, ranked.
func figures(m map[string]*agentAcc, named func(*Agent, string)) []Agent {
	var out []Agent
	for name, ag := range m {
		x := Agent{Runs: ag.runs, Selected: ag.selected, Admissible: ag.admissible,
			WinRate: ratio(ag.selected, ag.runs), AdmissibleRate: ratio(ag.admissible, ag.runs), MeteredRuns: ag.metered, PricedRuns: ag.priced,
			PullRequests: ag.opened, Merged: ag.merged, Closed: ag.closed, Reverted: ag.reverted, PricedMerged: ag.pricedMerged}
		named(&x, name)
		slices.Sort(ag.exec)
		x.ExecMSMedian, x.ExecMSP90 = median(ag.exec), nearestRank(ag.exec, 0.9)
		if ag.metered > 0 {
			x.Tokens = &ag.tokens
		}
		if ag.priced > 0 {
			x.CostUSD = ptr(nano(ag.cost))
			if ag.pricedWins > 0 {
				x.CostPerWinUSD = ptr(nano(ag.cost / float64(ag.pricedWins)))
			}
		}
		if d := ag.merged + ag.closed; d > 0 {
			x.MergeRate = ptr(ratio(ag.merged, d))
		}
		if ag.merged > 0 {
			slices.Sort(ag.toMerge)
			m := median(ag.toMerge)
			x.MedianTimeToMergeMS = &m
		}
		if ag.pricedMerged > 0 {
			x.CostPerMergedUSD = ptr(nano(ag.mergedCost / float64(ag.pricedMerged)))
		}
		out = append(out, x)
	}
	slices.SortFunc(out, rank)
	return out
}

// rank orders agents (or models) as the standings show them: those whose
// changes people merged or closed first, by merge rate, then by how many
// of their changes were decided; then the others, by win rate; then by
// runs, and name. A merge rate of 3 of 4 ranks above 0 of 4, and an
// agent with outcomes above one without: what people kept says more
// than what optr selected.
func rank(x, y Agent) int {
	switch {
	case (x.MergeRate == nil) != (y.MergeRate == nil):
		if x.MergeRate != nil {
			return -1
		}
		return 1
	case x.MergeRate != nil && *x.MergeRate != *y.MergeRate:
		return cmpFloat(*y.MergeRate, *x.MergeRate)
	case x.Decided() != y.Decided():
		return y.Decided() - x.Decided()
	case x.WinRate != y.WinRate:
		return cmpFloat(y.WinRate, x.WinRate)
	case x.Runs != y.Runs:
		return y.Runs - x.Runs
	}
	return strings.Compare(x.Name(), y.Name())
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
