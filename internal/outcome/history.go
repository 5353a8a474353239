package outcome

import (
	"context"
	"fmt"
	"time"

	"github.com/tidwall/gjson"

	"github.com/optr-dev/optr/internal/ledger"
)

// Pull is what the ledger holds of one pull request optr opened.
type Pull struct {
	Number int
	// Run and Workflow name the run that opened it; Opened is when that
	// run was recorded.
	Run, Workflow string
	Opened        time.Time
	// Agent and Model are that run's π* and the model it answered with.
	Agent, Model string
	// Iterations counts the runs on it, the opening one included.
	Iterations int
	// CostUSD sums their recorded costs; Priced counts the runs whose
	// cost is known.
	CostUSD float64
	Priced  int
	// Outcomes are the outcomes recorded of it, by what happened.
	Outcomes map[string]Outcome
}

// Cost is what the runs on the pull request cost, nil when the cost of
// any of them is unknown: a sum that leaves one out would call the change
// cheaper than it was.
func (p *Pull) Cost() *float64 {
	if p.Priced < p.Iterations || p.Iterations == 0 {
		return nil
	}
	usd := p.CostUSD
	return &usd
}

// Decided reports whether the pull request's merge or close is recorded.
func (p *Pull) Decided() bool {
	_, merged := p.Outcomes[Merged]
	_, closed := p.Outcomes[Closed]
	return merged || closed
}

// History is what a window of the ledger holds of optr's pull requests.
type History struct {
	// Since is where the window starts.
	Since time.Time
	// Pulls are the pull requests opened by a run in the window, by
	// number.
	Pulls map[int]*Pull
}

// Read reads the pull requests that runs recorded from since on, their
// runs and their outcomes, from a window of the ledger in st that
// verifies (ledger.ReadVerifiedWindow): the numbers it gives are the
// ledger's as written.
func Read(ctx context.Context, st ledger.Store, since time.Time) (*History, error) {
	h := &History{Since: since, Pulls: map[int]*Pull{}}
	var runs []pullRun // the window comes newest segment first
	var outcomes []Outcome
	err := ledger.ReadVerifiedWindow(ctx, st, since, func(e ledger.WindowEntry) error {
		switch e.Kind {
		case ledger.KindRun:
			if r, ok := decodeRun(e); ok {
				runs = append(runs, r)
			}
		case ledger.KindOutcome:
			if o, ok := Decode(e); ok {
				outcomes = append(outcomes, o)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the pull requests optr opened: %w", err)
	}
	for _, r := range runs {
		if r.iteration <= 1 {
			h.Pulls[r.pull] = &Pull{Number: r.pull, Run: r.run, Workflow: r.workflow, Opened: r.time,
				Agent: r.agent, Model: r.model, Outcomes: map[string]Outcome{}}
		}
	}
	for _, r := range runs {
		p := h.Pulls[r.pull]
		if p == nil {
			continue // opened before the window
		}
		p.Iterations++
		if r.priced {
			p.CostUSD += r.cost
			p.Priced++
		}
	}
	for _, o := range outcomes {
		if p := h.Pulls[o.PullRequest]; p != nil && p.Run == o.Run {
			if _, dup := p.Outcomes[o.Outcome]; !dup {
				p.Outcomes[o.Outcome] = o
			}
		}
	}
	return h, nil
}

// pullRun is a run entry about a pull request.
type pullRun struct {
	run, workflow string
	time          time.Time
	pull          int
	iteration     int
	agent, model  string
	cost          float64
	priced        bool
}

// decodeRun reads the members of a run entry that say which pull request
// it worked on; ok is false for a run on none.
func decodeRun(e ledger.WindowEntry) (pullRun, bool) {
	// A cost of which a part is unknown (cost_unknown) is no change's cost.
	r := pullRun{run: e.Run, workflow: e.Workflow, time: e.Time, cost: e.CostUSD, priced: e.HasCost && !e.CostUnknown}
	var results gjson.Result
	gjson.ParseBytes(e.Line).ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "pull_request":
			r.pull = int(v.Int())
		case "iteration":
			r.iteration = int(v.Int())
		case "selected":
			r.agent = v.String()
		case "results":
			results = v
		}
		return true
	})
	if r.pull <= 0 {
		return r, false
	}
	results.ForEach(func(_, res gjson.Result) bool {
		if res.Get("agent").String() == r.agent && r.agent != "" {
			r.model = res.Get("model").String()
			return false
		}
		return true
	})
	return r, true
}
