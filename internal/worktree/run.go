package worktree

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/optr-dev/optr/internal/datalake"
)

// Options configures Start.
type Options struct {
	// Workspace is a directory inside the repository the agents change
	// (GITHUB_WORKSPACE, or the current directory for the CLI).
	Workspace string
	// Root is the directory that holds the worktrees of every run, one
	// directory per run id. It must be outside the workspace. Empty means
	// DefaultRoot().
	Root string
	// RunID names this run's directory under Root (a run id as
	// datalake.ValidateRunID accepts).
	RunID string
	// Git is the git binary; empty means "git" on PATH.
	Git string
	// SnapshotBytes bounds the files kept in memory to write trees from
	// (see Run.Add): 0 means DefaultSnapshotBytes, a negative value makes
	// git check every tree out.
	SnapshotBytes int64
	// Owner, when set, owns every agent's tree and repository: the user
	// the sandbox runs agents and checks as.
	Owner *Owner
	// Base, when set, is the commit every tree starts from instead of the
	// workspace's HEAD (a matrix gather re-checks a change at the plan's
	// commit); the workspace's objects must hold it.
	Base string
}

// DefaultRoot is where worktrees go when Options.Root is empty:
// optr-worktrees in the system's temporary directory.
func DefaultRoot() string { return filepath.Join(os.TempDir(), "optr-worktrees") }

// Run holds the trees of one optr run. Its methods are safe for
// concurrent use.
type Run struct {
	git       gitCmd // commands on the workspace
	own       gitCmd // commands on the run's own repository (isolated)
	workspace string // the repository's top level
	from      *borrowed
	base      string // the commit every tree starts from
	root      string // Root
	dir       string // Root/<run id>
	repo      string // Root/<run id>/.git: optr's repository for the run
	owner     *Owner
	lock      *runLock

	mu     sync.Mutex
	trees  map[string]*Tree
	closed bool

	// snapMu is held while the snapshot is read; loaded tells that it
	// was (snap, or snapErr why not). snapLimit is Options.SnapshotBytes
	// resolved.
	snapMu    sync.Mutex
	loaded    bool
	snap      *snapshot
	snapErr   error
	snapLimit int64
	// writeMu lets one tree be written at a time, with every core: each
	// agent starts as soon as its own tree is ready, not when all are.
	writeMu sync.Mutex

	trash trash

	trackedOnce sync.Once // Tracked
	tracked     int
	trackedErr  error
}

// Start prunes the trees that runs which ended without cleaning up left
// behind (see prune), then prepares this run's directory under Root,
// holding a lock on it for as long as the run lives, and the run's own
// repository in it. Every tree it adds starts at the workspace's HEAD
// commit as it is now, or at Options.Base. It writes nothing in the
// workspace.
func Start(ctx context.Context, opts Options) (*Run, error) {
	if err := datalake.ValidateRunID(opts.RunID); err != nil {
		return nil, fmt.Errorf("worktrees: %w", err)
	}
	g := gitCmd{bin: gitOr(opts.Git)}
	top, common, err := repository(ctx, g, opts.Workspace)
	if err != nil {
		return nil, err
	}
	root := opts.Root
	if root == "" {
		root = DefaultRoot()
	}
	if root, err = filepath.Abs(root); err != nil {
		return nil, fmt.Errorf("worktrees: %w", err)
	}
	if within(root, top) {
		return nil, fmt.Errorf("worktrees: the worktree root %s is inside the workspace %s; agents' files would show up in it: choose a directory outside", root, top)
	}
	base, err := startAt(ctx, g, top, opts.Base)
	if err != nil {
		return nil, err
	}
	from, err := borrow(ctx, g, top, common, base)
	if err != nil {
		return nil, err
	}

	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("worktrees: %w", err)
	}
	if _, err := prune(root); err != nil {
		return nil, err
	}
	dir := filepath.Join(root, opts.RunID)
	lock, err := acquire(dir + lockSuffix)
	if err != nil {
		return nil, fmt.Errorf("worktrees: %w", err)
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		lock.release()
		if errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("worktrees: %s already exists: run id %s was used before", dir, opts.RunID)
		}
		return nil, fmt.Errorf("worktrees: %w", err)
	}
	limit := opts.SnapshotBytes
	if limit == 0 {
		limit = DefaultSnapshotBytes
	}
	if !canCopy {
		limit = -1
	}
	r := &Run{
		git: g, workspace: top, from: from, base: base, root: root, dir: dir,
		repo: filepath.Join(dir, ".git"), owner: opts.Owner, lock: lock, trees: map[string]*Tree{}, snapLimit: limit,
	}
	r.own = g.isolate().with("GIT_DIR=" + r.repo)
	// The run's repository is optr's alone: no agent reads or writes it.
	err = from.makeRepo(r.repo, true, nil)
	if err == nil {
		err = os.Chmod(r.repo, 0o700)
	}
	if err != nil {
		_ = r.Close(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("worktrees: %w", err)
	}
	return r, nil
}

