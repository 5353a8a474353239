package executor

import (
	"time"

	"github.com/optr-dev/optr/internal/cost"
	"github.com/optr-dev/optr/internal/selection"
	"github.com/optr-dev/optr/internal/status"
)

// Candidate returns r as selection sees it: whether it has output, whether
// every hard constraint passed, how many constraints were verified and
// passed, its times, and its cost once Spent is settled (unknown before).
// Every selection of a run scores results through it (pipeline's choose),
// so all of them share one score table.
func (r *Result) Candidate() selection.Candidate {
	passed, verified := 0, 0
	for _, v := range r.Checks.Verdicts {
		switch v.Status {
		case status.Passed:
			passed++
			verified++
		case status.Failed:
			verified++
		}
	}
	c := selection.Candidate{
		Agent:      r.Agent,
		Configured: r.ConfiguredAgent(),
		HasOutput:  r.HasOutput(),
		Admissible: r.HasOutput() && r.Checks.Admissible,
		Passed:     passed,
		Verified:   verified,
		TTV:        time.Duration(r.TTVms) * time.Millisecond,
		Exec:       time.Duration(r.ExecMS) * time.Millisecond,
	}
	c.Spent = cost.Spend{Unpriced: 1} // not settled: its cost is not known
	if r.Spent != nil {
		c.Spent = *r.Spent
	}
	return c
}
