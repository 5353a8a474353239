package check

import (
	"context"
	"fmt"

	"golang.org/x/sync/errgroup"

	"github.com/optr-dev/optr/internal/redact"
	"github.com/optr-dev/optr/internal/status"
)

// maxParallelChecks bounds the checks of one output that run at once: enough
// to overlap a slow command with a judge's round trip, few enough to leave
// the runner's cores and the judges' rate limits to the agents.
const maxParallelChecks = 4

// Evaluation is the outcome of every constraint for one output.
type Evaluation struct {
	// Verdicts has one entry per constraint, in constraint order.
	Verdicts []Verdict `json:"verdicts"`
	// Invariants are the constraints the output was verified to satisfy,
	// hard and soft, in constraint order (never nil).
	Invariants []string `json:"invariants"`
	// Admissible is true when no hard constraint failed. An unverified
	// constraint (one nobody defined, or a soft check that could not run)
	// does not block.
	Admissible bool `json:"admissible"`
	// HardFailed are the hard constraints that failed, in constraint order.
	HardFailed []string `json:"hard_failed,omitempty"`
}

// Evaluate runs every constraint's check on output, a few at a time, and
// sums up the verdicts. It never fails: a hard check that errors or panics
// (it could not run) fails closed with the reason — a check that cannot
// run must not let every output through — and a soft one leaves its
// constraint unverified; a constraint without a checker, or one nobody
// defined (Constraint.Undefined), is unverified.
//
// Reasons are redacted with the Redactor each constraint's checker was built
// with (Options.Redactor), whatever the checker put in them.
func Evaluate(ctx context.Context, constraints []Constraint, output string) Evaluation {
	ctx = withHash(ctx, output) // once, for every cached verdict below
	verdicts := make([]Verdict, len(constraints))
	var g errgroup.Group
	g.SetLimit(maxParallelChecks)
	for i, c := range constraints {
		g.Go(func() error {
			verdicts[i] = evaluateOne(ctx, c, output)
			return nil
		})
	}
	_ = g.Wait() // the goroutines never return an error
	return Summarize(verdicts)
}

// Summarize sums up verdicts, one per constraint in constraint order, into
// their Evaluation: the constraints that passed, whether the output is
// admissible, and the hard constraints that failed.
func Summarize(verdicts []Verdict) Evaluation {
	ev := Evaluation{Verdicts: verdicts, Invariants: []string{}, Admissible: true}
	for _, v := range verdicts {
		switch {
		case v.Status == status.Passed:
			ev.Invariants = append(ev.Invariants, v.Constraint)
		case v.Status == status.Failed && v.Hard:
			ev.Admissible = false
			ev.HardFailed = append(ev.HardFailed, v.Constraint)
		}
	}
	return ev
}

// evaluateOne runs one check; an error or a panic fails a hard constraint
// somebody defined and leaves any other unverified.
func evaluateOne(ctx context.Context, c Constraint, output string) (v Verdict) {
	v = Verdict{Constraint: c.Name, Hard: c.Hard, Status: status.Unverified}
	if c.Checker == nil {
		v.Reason = "not defined in the config, and no judge agent is configured to verify it"
		return v
	}
	notRun := func(why string) {
		v.Status, v.Reason = status.Unverified, why
		if c.Hard && !c.Undefined {
			v.Status, v.Reason = status.Failed, "failed closed, the check could not run: "+why
		}
	}
	defer func() {
		if r := recover(); r != nil {
			notRun(fmt.Sprintf("the check panicked: %v", r))
		}
	}()
	if rc, ok := c.Checker.(redacting); ok {
		defer func() { v.Reason = rc.redactor().String(v.Reason) }()
	}
	o, err := c.Checker.Check(ctx, output)
	switch {
	case err != nil:
		notRun(err.Error())
	case o.Pass:
		v.Status, v.Reason = status.Passed, o.Reason
	default:
		v.Status, v.Reason = status.Failed, o.Reason
		if v.Reason == "" {
			v.Reason = "the check failed without saying why"
		}
	}
	return v
}

// redacting is a Checker that knows the run's Redactor; the checkers New
// builds are wrapped in one.
type redacting interface{ redactor() *redact.Redactor }

// withRedactor carries Options.Redactor beside a checker, so Evaluate
// redacts its reasons by construction.
type withRedactor struct {
	Checker
	r *redact.Redactor
}

func (w withRedactor) redactor() *redact.Redactor { return w.r }
