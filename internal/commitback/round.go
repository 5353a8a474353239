package commitback

import (
	"context"
	"errors"
	"fmt"
	"path"

	"github.com/optr-dev/optr/internal/gitdata"
	"github.com/optr-dev/optr/internal/ledger"
)

// round is the state one commit-back keeps across its rounds.
type round struct {
	store  gitdata.Store
	req    Request
	branch string
	// mine is req.Drafts, chained on an empty head.
	mine []ledger.Entry
	// blobs names the files GitHub has been given, by content sha (see
	// files.go); a later round sends them by sha.
	blobs blobs
	// trees caches the tree files read, by path: they are immutable
	// derived data, so a later round's tip naming the same one needs no
	// request.
	trees map[string][]byte
	// made holds what every commit this commit-back created holds, by
	// sha, to recognise its own commit at the tip after an update whose
	// answer was lost.
	made map[string]outcome
	// moved is set once a round was lost: the branch's ledger has changed
	// since Known was read, so the listing that would spare its download
	// would only cost a request.
	moved bool
}

func newRound(store gitdata.Store, req Request, branch string, mine []ledger.Entry) *round {
	return &round{store: store, req: req, branch: branch, mine: mine, blobs: newBlobs(), trees: map[string][]byte{}, made: map[string]outcome{}}
}

// tip is the branch's head commit; missing is true when the branch does
// not exist (the other fields are then empty).
type tip struct {
	gitdata.Commit
	missing bool
}

// outcome is what one round commits for the ledger.
type outcome struct {
	ledger []byte // the active segment
	head   ledger.Head
	// previous is the head of the ledger the round chained onto.
	previous ledger.Head
	// placed are the request's entries as placed.
	placed []ledger.Entry
	sealed *SealedSegment
	// sealedSHA is the sealed segment's blob sha: the remote active
	// segment's, which GitHub already has.
	sealedSHA string
	// sealedTree is the sealed segment's tree file, committed beside it
	// (nil: none).
	sealedTree []byte
	// lastTree is the newest sealed segment's tree file once committed,
	// lastTreePath its path (see round.lastTree); nil and "" when none.
	lastTree     []byte
	lastTreePath string
}

func (r *round) run(ctx context.Context, res *Result) error {
	t, err := r.readTip(ctx)
	if err != nil {
		return err
	}
	if done, ok := r.made[t.SHA]; ok && !t.missing {
		r.settle(res, t.SHA, done, false)
		return nil
	}
	out, err := r.plan(ctx, t)
	if err != nil {
		return err
	}
	commit, err := r.write(ctx, t, out)
	if err != nil {
		return err
	}
	r.settle(res, commit, out, t.missing)
	return nil
}

// plan reads the ledger at tip t and decides what the round commits for
// it: the run's entries chained after the branch's, sealed into a new
// segment when the active one is full, and the newest tree file.
func (r *round) plan(ctx context.Context, t tip) (outcome, error) {
	var remote []byte
	if !t.missing {
		var err error
		if remote, err = r.readLedger(ctx, t); err != nil {
			return outcome{}, fmt.Errorf("commit to %s: %w", r.branch, err)
		}
		if err := r.checkPublished(ctx, t, remote); err != nil {
			return outcome{}, err
		}
	}
	appended, placed, err := ledger.Rechain(remote, r.mine)
	if err != nil {
		return outcome{}, fmt.Errorf("commit to %s: re-chain the ledger on %s at %.7s: %w", r.branch, r.req.LedgerPath, t.SHA, err)
	}
	out, err := r.segment(remote, append(remote[:len(remote):len(remote)], appended...))
	if err != nil {
		return outcome{}, err
	}
	out.placed = placed
	if out.previous, err = previousHead(t, remote); err != nil {
		return outcome{}, fmt.Errorf("commit to %s: %w", r.branch, err)
	}
	if out.sealed != nil {
		out.sealedTree = r.sealedTree(ctx, t, out.sealed)
	}
	out.lastTree, out.lastTreePath = r.lastTree(ctx, t, out)
	return out, nil
}