// Head returns the commit a Run started now in workspace would give its
// worktrees: the workspace's HEAD. gitBin is the git binary ("" = git on
// PATH).
func Head(ctx context.Context, gitBin, workspace string) (string, error) {
	_, commit, err := Checkout(ctx, gitBin, workspace)
	return commit, err
}

// Checkout returns the top level of the git work tree that holds dir,
// absolute and with symbolic links resolved as git names it, and the
// commit it has checked out (see Head).
func Checkout(ctx context.Context, gitBin, dir string) (top, commit string, err error) {
	g := gitCmd{bin: gitOr(gitBin)}
	if top, _, err = repository(ctx, g, dir); err != nil {
		return "", "", err
	}
	commit, err = head(ctx, g, top)
	return top, commit, err
}

// head returns the commit checked out in the repository whose top level
// is top.
func head(ctx context.Context, g gitCmd, top string) (string, error) {
	out, err := g.run(ctx, top, nil, "rev-parse", "--verify", "HEAD^{commit}")
	if err != nil {
		return "", fmt.Errorf("worktrees: the workspace %s has no commit to start from: %w", top, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// startAt returns the commit a run's trees start from: base, verified to
// be a commit the workspace holds, or else the workspace's HEAD.
func startAt(ctx context.Context, g gitCmd, top, base string) (string, error) {
	if base == "" {
		return head(ctx, g, top)
	}
	out, err := g.run(ctx, top, nil, "rev-parse", "--verify", "--end-of-options", base+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("worktrees: the workspace %s does not hold commit %s to start from (a shallow checkout? fetch it): %w", top, base, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// repository returns the top level and the common git directory of the
// repository that holds dir, both absolute.
func repository(ctx context.Context, g gitCmd, dir string) (top, common string, err error) {
	if dir == "" {
		dir = "."
	}
	out, err := g.run(ctx, dir, nil, "rev-parse", "--path-format=absolute", "--show-toplevel", "--git-common-dir")
	if err != nil {
		return "", "", fmt.Errorf("worktrees: %s is not inside a git work tree: %w", dir, err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 {
		return "", "", fmt.Errorf("worktrees: git rev-parse in %s answered %q", dir, out)
	}
	return filepath.Clean(lines[0]), filepath.Clean(lines[1]), nil
}

// within reports whether path is dir or below it (after resolving
// symlinks where they exist).
func within(path, dir string) bool {
	resolve := func(p string) string {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r
		}
		return filepath.Clean(p)
	}
	rel, err := filepath.Rel(resolve(dir), resolve(path))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// Base returns the commit every worktree of the run starts from; patches
// are taken against it.
func (r *Run) Base() string { return r.base }

// Workspace returns the repository's top level.
func (r *Run) Workspace() string { return r.workspace }

// Tree is one agent's tree: a repository of its own, detached at Base.
type Tree struct {
	run   *Run
	agent string
	dir   string

	mu      sync.Mutex
	removed bool
	// stats are the base's entries as they were written (snapshot
	// order): what Capture compares the tree against.
	stats []statData
	// captured is the last change Capture recorded.
	captured *Change
}

// Add creates the tree of agent, a repository of its own detached at
// Base, and returns it. The agent's command runs with Tree.Dir as its
// working directory.
//
// The tree's files are written from the run's snapshot of the base
// commit (read from the workspace's objects at the first Add), one tree
// at a time with every core, its index recording the files as written, so
// git sees a clean checkout without inflating every blob again; where the
// snapshot holds no content (a tree larger than Options.SnapshotBytes, or
// one whose attributes convert files at checkout) git checks the tree
// out. Its .git is its own: HEAD, an index, optr's configuration (no
// remote, no credential, no hook) and the workspace's objects borrowed
// through alternates, which git only reads. Nothing an agent does in its
// tree reaches another's or the workspace. Add is safe to call from
// several goroutines at once.
func (r *Run) Add(ctx context.Context, agent string) (*Tree, error) {
	if err := datalake.ValidateAgent(agent); err != nil {
		return nil, fmt.Errorf("worktree: %w", err)
	}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil, fmt.Errorf("worktree for %s: the run's worktrees were already removed", agent)
	}
	if _, dup := r.trees[agent]; dup {
		r.mu.Unlock()
		return nil, fmt.Errorf("worktree for %s: it already has one", agent)
	}
	t := &Tree{run: r, agent: agent, dir: r.treeDir(agent)}
	r.trees[agent] = t // reserved, so Close removes it even if Add fails half-way
	r.mu.Unlock()

	stats, err := r.makeTree(ctx, t.dir, agent)
	if err != nil {
		return nil, fmt.Errorf("worktree for %s: %w", agent, err)
	}
	t.stats = stats
	return t, nil
}

// TreeDir returns the directory Add makes agent's tree in, before it
// exists: a task's working directory can be set when the run is planned
// and the tree made when the agent is first launched.
func (r *Run) TreeDir(agent string) (string, error) {
	if err := datalake.ValidateAgent(agent); err != nil {
		return "", fmt.Errorf("worktree: %w", err)
	}
	return r.treeDir(agent), nil
}

// treeDir is agent's tree directory; agent is a valid name.
func (r *Run) treeDir(agent string) string { return filepath.Join(r.dir, agent) }

// snapshot returns the run's snapshot, reading it at the first call.
func (r *Run) snapshot(ctx context.Context) (*snapshot, error) {
	r.snapMu.Lock()
	defer r.snapMu.Unlock()
	if !r.loaded {
		r.snap, r.snapErr = loadSnapshot(ctx, r.own, r.base, r.snapLimit)
		if r.snapErr != nil && ctx.Err() != nil {
			return nil, r.snapErr // cancelled: the next Add may try again
		}
		r.loaded = true
	}
	return r.snap, r.snapErr
}

// makeTree makes dir (which must not exist) agent's tree and repository
// and returns the stat data of the base's entries as written.
func (r *Run) makeTree(ctx context.Context, dir, agent string) ([]statData, error) {
	s, err := r.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return nil, errors.New("the run's worktrees were already removed")
	}
	if err := os.Mkdir(dir, 0o777); err != nil {
		return nil, err
	}
	if err := chown(r.owner, dir); err != nil {
		return nil, err
	}
	var stats []statData
	if s.written {
		r.writeMu.Lock()
		stats, err = s.materialize(dir, r.owner)
		r.writeMu.Unlock()
	} else {
		stats, err = r.checkout(ctx, dir, agent, s)
	}
	if err != nil {
		return nil, err
	}
	gitDir := filepath.Join(dir, ".git")
	if err := r.from.makeRepo(gitDir, false, r.owner); err != nil {
		return nil, err
	}
	if err := writeIndex(filepath.Join(gitDir, "index"), s.hashLen, s.baseIndex(stats), r.owner); err != nil {
		return nil, err
	}
	return stats, nil
}

// checkout has git check the base out into dir (git read-tree -u, with
// an index of optr's that is then removed) and returns the stat data of
// its entries, dated as written trees are.
func (r *Run) checkout(ctx context.Context, dir, agent string, s *snapshot) ([]statData, error) {
	index := filepath.Join(r.repo, "checkout-"+agent)
	defer os.Remove(index)
	// checkout.workers=0: one checkout worker per core (git's parallel
	// checkout), which writes a large tree in a fraction of the time.
	g := r.own.with("GIT_WORK_TREE="+dir, "GIT_INDEX_FILE="+index).withConfig("checkout.workers=0")
	if _, err := g.run(ctx, dir, nil, "read-tree", "--reset", "-u", r.base); err != nil {
		return nil, err
	}
	return s.restamp(dir, r.owner)
}

// Dir returns the tree's directory: the agent's working directory, and
// the working directory of command checks on its result.
func (t *Tree) Dir() string { return t.dir }

// Agent returns the name of the agent the tree belongs to.
func (t *Tree) Agent() string { return t.agent }

// Remove deletes the tree: when it returns the tree's directory is gone
// (moved into the run's trash, its files deleted in the background; see
// Run.Wait). It is safe to call more than once and on a tree Add failed
// to finish.
func (t *Tree) Remove(ctx context.Context) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.removed {
		return nil
	}
	if err := t.run.trash.discard(t.run.dir, t.dir); err != nil {
		return fmt.Errorf("remove the worktree of %s: %w", t.agent, err)
	}
	t.removed = true
	return nil
}

// Close removes every tree of the run, deletes their files and releases
// the run's directory. It is safe to call more than once; call it
// (deferred) however the run ends: it cleans up even when ctx is already
// done (a cancelled or timed-out run). A process killed before Close
// leaves its trees to the next Start's prune. Discard does the same
// without waiting for the files to be deleted.
func (r *Run) Close(ctx context.Context) error {
	err := r.Discard(ctx)
	return errors.Join(err, r.Wait(context.WithoutCancel(ctx)))
}

// Discard removes every tree of the run, as Close does, but leaves the
// deletion of their files, of the run's directory and of its lock to the
// background: when it returns, no tree is left where it was, in the time
// it takes to rename a directory. Wait waits for the rest. It is safe to
// call more than once, also after Close; a process that exits or is
// killed before the deletion ends leaves the files to the next Start's
// prune.
func (r *Run) Discard(ctx context.Context) error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	trees := make([]*Tree, 0, len(r.trees))
	for _, t := range r.trees {
		trees = append(trees, t)
	}
	r.mu.Unlock()

	var errs []error
	for _, t := range trees {
		errs = append(errs, t.Remove(ctx))
	}
	r.snapMu.Lock()
	r.snap = nil // the files in memory are no longer needed
	r.snapMu.Unlock()
	r.trash.finish(func() error {
		defer r.lock.remove()
		if err := os.RemoveAll(r.dir); err != nil {
			return fmt.Errorf("remove %s: %w", r.dir, err)
		}
		return nil
	})
	return errors.Join(errs...)
}
