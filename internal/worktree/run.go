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
	// SnapshotBytes bounds the files kept in memory to write worktrees
	// from (see Run.Add): 0 means DefaultSnapshotBytes, a negative value
	// makes every worktree with git worktree add.
	SnapshotBytes int64
}

// DefaultRoot is where worktrees go when Options.Root is empty:
// optr-worktrees in the system's temporary directory.
func DefaultRoot() string { return filepath.Join(os.TempDir(), "optr-worktrees") }

// Run holds the worktrees of one optr run. Its methods are safe for
// concurrent use.
type Run struct {
	git       gitCmd
	workspace string // the repository's top level
	commonDir string // the repository's .git directory
	base      string // the commit every worktree starts from
	root      string // Root
	dir       string // Root/<run id>
	lock      *runLock

	mu     sync.Mutex
	trees  map[string]*Tree
	closed bool
	// addMu serialises git worktree add: git reads every registered
	// worktree's metadata while adding one, and fails on one that another
	// add is still writing.
	addMu sync.Mutex

	// snapMu is held while the first worktree is made and read into snap;
	// taken tells that it was (snap stays nil when the tree cannot be
	// copied). snapLimit is Options.SnapshotBytes resolved.
	snapMu    sync.Mutex
	taken     bool
	snap      *snapshot
	snapLimit int64

	trash trash

	trackedOnce sync.Once // Tracked
	tracked     int
	trackedErr  error
}

// Start prunes the worktrees that runs which ended without cleaning up
// left behind (see Prune), then prepares this run's directory under Root,
// holding a lock on it for as long as the run lives. Every worktree it adds
// starts at the workspace's HEAD commit as it is now.
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
	base, err := head(ctx, g, top)
	if err != nil {
		return nil, err
	}

	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("worktrees: %w", err)
	}
	if _, err := Prune(ctx, opts.Workspace, root, opts.Git); err != nil {
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
	return &Run{git: g, workspace: top, commonDir: common, base: base, root: root, dir: dir, lock: lock, trees: map[string]*Tree{}, snapLimit: limit}, nil
}

// Head returns the commit a Run started now in workspace would give its
// worktrees: the workspace's HEAD. gitBin is the git binary ("" = git on
// PATH).
func Head(ctx context.Context, gitBin, workspace string) (string, error) {
	g := gitCmd{bin: gitOr(gitBin)}
	top, _, err := repository(ctx, g, workspace)
	if err != nil {
		return "", err
	}
	return head(ctx, g, top)
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

// Tree is one agent's worktree.
type Tree struct {
	run    *Run
	agent  string
	dir    string
	gitDir string // its private git directory, .git/worktrees/<id>
	gitRef []byte // the content of its .git file as git wrote it

	// copied tells that Add wrote the tree from the run's snapshot
	// rather than git checking it out.
	copied bool

	mu      sync.Mutex
	removed bool
	// captured is the last change Capture recorded.
	captured *Change
}

// Add creates the worktree of agent, detached at Base, and returns it. The
// agent's command runs with Tree.Dir as its working directory.
//
// The run's first worktree is checked out by git (git worktree add) and
// read into memory, unless it is larger than Options.SnapshotBytes; every
// later one is registered with the repository and written from that
// snapshot, its index recording the files as written, so git sees the
// same clean checkout without inflating every blob again. Each worktree
// has its own files: nothing an agent does in its tree reaches another's,
// the first one's or the workspace. Add is safe to call from several
// goroutines at once.
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
	dir := r.treeDir(agent)
	t := &Tree{run: r, agent: agent, dir: dir}
	r.trees[agent] = t // reserved, so Close removes it even if Add fails half-way
	r.mu.Unlock()

	if err := r.makeTree(ctx, t); err != nil {
		return nil, fmt.Errorf("worktree for %s: %w", agent, err)
	}
	return t, nil
}

// TreeDir returns the directory Add makes agent's worktree in, before it
// exists: a task's working directory can be set when the run is planned
// and the tree made when the agent is first launched.
func (r *Run) TreeDir(agent string) (string, error) {
	if err := datalake.ValidateAgent(agent); err != nil {
		return "", fmt.Errorf("worktree: %w", err)
	}
	return r.treeDir(agent), nil
}

// treeDir is agent's worktree directory; agent is a valid name.
func (r *Run) treeDir(agent string) string { return filepath.Join(r.dir, agent) }

// makeTree creates t's directory and registration, by copy from the
// snapshot when there is one, else with git worktree add (taking the
// snapshot after the first).
func (r *Run) makeTree(ctx context.Context, t *Tree) error {
	r.snapMu.Lock()
	if !r.taken {
		defer r.snapMu.Unlock()
		if err := r.addTree(ctx, t); err != nil {
			return err
		}
		r.taken = true
		if canCopy && r.snapLimit > 0 {
			s, err := r.snapshot(ctx, t)
			if err != nil && ctx.Err() != nil {
				return err
			}
			// Any other failure leaves the tree as git made it (its index
			// is git's own, or was rewritten whole): it is kept, and every
			// later tree is made by git too.
			r.snap = s
		}
		return nil
	}
	s := r.snap
	r.snapMu.Unlock()
	if s == nil {
		return r.addTree(ctx, t)
	}
	return r.copyTree(t, s)
}