// write commits out and the files on tip t and moves the branch to the
// commit (compare-and-swap), or creates it; it returns the commit, t's
// own when nothing changed.
func (r *round) write(ctx context.Context, t tip, out outcome) (string, error) {
	entries, err := r.entries(ctx, out)
	if err != nil {
		return "", err
	}
	tree, err := r.store.CreateTree(ctx, t.Tree, entries)
	if err != nil {
		return "", fmt.Errorf("commit to %s: %w", r.branch, err)
	}
	r.blobs.stored(entries)
	if !t.missing && tree == t.Tree {
		return t.SHA, nil
	}
	commit, err := r.store.CreateCommit(ctx, gitdata.NewCommit{
		Message: ledger.WithTrailers(r.req.Message, out.head) + ledger.TreeHintLine(out.lastTreePath),
		Tree:    tree,
		Parent:  t.SHA,
		Author:  r.req.author(),
	})
	if err != nil {
		return "", fmt.Errorf("commit to %s: %w", r.branch, err)
	}
	r.made[commit] = out
	if t.missing {
		err = r.store.CreateRef(ctx, r.branch, commit)
	} else {
		err = r.store.UpdateRef(ctx, r.branch, commit)
	}
	if err != nil {
		return "", r.refused(err, commit)
	}
	return commit, nil
}

// settle records in res what the round committed.
func (r *round) settle(res *Result, commit string, out outcome, created bool) {
	res.CommitSHA, res.Ledger, res.Head, res.Previous = commit, out.ledger, out.head, out.previous
	res.Entries, res.Sealed, res.LastTree, res.BranchCreated = out.placed, out.sealed, out.lastTree, created
}

// readTip reads the branch's tip; a missing branch gives a tip marked
// missing.
func (r *round) readTip(ctx context.Context) (tip, error) {
	t, err := r.store.ReadTip(ctx, r.branch)
	switch {
	case err == nil:
		return tip{Commit: t}, nil
	case errors.Is(err, gitdata.ErrNoBranch):
		return tip{missing: true}, nil
	case errors.Is(err, gitdata.ErrEmptyRepository):
		return tip{}, err
	}
	return tip{}, fmt.Errorf("commit to %s: %w", r.branch, err)
}

// readLedger reads the ledger file at the tip: Known when the tip's blob
// is the same, else the raw file.
func (r *round) readLedger(ctx context.Context, t tip) ([]byte, error) {
	if r.req.Known != nil && !r.moved {
		dir, name := path.Split(r.req.LedgerPath)
		list, err := r.store.ListDir(ctx, t.SHA, path.Clean(dir))
		if err == nil {
			for _, e := range list {
				if e.Name == name && e.SHA == gitdata.BlobSHA(r.req.Known) {
					return r.req.Known, nil
				}
			}
		}
		// Anything else (changed, absent, an error) reads the file itself.
	}
	return r.store.ReadFileAt(ctx, t.SHA, r.req.LedgerPath)
}

// previousHead is the head of the ledger at t whose active segment is
// remote: its last entry, or, when the active segment is empty, what the
// tip's trailers say.
func previousHead(t tip, remote []byte) (ledger.Head, error) {
	if len(remote) > 0 {
		h, err := ledger.HeadOf(remote)
		if err != nil {
			return h, fmt.Errorf("the remote ledger has a bad tail: %w", err)
		}
		return h, nil
	}
	h, _, _ := ledger.ParseTrailers(t.Message)
	return h, nil
}

// refused classifies a failed ref update: a protection rule or ruleset
// fails at once; a ref that moved (or was created meanwhile) is a race.
func (r *round) refused(err error, commit string) error {
	var rule *gitdata.RuleError
	switch {
	case errors.As(err, &rule):
		return &ProtectedBranchError{Branch: r.branch, Rule: rule.Rule}
	case errors.Is(err, gitdata.ErrMoved):
		r.moved = true
		return err
	}
	return fmt.Errorf("commit to %s: move the branch to %.7s: %w", r.branch, commit, err)
}
