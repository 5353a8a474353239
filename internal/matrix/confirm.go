package matrix

import (
	"context"
	"fmt"
	"slices"

	"github.com/optr-dev/optr/internal/check"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/pipeline"
	"github.com/optr-dev/optr/internal/selection"
	"github.com/optr-dev/optr/internal/worktree"
)

// confirm runs the command checks of the result the run would deliver
// again here before the driver delivers it: the selection the driver will
// make over results is made first, and the command checks of its
// deliverable — π*, or when nothing is admissible the best-scoring result,
// which a human's Proceed at the NO_ADMISSIBLE checkpoint delivers — are
// run on its output (with code changes, in a fresh tree at the plan's
// commit holding its verified patch), their verdicts replacing those its
// task recorded. A task's command checks ran code its agent wrote, in a
// job that could rewrite its result.json afterwards. When the verdicts
// change the selection (π* no longer admissible, or another result now
// scores best) it is made again, each new deliverable checked the same
// way, until it lands on a result checked here (or on none). The driver's
// own selection over the same results (Execution.Choose, with the same
// spend: the tasks' is charged first) then lands there too, so the
// checkpoint shows a human the verdicts found here.
func confirm(ctx context.Context, x *pipeline.Execution, g *Gathered) error {
	programs := slices.DeleteFunc(slices.Clone(x.Options.Constraints), func(c check.Constraint) bool { return !c.Program })
	if len(programs) == 0 {
		return nil
	}
	rc := &rechecker{x: x, programs: programs}
	defer rc.close(ctx)
	checked := map[string]bool{}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		cfg := x.Prepared.Spec.Config.Selection
		name := deliverable(x.Choose(ctx, g.Results, cfg), cfg)
		if name == "" || checked[name] {
			return nil
		}
		checked[name] = true
		i := slices.IndexFunc(g.Results, func(r *executor.Result) bool { return r.Agent == name })
		if i < 0 {
			return fmt.Errorf("the result to deliver, %s, is none of the gathered results", name)
		}
		rc.rerun(ctx, g.Results[i], g.patches[name])
	}
}

// deliverable is the result a selection under cfg leads to delivering:
// π*, or with nothing selected and a NO_ADMISSIBLE checkpoint to raise,
// the best-scoring candidate, which Proceed there takes.
func deliverable(sel selection.Result, cfg config.Selection) string {
	if sel.Selected == "" && cfg.OnNoAdmissible == config.NoAdmissibleCheckpoint {
		return sel.Best
	}
	return sel.Selected
}

// rechecker runs command checks again in the gather's own trees, started
// at the first result that needs one.
type rechecker struct {
	x        *pipeline.Execution
	programs []check.Constraint
	trees    *worktree.Run
}

// rerun runs r's command checks again and keeps their verdicts, each one
// found different saying so (overrule). With code changes they run in a
// fresh tree at the plan's commit with patch applied (none: the agent
// changed nothing); a tree that cannot be made, or a patch that does not
// apply, is a check that could not run: a hard one fails, closed.
func (rc *rechecker) rerun(ctx context.Context, r *executor.Result, patch []byte) {
	if len(r.Checks.Verdicts) == 0 {
		return // nothing was checked: its agent failed
	}
	cs := rc.programs
	if rc.x.Prepared.Spec.Config.Changes.On() {
		tree, err := rc.tree(ctx, r.Agent, patch)
		if err != nil {
			cs = cannotRun(cs, err)
		} else {
			defer func() { _ = tree.Remove(ctx) }()
			ctx = check.WithDir(ctx, tree.Dir())
		}
	}
	ev, overruled := check.Rerun(ctx, cs, r.Checks, r.Output)
	r.Checks = overrule(r.Checks.Verdicts, ev, overruled)
}

// tree makes a fresh tree for the result named agent, at the plan's
// commit, and applies patch to it.
func (rc *rechecker) tree(ctx context.Context, agent string, patch []byte) (*worktree.Tree, error) {
	if rc.trees == nil {
		p := rc.x.Prepared
		trees, err := p.StartTrees(ctx, p.Spec.Commit)
		if err != nil {
			return nil, fmt.Errorf("the gather could not make a fresh tree to run it again: %w", err)
		}
		rc.trees = trees
	}
	tree, err := rc.trees.Add(ctx, agent)
	if err != nil {
		return nil, fmt.Errorf("the gather could not make a fresh tree to run it again: %w", err)
	}
	if len(patch) > 0 {
		if err := tree.Apply(ctx, patch); err != nil {
			_ = tree.Remove(ctx)
			return nil, fmt.Errorf("the gather could not apply the task's change to a fresh tree at %.12s: %w", rc.trees.Base(), err)
		}
	}
	return tree, nil
}

// close removes the gather's trees.
func (rc *rechecker) close(ctx context.Context) {
	if rc.trees != nil {
		_ = rc.trees.Close(context.WithoutCancel(ctx))
	}
}

// cannotRun is cs with every checker replaced by one that cannot run for
// err: Rerun fails a hard constraint closed, with err as the reason.
func cannotRun(cs []check.Constraint, err error) []check.Constraint {
	out := slices.Clone(cs)
	for i := range out {
		out[i].Checker = failing{err}
	}
	return out
}

// failing is a check that cannot run.
type failing struct{ err error }

func (f failing) Check(context.Context, string) (check.Outcome, error) { return check.Outcome{}, f.err }
