package actionrun

import (
	"context"
	"errors"
	"io"
	"path/filepath"

	"github.com/optr-dev/optr/internal/gitdata"
	"github.com/optr-dev/optr/internal/github"
	"github.com/optr-dev/optr/internal/ledger"
)

// branchLedger is the ledger on the ledger branch, read through the
// contents API at the branch's tip, as commit-back reads it: the one
// budgets and standings count, since the workspace holds the code
// branch's checkout, which may lack the ledger or hold an old one. Only
// the segments a window needs are read (ledger.ReadWindow).
type branchLedger struct {
	gh     *github.Client
	branch string
	// path is the active segment's path in the repository.
	path string
	// active, when set, is the active segment as just committed: no need
	// to read it again.
	active []byte
	// tip is the commit read from, once known; missing when the branch is
	// not there (an empty ledger).
	tip     string
	missing bool
}

// ref is the commit the ledger is read at: the branch's tip, read once.
func (b *branchLedger) ref(ctx context.Context) (string, error) {
	if b.tip != "" || b.missing {
		return b.tip, nil
	}
	branch := b.branch
	if branch == "" {
		var err error
		if branch, err = b.gh.DefaultBranch(ctx); err != nil {
			return "", err
		}
	}
	c, err := b.gh.ReadTip(ctx, branch)
	switch {
	case errors.Is(err, gitdata.ErrNoBranch), errors.Is(err, gitdata.ErrEmptyRepository):
		b.missing = true
		return "", nil
	case err != nil:
		return "", err
	}
	b.tip = c.SHA
	return b.tip, nil
}

// read returns the file path at the tip, nil when there is none.
func (b *branchLedger) read(ctx context.Context, path string) ([]byte, error) {
	ref, err := b.ref(ctx)
	if err != nil || b.missing {
		return nil, err
	}
	return b.gh.ReadFileAt(ctx, ref, filepath.ToSlash(path))
}

// Active implements ledger.Store.
func (b *branchLedger) Active(ctx context.Context) (io.ReadCloser, error) {
	if b.active != nil {
		return ledger.InMemory(b.active), nil
	}
	data, err := b.read(ctx, b.path)
	if err == nil && data != nil {
		b.active = data // read once a job
	}
	return ledger.InMemory(data), err
}

// Name implements ledger.Named: the active segment's path on the branch.
func (b *branchLedger) Name() string {
	branch := b.branch
	if branch == "" {
		branch = "the default branch"
	}
	return b.path + " on " + branch
}

// Sealed implements ledger.Store.
func (b *branchLedger) Sealed(ctx context.Context) ([]ledger.Segment, error) {
	ref, err := b.ref(ctx)
	if err != nil || b.missing {
		return nil, err
	}
	dir := ledger.SegmentDir(b.path)
	entries, err := b.gh.ListDir(ctx, ref, filepath.ToSlash(dir))
	if err != nil {
		return nil, err
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name
	}
	return ledger.SegmentsIn(dir, names)
}

// Open implements ledger.Store.
func (b *branchLedger) Open(ctx context.Context, s ledger.Segment) (io.ReadCloser, error) {
	data, err := b.read(ctx, s.Path)
	return ledger.InMemory(data), err
}
