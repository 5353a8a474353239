package pipeline

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/status"
	"github.com/optr-dev/optr/internal/worktree"
)

// Code changes as results (architecture §4.12): with changes.mode other than
// none, every command and copilot agent of the run works in a git
// repository of its own (architecture §4.14: objects borrowed from the
// workspace, nothing of its configuration; a copilot agent as a coding
// agent, its file tools limited to it), its change is captured as agent-outputs/<agent>.patch when it ends,
// its command checks run in its worktree, and the hard constraint "changes"
// (worktree.Run.Constraint) makes an empty, protected or too large change
// inadmissible. After Conclude, only π*'s patch is handed to the Driver's
// Deliverer (a pull request in the Action, git apply --index in the CLI),
// before the run is recorded, so that the `run` entry names the pull
// request.

// PatchFile is the path, in a run's directory, of agent's patch.
func PatchFile(agentName string) string {
	return filepath.Join(datalake.DirOutputs, agentName+".patch")
}

// codeChanges holds the worktrees of a run whose agents change code. A nil
// *codeChanges (changes.mode none) leaves every hook a no-op.
type codeChanges struct {
	run    *worktree.Run
	limits worktree.Limits

	mu    sync.Mutex
	trees map[string]*placed // by configured agent name
	synth string             // the synthesizer's agent name, when it has a tree
}

// placed is one agent's worktree, made when the agent is first launched
// (agents start making theirs at once, and a spare never launched costs
// none), and how often the agent was launched in it.
type placed struct {
	name string
	run  *worktree.Run

	mu       sync.Mutex
	tree     *worktree.Tree // nil until the first launch made it
	err      error          // why the first launch could not make it
	launches int
}

// launch makes the worktree at the first launch, or resets it to the base
// at every later one, and returns it. The making counts in the launch's
// time (and its attempt-timeout); a tree that could not be made fails
// every launch with the same reason.
func (pl *placed) launch(ctx context.Context) (*worktree.Tree, error) {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	pl.launches++
	switch {
	case pl.err != nil:
		return nil, pl.err
	case pl.tree == nil:
		pl.tree, pl.err = pl.run.Add(ctx, pl.name)
		return pl.tree, pl.err
	case pl.launches > 1:
		if err := pl.tree.Reset(ctx); err != nil {
			return nil, err
		}
	}
	return pl.tree, nil
}

// made returns the worktree, nil when the agent was never launched or its
// tree could not be made.
func (pl *placed) made() *worktree.Tree {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	return pl.tree
}

// startChanges starts the run's worktrees (pruning those of runs that were
// killed), where the "changes" constraint Prepare added judges each
// agent's change. It returns nil when the config's changes.mode is none or
// the mode runs no agents (Traits.Gathers: a gather hands over each
// result with its change and its patch).
func (p *Prepared) startChanges(ctx context.Context) (*codeChanges, error) {
	cfg := p.Spec.Config.Changes
	if !cfg.On() || p.mode.Traits().Gathers {
		return nil, nil
	}
	run, err := p.StartTrees(ctx, "")
	if err != nil {
		return nil, inputErr(fmt.Errorf("changes.mode is %s: %w", cfg.Mode, err))
	}
	if err := p.scriptsCommitted(ctx, run); err != nil {
		_ = run.Discard(ctx)
		return nil, inputErr(err)
	}
	return &codeChanges{run: run, limits: worktree.Limits{Redactor: p.agents.secret}, trees: map[string]*placed{}}, nil
}

// StartTrees starts worktrees for the run as its coding agents get them:
// under Deps.WorktreeRoot, written as the sandbox's user, their
// repositories' borrowed objects readable in the sandbox; each tree starts
// at base ("" for the workspace's HEAD). The caller closes the run. The
// run's agents get theirs from Execute; a matrix gather, which runs no
// agent, starts its own to run the command checks on a task's change
// again. Call it once the run executes (Mode.Run), when the sandbox has
// started.
func (p *Prepared) StartTrees(ctx context.Context, base string) (*worktree.Run, error) {
	opts := worktree.Options{Workspace: p.Spec.Dir, Root: p.deps.WorktreeRoot, RunID: p.Spec.RunID, Base: base}
	if uid, gid, ok := p.sandbox.Owner(); ok {
		opts.Owner = &worktree.Owner{UID: uid, GID: gid} // trees written as the agents' user: no chown after
	}
	run, err := worktree.Start(ctx, opts)
	if err != nil {
		return nil, err
	}
	// Each tree's repository reads the workspace's objects.
	p.sandbox.AllowRead(run.ReadOnly()...)
	return run, nil
}

