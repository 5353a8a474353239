package worktree

import (
	"context"
	"errors"
	"path/filepath"
	"slices"

	"github.com/optr-dev/optr/internal/check"
)

// Constraint returns the hard constraint VerdictName ("changes") that
// puts Policy p into every result's checks: add it to the run's
// constraints, and each result evaluated under its worktree
// (check.WithDir(ctx, tree.Dir()), or executor.Task.Dir) fails it when its
// change is refused, empty, touches a protected path or too many files,
// with the reason in the score table. It judges the change Capture
// recorded, which should be taken before any check runs in the worktree
// (the executor's Sink); when there is none yet it captures with lim. A
// result without a worktree (an LLM agent's text) fails it: only agents
// that ran in a worktree change code.
//
// run returns the worktrees the results were made in. The constraint can
// so be part of a run's constraints from the start, before Start (or, in
// a process that only gathers results checked elsewhere, without it); a
// check while run returns nil is an error.
//
// own are optr's own files by absolute path (see Own): each check adds
// those in the run's repository to p.Own.
func Constraint(p Policy, lim Limits, run func() *Run, own ...Own) check.Constraint {
	return check.Constraint{
		Name:        VerdictName,
		Hard:        true,
		Checker:     changesCheck{run: run, policy: p, lim: lim, own: own},
		Description: "the agent's change to the repository is admissible (changes: protect, max-files, max-deletions, not empty)",
	}
}

type changesCheck struct {
	run    func() *Run
	policy Policy
	lim    Limits
	own    []Own // absolute
}

func (c changesCheck) Check(ctx context.Context, _ string) (check.Outcome, error) {
	r := c.run()
	if r == nil {
		return check.Outcome{}, errors.New("the run's worktrees were not started, so no change can be judged here")
	}
	t := r.treeAt(check.DirOf(ctx))
	if t == nil {
		return check.Outcome{Reason: "the agent did not work in a worktree of its own, so it changed no code (only command and copilot agents do)"}, nil
	}
	ch, ok := t.Captured()
	var err error
	if !ok {
		if ch, err = t.Capture(ctx, c.lim); err != nil {
			return check.Outcome{}, err
		}
	}
	p := c.policy
	p.Own = append(slices.Clip(p.Own), OwnIn(r.Workspace(), c.own)...)
	if p.MaxDeletions == 0 {
		if p.Tracked, err = r.Tracked(ctx); err != nil {
			return check.Outcome{}, err
		}
	}
	v := p.Admit(ch)
	return check.Outcome{Pass: v.Admissible, Reason: v.Reason}, nil
}

// treeAt returns the run's worktree whose directory is dir, or nil.
func (r *Run) treeAt(dir string) *Tree {
	if dir == "" {
		return nil
	}
	dir = filepath.Clean(dir)
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, t := range r.trees {
		if t.dir == dir {
			return t
		}
	}
	return nil
}

// Captured returns the change Capture last recorded for the worktree, and
// false when it was not captured yet.
func (t *Tree) Captured() (Change, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.captured == nil {
		return Change{}, false
	}
	return *t.captured, true
}
