package check

import "context"

// Recheck judges output again by every constraint whose check depends on
// the output alone (Constraint.Deterministic) and puts that verdict in
// place of the one ev recorded, whatever ev said: an evaluation written
// by someone else (a matrix task's result.json) is not trusted for what
// the reader can verify itself. Verdicts of other constraints (judges,
// commands, the changes policy) are kept as ev has them; a deterministic
// constraint ev has no verdict for is added. Overruled names the
// constraints whose recorded verdict was not the one found again.
func Recheck(ctx context.Context, constraints []Constraint, ev Evaluation, output string) (out Evaluation, overruled []string) {
	var det []Constraint
	for _, c := range constraints {
		if c.Deterministic {
			det = append(det, c)
		}
	}
	return Rerun(ctx, det, ev, output)
}

// Rerun judges output again by every one of constraints that has a
// checker, under ctx (WithDir: a fresh tree holding the result's change,
// for command checks), and puts those verdicts in place of the ones ev
// recorded, as Recheck does; the caller chooses which constraints it can
// judge again. Overruled names the constraints whose recorded verdict
// was not the one found again.
func Rerun(ctx context.Context, constraints []Constraint, ev Evaluation, output string) (out Evaluation, overruled []string) {
	ctx = withHash(ctx, output)
	verdicts := append([]Verdict(nil), ev.Verdicts...)
	for _, c := range constraints {
		if c.Checker == nil {
			continue
		}
		v := evaluateOne(ctx, c, output)
		i := indexOf(verdicts, c.Name)
		if i < 0 {
			verdicts = append(verdicts, v)
			overruled = append(overruled, c.Name)
			continue
		}
		if old := verdicts[i]; old.Status != v.Status || old.Hard != v.Hard {
			overruled = append(overruled, c.Name)
		}
		verdicts[i] = v
	}
	return Summarize(verdicts), overruled
}

func indexOf(vs []Verdict, name string) int {
	for i, v := range vs {
		if v.Constraint == name {
			return i
		}
	}
	return -1
}