// scriptsCommitted refuses a run whose command agent (among the run's
// agents, spares and synthesizer) names a file of the workspace that is
// not committed: its worktree starts at HEAD, where the file is missing,
// and the agent would fail with the shell's "cannot open".
func (p *Prepared) scriptsCommitted(ctx context.Context, run *worktree.Run) error {
	cfg := p.Spec.Config
	names := slices.Concat(p.AgentNames, cfg.Watcher.Spares, []string{cfg.Watcher.Synthesizer})
	for _, n := range names {
		ac, ok := cfg.Agents[n]
		if !ok || ac.Provider != config.ProviderCommand {
			continue
		}
		missing, err := run.Uncommitted(ctx, p.Spec.Dir, ac.Run)
		if err != nil {
			return fmt.Errorf("agent %q: %w", n, err)
		}
		if len(missing) > 0 {
			return fmt.Errorf("agent %q runs %s, which is not committed: with changes.mode %s each agent works in a worktree that starts at HEAD (%.12s), where it is missing; commit it (git add %s && git commit) and run again",
				n, strings.Join(missing, ", "), cfg.Changes.Mode, run.Base(), strings.Join(missing, " "))
		}
	}
	return nil
}

// worktrees returns the run's worktrees once Execute started them, for the
// "changes" constraint.
func (p *Prepared) worktrees() *worktree.Run {
	if p.changes == nil {
		return nil
	}
	return p.changes.run
}

// place gives every command and copilot agent among tasks, spares and the
// synthesizer a worktree of its own: its working directory, where its
// command checks run too. The tree is made when the agent is first
// launched. An agent that appears twice (a synthesizer that is also a
// task) shares its worktree, reset before each launch.
func (c *codeChanges) place(tasks, spares []executor.Task, synth *executor.Task) error {
	if c == nil {
		return nil
	}
	for _, ts := range [][]executor.Task{tasks, spares} {
		for i := range ts {
			if err := c.placeOne(&ts[i]); err != nil {
				return err
			}
		}
	}
	if synth != nil && changesCode(synth.Provider) {
		if err := c.placeOne(synth); err != nil {
			return err
		}
		c.synth = synth.Agent.Name()
	}
	return nil
}

func (c *codeChanges) placeOne(t *executor.Task) error {
	if !changesCode(t.Provider) {
		return nil // an LLM agent answers in text; it has no files to change
	}
	name := t.Agent.Name()
	dir, err := c.run.TreeDir(name)
	if err != nil {
		return err
	}
	c.mu.Lock()
	pl, ok := c.trees[name]
	if !ok {
		pl = &placed{name: name, run: c.run}
		c.trees[name] = pl
	}
	c.mu.Unlock()
	t.Dir = dir
	t.Agent = inWorktree{Agent: t.Agent, at: pl, limits: c.limits}
	return nil
}

// refuseTextAgents refuses a run that changes code with an agent among
// tasks that answers in text (an LLM provider's): it has no worktree, so
// its result could only fail the "changes" constraint, after it spent its
// tokens. Nil when changes are off.
func refuseTextAgents(c config.Changes, tasks []executor.Task) error {
	if !c.On() {
		return nil
	}
	var text []string
	for _, t := range tasks {
		if !changesCode(t.Provider) {
			text = append(text, fmt.Sprintf("%q (%s)", t.Agent.Name(), t.Provider))
		}
	}
	if len(text) == 0 {
		return nil
	}
	return fmt.Errorf("changes.mode is %s, but agent %s answers in text and can change no code: only command and copilot agents work in a worktree; leave it out of the run (--agents, or the pipeline's agents) or set changes.mode none",
		c.Mode, strings.Join(text, ", agent "))
}