// snapshot reads the tree git just made for t into memory and rewrites
// its index as the copies' are: git's own may take a whole tree written
// within the index's second for racily clean. It returns nil (no error)
// when the tree is not to be copied (see takeSnapshot). The index is
// replaced only once it is written whole, and restamp changes only the
// times git compares against it, so a failure leaves a tree git still
// reads correctly.
func (r *Run) snapshot(ctx context.Context, t *Tree) (*snapshot, error) {
	s, err := takeSnapshot(ctx, r.git.with("GIT_DIR="+t.gitDir, "GIT_WORK_TREE="+t.dir), t.dir, r.snapLimit)
	if err != nil || s == nil {
		return nil, err
	}
	stats, err := s.restamp(t.dir)
	if err != nil {
		return nil, err
	}
	if err := writeIndex(filepath.Join(t.gitDir, "index"), s, stats); err != nil {
		return nil, err
	}
	return s, nil
}

// copyTree registers t and writes its files and index from s.
func (r *Run) copyTree(t *Tree, s *snapshot) error {
	gitDir, gitRef, unlock, err := r.register(t.dir)
	if gitDir != "" {
		t.setGit(gitDir, gitRef)
	}
	if err != nil {
		return err
	}
	stats, err := s.materialize(t.dir)
	if err != nil {
		return err
	}
	if err := writeIndex(filepath.Join(gitDir, "index"), s, stats); err != nil {
		return err
	}
	t.copied = true
	return unlock()
}

// setGit records t's private git directory (for Remove) and the content
// of its .git file.
func (t *Tree) setGit(gitDir string, gitRef []byte) {
	t.mu.Lock()
	t.gitDir, t.gitRef = gitDir, gitRef
	t.mu.Unlock()
}

// addTree makes t with git worktree add and records its git directory,
// as its .git file names it.
func (r *Run) addTree(ctx context.Context, t *Tree) error {
	if err := r.worktreeAdd(ctx, t.dir); err != nil {
		return err
	}
	ref, err := os.ReadFile(filepath.Join(t.dir, ".git"))
	if err != nil {
		return err
	}
	gitDir, ok := parseGitFile(t.dir, ref)
	if !ok {
		return fmt.Errorf("git worktree add wrote a .git file that names no git directory: %q", ref)
	}
	t.setGit(gitDir, ref)
	return nil
}

// worktreeAdd runs git worktree add for dir, one at a time within the
// run. Another process adding a worktree to the same repository at that
// moment can still make it fail half-way; it is then cleaned up and tried
// again.
func (r *Run) worktreeAdd(ctx context.Context, dir string) error {
	r.addMu.Lock()
	defer r.addMu.Unlock()
	// checkout.workers=0: one checkout worker per core (git's parallel
	// checkout), which writes a large tree in a fraction of the time.
	g := r.git.withConfig("checkout.workers=0")
	var err error
	for range 3 {
		if _, err = g.run(ctx, r.workspace, nil, "worktree", "add", "--detach", "--quiet", dir, r.base); err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return err
		}
		_ = os.RemoveAll(dir)
		_, _ = r.git.run(ctx, r.workspace, nil, "worktree", "prune")
	}
	return err
}

// parseGitFile returns the git directory a worktree's .git file names
// ("gitdir: <path>", the path taken from dir when relative, as git does
// with worktree.useRelativePaths).
func parseGitFile(dir string, ref []byte) (string, bool) {
	p, ok := strings.CutPrefix(strings.TrimRight(string(ref), "\r\n"), "gitdir: ")
	if !ok || p == "" {
		return "", false
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	return filepath.Clean(p), true
}

// Dir returns the worktree's directory: the agent's working directory, and
// the working directory of command checks on its result.
func (t *Tree) Dir() string { return t.dir }

// Agent returns the name of the agent the worktree belongs to.
func (t *Tree) Agent() string { return t.agent }

// Remove deletes the worktree and its registration in the repository:
// when it returns the worktree's directory is gone (moved into the run's
// trash, its files deleted in the background; see Run.Wait). It is safe
// to call more than once and on a worktree Add failed to finish.
func (t *Tree) Remove(ctx context.Context) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.removed {
		return nil
	}
	// Files are moved away first and the registration removed after, so
	// that nothing the agent left (untracked files, a changed .git file)
	// can make git refuse or touch another repository.
	if err := t.run.trash.discard(t.run.dir, t.dir); err != nil {
		return fmt.Errorf("remove the worktree of %s: %w", t.agent, err)
	}
	if t.gitDir != "" && within(t.gitDir, filepath.Join(t.run.commonDir, "worktrees")) {
		if err := os.RemoveAll(t.gitDir); err != nil {
			return fmt.Errorf("remove the worktree of %s: %w", t.agent, err)
		}
	}
	t.removed = true
	return nil
}

// Close removes every worktree of the run, prunes their registrations,
// deletes their files and releases the run's directory. It is safe to
// call more than once; call it (deferred) however the run ends: it cleans
// up even when ctx is already done (a cancelled or timed-out run). A
// process killed before Close leaves its worktrees to the next Start's
// Prune. Discard does the same without waiting for the files to be
// deleted.
func (r *Run) Close(ctx context.Context) error {
	err := r.Discard(ctx)
	return errors.Join(err, r.Wait(context.WithoutCancel(ctx)))
}

// Discard removes every worktree of the run and prunes their
// registrations, as Close does, but leaves the deletion of their files,
// of the run's directory and of its lock to the background: when it
// returns, no worktree is left where it was and git lists none, in the
// time it takes to rename a directory. Wait waits for the rest. It is safe
// to call more than once, also after Close; a process that exits or is
// killed before the deletion ends leaves the files to the next Start's
// Prune.
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
	if _, err := r.git.run(context.WithoutCancel(ctx), r.workspace, nil, "worktree", "prune"); err != nil {
		errs = append(errs, err)
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
