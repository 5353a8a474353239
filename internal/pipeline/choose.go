package pipeline

import (
	"context"

	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/cost"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/selection"
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
	cands := make([]selection.Candidate, len(results))
	for i, r := range results {
		cands[i] = r.Candidate()
		cands[i].Kept = p.records[r.Agent]
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
}

// settleSpend gives each result what was spent for it, once its checks
// have run. A result that made calls elsewhere (a matrix coordinator)
// with nothing recorded here has an unknown cost, never 0; a result
// gathered with its spend was charged by its mode.
func (p *Prepared) settleSpend(ctx context.Context, results []*executor.Result) {
	for _, r := range results {
		s, ok := p.meter.Account(r.Agent)
		if !ok && len(r.Attempts) > 0 {
			s = cost.Spend{Unpriced: 1}
			p.meter.Charge(cost.ForAgent(ctx, r.Agent), s)
		}
		r.Spent = &s
	}
}