// changesCode reports whether agents of provider change code in a worktree
// when changes are on: command agents (any program) and copilot agents
// (the Copilot CLI's file tools).
func changesCode(provider string) bool {
	return provider == config.ProviderCommand || provider == config.ProviderCopilot
}

// inWorktree runs an agent in its worktree, made at its first launch:
// every launch after the first (a retry, a restart, a spare's second task)
// starts from the base again, and each launch's change is captured as soon
// as the agent is done, so that checks during recovery judge that launch's
// change.
type inWorktree struct {
	agent.Agent
	at     *placed
	limits worktree.Limits
}

// Run implements agent.Agent.
func (a inWorktree) Run(ctx context.Context, req agent.Request) (agent.Response, error) {
	tree, err := a.at.launch(ctx)
	if err != nil {
		return agent.Response{}, agent.Errorf(agent.Systematic, "worktree", "%v", err)
	}
	req.Worktree = tree.Dir()
	resp, err := a.Agent.Run(ctx, req)
	// Captured even when the agent failed or was stopped: what it left is
	// its change. The Sink captures again if this fails.
	_, _ = tree.Capture(context.WithoutCancel(ctx), a.limits)
	return resp, err
}

// treeFor returns the worktree of the agent whose result is named name:
// the agent's own name, "synthesis" for the synthesizer, or a spare's name
// with a "-N" suffix (a spare that took over a second task).
func (c *codeChanges) treeFor(name string) *placed {
	c.mu.Lock()
	defer c.mu.Unlock()
	if pl, ok := c.trees[name]; ok {
		return pl
	}
	if name == executor.SynthesisAgent && c.synth != "" {
		return c.trees[c.synth]
	}
	if i := strings.LastIndexByte(name, '-'); i > 0 {
		if _, err := strconv.Atoi(name[i+1:]); err == nil {
			return c.trees[name[:i]]
		}
	}
	return nil
}

// sink records each result's change before next (the agent-outputs JSON)
// and before its checks run: the change on the result, the patch in
// agent-outputs/<agent>.patch.
func (c *codeChanges) sink(ctx context.Context, run *datalake.Run, next func(*executor.Result) error) func(*executor.Result) error {
	if c == nil {
		return next
	}
	return func(r *executor.Result) error {
		var tree *worktree.Tree
		if pl := c.treeFor(r.Agent); pl != nil {
			tree = pl.made()
		}
		if tree == nil {
			return next(r) // not a coding agent, or its tree was never made
		}
		ch, ok := tree.Captured()
		if !ok {
			var err error
			if ch, err = tree.Capture(ctx, c.limits); err != nil {
				return errors.Join(err, next(r))
			}
		}
		var werr error
		if len(ch.Patch) > 0 {
			werr = run.WriteChange(PatchFile(r.Agent), ch.Patch)
		}
		ch.Patch = nil // kept in the file, not in memory or JSON
		r.Change = &ch
		return errors.Join(werr, next(r))
	}
}

// discard removes every worktree of the run, however the run ended; their
// files are deleted in the background until Prepared.Settle.
func (c *codeChanges) discard(ctx context.Context, logf func(string, ...any)) {
	if c == nil {
		return
	}
	if err := c.run.Discard(ctx); err != nil {
		logf("remove the agents' worktrees: %v", err)
	}
}

// Delivery is how π*'s change left the run.
type Delivery struct {
	// PullRequest is the number of the pull request opened with the
	// change (0: none); URL its page; Branch the branch holding the change.
	PullRequest int
	URL, Branch string
	// Applied is true when the change was applied to the working tree.
	Applied bool
}

// Deliverer delivers the selected result's code change: it opens the
// pull request (the Action) or applies the patch to the working tree (the
// CLI). The Driver calls it once π* is final and before the run is
// recorded, so that the `run` ledger entry records the pull request; a
// paused run's change is delivered only after the human chose (Resume).
type Deliverer interface {
	// Deliver delivers patch, the change of o.Selected (verified against
	// its patch_sha256). An error leaves the run failed, with the reason,
	// and must mean nothing was applied or pushed.
	Deliver(ctx context.Context, o *Outcome, patch []byte) (Delivery, error)
}

