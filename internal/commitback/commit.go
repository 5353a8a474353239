package commitback

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/optr-dev/optr/internal/clock"
	"github.com/optr-dev/optr/internal/gitdata"
	"github.com/optr-dev/optr/internal/ledger"
)

// DefaultAttempts bounds the rounds of a commit-back whose branch keeps
// moving. Each round lost is lost to a writer that succeeded, and the
// backoff spreads the writers out: of 32 runs committing at once none
// needed more than 13 rounds, of 64 none more than 16 (50 trials each, in
// memory).
const DefaultAttempts = 20

// Committer commits back through one store. The zero value of every field
// but Store is a sensible default.
type Committer struct {
	// Store is the repository's Git Data API (a *github.Client).
	Store gitdata.Store
	// Attempts bounds the read-rechain-update rounds when the branch keeps
	// moving; 0 means DefaultAttempts.
	Attempts int
	// Backoff is how long to wait after a round lost to another writer
	// (nil: ContentionBackoff).
	Backoff Backoff
	// Sleep waits d or until ctx ends (nil: a timer).
	Sleep func(ctx context.Context, d time.Duration) error
}

// ledgerStartMessage is the message of the commit that gives an empty
// repository its first commit.
const ledgerStartMessage = "optr: start the ledger"

// Commit commits req through store with the defaults: see Committer.Commit.
func Commit(ctx context.Context, store gitdata.Store, req Request) (Result, error) {
	return (&Committer{Store: store}).Commit(ctx, req)
}

// Commit commits req.Drafts, chained on the branch's ledger, and
// req.Files to the branch in one commit, without a clone. One round is:
//
//  1. read the tip: its commit, tree and message (one request);
//  2. read the ledger's active segment at the tip, at most 8 MiB however
//     long the ledger is (architecture §4.3); with Known, first only the
//     directory's listing, to see whether it is the one the caller has;
//  3. with VerifyPublished or Published, check that it still holds the
//     published head (no request when the tip's trailers name an entry
//     of the active segment);
//  4. re-chain the entries onto it (ledger.Rechain);
//  5. create a tree on the tip's, so every other file is kept; when the
//     new segment would pass ledger.SegmentLimit the remote one is sealed
//     into ledger.d/ by its blob sha (no upload), with its tree file
//     beside it, and the new entries start a new active segment;
//  6. create a commit on the tip whose message ends with the trailers of
//     the new head (and the hint to the newest tree file);
//  7. move the branch to it with compare-and-swap.
//
// That is five requests when nothing races. When another writer moved the
// branch in between, the update is refused (gitdata.ErrMoved, GitHub's 422
// "not a fast forward"), and Commit waits (Backoff) and runs another round
// on the new tip, so the entries chain onto the new remote ones and nothing
// is lost or forked. The new round sends only what changed: every file
// GitHub was given in an earlier round is named by its blob sha. It gives
// up after Attempts rounds. A refusal by a protection rule or ruleset is
// not a race: it fails at once with a *ProtectedBranchError. A missing
// branch is created as an orphan holding only the ledger and the files (a
// branch created meanwhile by another run starts another round). An empty
// repository refuses the Git Data API, so Commit first gives it a root
// commit holding an empty ledger, on the default branch (CreateFile).
func (c *Committer) Commit(ctx context.Context, req Request) (res Result, err error) {
	if err := req.validate(); err != nil {
		return Result{}, err
	}
	// The drafts are chained once, on an empty head, only to give them
	// their identity; each round places them on the branch's ledger.
	mine, err := ledger.Chain(ledger.Head{}, req.Drafts...)
	if err != nil {
		return Result{}, fmt.Errorf("commit back: %w", err)
	}
	ctx, requests := gitdata.WithRequestCount(ctx)
	defer func() { res.Requests = int(requests.Load()) }()
	res.Branch = req.Branch
	if res.Branch == "" {
		b, err := c.Store.DefaultBranch(ctx)
		if err != nil {
			return res, fmt.Errorf("commit back: %w", err)
		}
		res.Branch = b
	}
	r := newRound(c.Store, req, res.Branch, mine)
	attempts, backoff, sleep := c.settings()
	for res.Attempts < attempts {
		res.Attempts++
		start := time.Now()
		err := r.run(ctx, &res)
		switch {
		case err == nil:
			return res, nil
		case errors.Is(err, gitdata.ErrEmptyRepository):
			if err := c.startLedger(ctx, req); err != nil {
				return res, err
			}
		case errors.Is(err, gitdata.ErrMoved):
			res.Conflicts++
			if err := sleep(ctx, backoff(res.Conflicts, time.Since(start))); err != nil {
				return res, fmt.Errorf("commit to %s: %w", res.Branch, err)
			}
		default:
			return res, err
		}
	}
	return res, fmt.Errorf("commit to %s of %s: the branch kept moving under %d attempts; nothing was committed, re-run the job",
		res.Branch, c.Store.Repository(), res.Attempts)
}

// settings are c's fields with their defaults.
func (c *Committer) settings() (int, Backoff, func(context.Context, time.Duration) error) {
	attempts, backoff, sleep := c.Attempts, c.Backoff, c.Sleep
	if attempts <= 0 {
		attempts = DefaultAttempts
	}
	if backoff == nil {
		backoff = ContentionBackoff
	}
	if sleep == nil {
		sleep = clock.Sleep
	}
	return attempts, backoff, sleep
}

// startLedger gives an empty repository its first commit, an empty ledger
// on the default branch. A concurrent run that did it first is as good.
func (c *Committer) startLedger(ctx context.Context, req Request) error {
	err := c.Store.CreateFile(ctx, req.LedgerPath, ledgerStartMessage, []byte{}, req.author())
	if err != nil && !errors.Is(err, gitdata.ErrMoved) {
		return fmt.Errorf("commit back: give the empty repository %s its first commit: %w", c.Store.Repository(), err)
	}
	return nil
}
