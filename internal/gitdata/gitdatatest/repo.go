package gitdatatest

import (
	"context"
	"maps"
	"strings"
	"sync"
	"time"
)

// Name is the repository every Repo is, for messages.
const Name = "octo-org/octo-repo"

// Repo is an in-memory repository. Its methods are safe for concurrent
// use.
type Repo struct {
	latency time.Duration

	mu            sync.Mutex
	defaultBranch string
	objs          objects
	refs          map[string]string // branch → commit sha
	rules         map[string]string // protected branch → the rule's message
	hooks         []hook
	calls         []Call
}

// Call is one call a Repo served.
type Call struct {
	// Op is the gitdata.Store method, e.g. "UpdateRef".
	Op string
	// Path is the path the call read or wrote, for ReadFileAt, ListDir and
	// CreateFile; the branch for ReadTip, CreateRef and UpdateRef.
	Path string
	// Sent is how many bytes of content the call carried: a blob's, or the
	// inline files' of a tree.
	Sent int64
	// Failed is true when the call answered with an error.
	Failed bool
}

type hook struct {
	op string
	fn func()
}

// Option configures a Repo.
type Option func(*Repo)

// Empty makes the repository empty: no commit, no branch; its default
// branch will be main.
func Empty() Option {
	return func(r *Repo) { r.refs = map[string]string{} }
}

// WithLatency holds every call for d before it acts, as GitHub's round
// trip would.
func WithLatency(d time.Duration) Option {
	return func(r *Repo) { r.latency = d }
}

// New returns a repository whose default branch, main, holds README.md,
// unless Empty is given.
func New(opts ...Option) *Repo {
	r := &Repo{defaultBranch: "main", objs: newObjects(), rules: map[string]string{}}
	for _, o := range opts {
		o(r)
	}
	if r.refs == nil {
		r.refs = map[string]string{}
		r.Commit("main", map[string]string{"README.md": "# octo-repo\n"}, "Initial commit")
	}
	return r
}

// Commit commits files (path → content) on branch, on top of its tip; a
// missing branch starts from the default branch, and in an empty
// repository the commit is the root. It returns the commit's sha.
func (r *Repo) Commit(branch string, files map[string]string, message string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	parent, ok := r.refs[branch]
	if !ok {
		parent = r.refs[r.defaultBranch]
	}
	tree := maps.Clone(r.objs.trees[r.objs.commits[parent].tree])
	if tree == nil {
		tree = map[string]string{}
	}
	for p, c := range files {
		tree[p] = r.objs.putBlob([]byte(c))
	}
	sha := r.objs.putCommit(commit{tree: r.objs.putTree(tree), parent: parent, message: message, author: "Octo Seed"})
	r.refs[branch] = sha
	return sha
}

// Head returns the commit branch points at, or "" when it does not exist.
func (r *Repo) Head(branch string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.refs[branch]
}

// Files returns every file at the tip of branch, by path; nil when the
// branch does not exist.
func (r *Repo) Files(branch string) map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	tip, ok := r.refs[branch]
	if !ok {
		return nil
	}
	out := map[string]string{}
	for p, sha := range r.objs.trees[r.objs.commits[tip].tree] {
		out[p] = string(r.objs.blobs[sha])
	}
	return out
}

// File returns the content of path at the tip of branch.
func (r *Repo) File(branch, path string) (string, bool) {
	c, ok := r.Files(branch)[path]
	return c, ok
}

// LogEntry is one commit of a branch's history.
type LogEntry struct {
	SHA, Message, Author string
	// Parent is its parent, "" for a root commit.
	Parent string
}

// Log returns branch's history from its tip.
func (r *Repo) Log(branch string) []LogEntry {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []LogEntry
	for sha := r.refs[branch]; sha != ""; sha = r.objs.commits[sha].parent {
		c := r.objs.commits[sha]
		out = append(out, LogEntry{SHA: sha, Message: c.message, Author: c.author, Parent: c.parent})
	}
	return out
}

// Protect makes every update of branch fail as a protection rule would,
// with rule as the message.
func (r *Repo) Protect(branch, rule string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rules[branch] = rule
}

// BeforeNext runs fn before the next call of op (a gitdata.Store method
// name, e.g. "UpdateRef") acts; fn may change the repository.
func (r *Repo) BeforeNext(op string, fn func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hooks = append(r.hooks, hook{op: op, fn: fn})
}

// Calls returns the calls served so far, in order.
func (r *Repo) Calls() []Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Call(nil), r.calls...)
}

// Counts returns how many calls of each op were served.
func (r *Repo) Counts() map[string]int {
	out := map[string]int{}
	for _, c := range r.Calls() {
		out[c.Op]++
	}
	return out
}

// ResetCalls forgets the calls served so far.
func (r *Repo) ResetCalls() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = nil
}

// begin waits the latency, runs op's hook, and locks the repository for
// the call; end records the call and unlocks it.
func (r *Repo) begin(ctx context.Context, op string) error {
	if r.latency > 0 {
		t := time.NewTimer(r.latency)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
	r.mu.Lock()
	var fn func()
	for i, h := range r.hooks {
		if h.op == op {
			fn = h.fn
			r.hooks = append(r.hooks[:i], r.hooks[i+1:]...)
			break
		}
	}
	r.mu.Unlock()
	if fn != nil {
		fn()
	}
	r.mu.Lock()
	return nil
}

func (r *Repo) end(op, path string, sent int64, err error) {
	r.calls = append(r.calls, Call{Op: op, Path: path, Sent: sent, Failed: err != nil})
	r.mu.Unlock()
}

// resolve turns a ref (a commit sha or heads/<branch>) into a commit sha.
func (r *Repo) resolve(ref string) (string, bool) {
	if b, ok := strings.CutPrefix(ref, "heads/"); ok {
		sha, ok := r.refs[b]
		return sha, ok
	}
	_, ok := r.objs.commits[ref]
	return ref, ok
}