// ApplyChange is the CLI's Deliverer for changes.mode apply: π*'s patch is
// applied to the workspace's working tree and index with git apply
// --index, checked first and never partially.
type ApplyChange struct {
	// Git is the git binary; empty means "git" on PATH.
	Git string
}

// Deliver implements Deliverer.
func (a ApplyChange) Deliver(ctx context.Context, o *Outcome, patch []byte) (Delivery, error) {
	if err := worktree.Apply(ctx, a.Git, o.Spec.Dir, patch); err != nil {
		return Delivery{}, err
	}
	return Delivery{Applied: true}, nil
}

// Patch returns the patch of the named agent's result as the run kept it
// (agent-outputs/<agent>.patch), after checking it against the result's
// patch_sha256. An error wraps fs.ErrNotExist when the file is missing
// from this checkout (a resumed run whose files live on the ledger branch).
func (o *Outcome) Patch(agentName string) ([]byte, error) {
	r := o.result(agentName)
	if r == nil || r.Change == nil {
		return nil, fmt.Errorf("%s did not work in a worktree, so it has no change", agentName)
	}
	if r.Change.Refused != "" {
		return nil, fmt.Errorf("the change of %s was refused: %s", agentName, r.Change.Refused)
	}
	if len(r.Change.Files) == 0 {
		return nil, fmt.Errorf("%s changed no file", agentName)
	}
	patch, err := os.ReadFile(o.Path(PatchFile(agentName)))
	if err != nil {
		return nil, fmt.Errorf("read the change of %s: %w", agentName, err)
	}
	if got := worktree.SHA256Hex(patch); got != r.Change.PatchSHA256 {
		return nil, fmt.Errorf("the change of %s in %s has sha256 %s, but the run recorded %s: it was altered", agentName, PatchFile(agentName), got, r.Change.PatchSHA256)
	}
	return patch, nil
}

// refusedChange is why the "changes" constraint refused the change of
// agentName's result, "" when it did not: such a change is delivered
// only when a human chose it at a checkpoint.
func (o *Outcome) refusedChange(agentName string) string {
	if r := o.result(agentName); r != nil {
		for _, v := range r.Checks.Verdicts {
			if v.Constraint == worktree.VerdictName && v.Status == status.Failed {
				return v.Reason
			}
		}
	}
	return ""
}

// deliver hands π*'s change to the Deliverer. It does nothing unless
// agents change code and the run completed with π* selected. A change the
// "changes" constraint refused is delivered only when a human chose it at
// a checkpoint, never by selection.on-no-admissible: least-bad. A change
// that cannot be delivered fails the run, with the reason, and the run is
// recorded as usual.
func (d *Driver) deliver(ctx context.Context, rep *report) {
	cfg := rep.Spec.Config.Changes
	if !cfg.On() || rep.Status != status.Completed || rep.Selected == "" {
		return
	}
	fail := func(format string, args ...any) {
		rep.Status = status.Failed
		rep.Message = fmt.Sprintf("π* = %s was selected, but its change was not delivered: ", rep.Selected) + fmt.Sprintf(format, args...)
	}
	if why := rep.refusedChange(rep.Selected); why != "" && rep.CheckpointID == "" {
		fail("%s", why)
		return
	}
	if d.Deliverer == nil {
		d.Deps.logf("changes.mode is %s, which this face of optr does not deliver; π*'s change is %s", cfg.Mode, rep.Spec.DisplayPath(rep.run.Path(PatchFile(rep.Selected))))
		return
	}
	patch, err := rep.Patch(rep.Selected)
	if err != nil {
		fail("%v", err)
		return
	}
	got, err := d.Deliverer.Deliver(ctx, rep.outcome(), patch)
	if err != nil {
		fail("%v", err)
		return
	}
	rep.Delivery = got
}
