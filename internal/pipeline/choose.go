package pipeline

import (
	"context"
	"time"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/cost"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/selection"
	"github.com/optr-dev/optr/internal/standings"
)

// Every selection of a run is made here, whatever its mode (architecture
// §2): π*, which the driver chooses once the mode ran among the results
// the mode nominates, and the choices a mode makes among its agents'
// results before the run ends — a delegation's candidates for one topic,
// a gather confirming the result it will deliver — through
// Execution.Choose. Each settles its results first — their verdicts (the
// threat scan, with detection.all) and then what they cost, the scan's
// calls included — so the same results give the same choice in every
// mode, and a choice made early is the one the driver makes later.

// Nominator is a Mode whose π* is chosen among some of its results only:
// a delegation's specialists (its coordinator's plan is not a result to
// select), a stage chain's last stage when the chain completed. Every
// result of a mode that is not one is a candidate.
type Nominator interface {
	// Candidates are the results, of those the mode put in the report,
	// that π* is chosen among; none when nothing may be selected.
	Candidates() []*executor.Result
}

// Choose scores results and chooses the best admissible one under rules
// (the run's selection rules, or a mode's variant of them): the one way a
// mode chooses among its agents' results, so that its choices weigh what
// π*'s does. Each result's verdicts and cost are settled first.
func (x *Execution) Choose(ctx context.Context, results []*executor.Result, rules config.Selection) selection.Result {
	return x.Prepared.choose(ctx, x.rep, results, rules, true)
}

// choose settles results — with scan and detection.all, their threat
// verdicts (scanAll); then what they cost — and scores them and chooses
// among them under rules.
func (p *Prepared) choose(ctx context.Context, rep *report, results []*executor.Result, rules config.Selection, scan bool) selection.Result {
	if scan && p.Spec.Config.Detection.All {
		p.scanAll(ctx, rep, results)
	}
	p.settleSpend(ctx, results)
	records := p.loadRecords(ctx)
	cands := make([]selection.Candidate, len(results))
	for i, r := range results {
		cands[i] = r.Candidate()
		cands[i].Kept = records[r.ConfiguredAgent()]
	}
	return selection.Select(cands, rules)
}

// selectPiStar makes the run's selection once its mode ran: π* chosen
// among the mode's candidates, each settled first (with scan, the threat
// scan detection.all asks for: a blocked one is not admissible), and every
// other result's spend settled too.
func (p *Prepared) selectPiStar(ctx context.Context, rep *report, scan bool) {
	cands := rep.Results
	if n, ok := p.mode.(Nominator); ok {
		cands = n.Candidates()
	}
	rep.Selection = p.choose(ctx, rep, cands, p.Spec.Config.Selection, scan)
	p.settleSpend(ctx, rep.Results)
	rep.records = p.loadRecords(ctx)
}

// RecordWindow is how far back what people did with the agents' pull
// requests counts in a run's tie-breaks and recommendations (architecture
// §4.19), as in the standings every step summary shows.
const RecordWindow = 30 * 24 * time.Hour

// loadRecords reads, once, what people did with each agent's pull
// requests over the last RecordWindow, from the ledger's outcomes (the
// standings, verified), when the run first selects — after preflight
// checked the ledger. A ledger that cannot be read, or does not verify,
// leaves them out, said in the log: they are advice, and verify reports
// the damage. Without a store (a matrix task, a test) there are none.
func (p *Prepared) loadRecords(ctx context.Context) map[string]selection.Record {
	p.recordsOnce.Do(func() {
		if p.recordsFrom == nil {
			return
		}
		now := p.deps.now()
		s, err := standings.Read(ctx, p.recordsFrom, now.Add(-RecordWindow), now)
		if err != nil {
			p.deps.logf("ties are broken without what people did with the agents' pull requests: %v", err)
			return
		}
		p.records = map[string]selection.Record{}
		for _, a := range s.Agents {
			if a.Decided() > 0 {
				p.records[a.Agent] = selection.Record{Merged: a.Merged, Closed: a.Closed}
			}
		}
	})
	return p.records
}

// settleSpend gives each result what was spent for it, once its checks
// have run. A result that made calls elsewhere (a matrix coordinator)
// with nothing recorded here has an unknown cost, never 0; a result
// gathered with its spend was charged by its mode.
func (p *Prepared) settleSpend(ctx context.Context, results []*executor.Result) {
	for _, r := range results {
		s, ok := p.meter.Account(r.Agent)
		if !ok && len(r.Attempts) > 0 {
			s = cost.Spend{Usage: agent.UnknownUsage}
			p.meter.Charge(cost.ForAgent(ctx, r.Agent), s)
		}
		r.Spent = &s
	}
}
