package actionrun

import (
	"context"
	"io"
	"path/filepath"

	"github.com/optr-dev/optr/internal/github"
	"github.com/optr-dev/optr/internal/ledger"
)

// branchLedger is the ledger on the ledger branch, read through the
// contents API: the one budgets and standings count, since the workspace
// holds the code branch's checkout, which may lack the ledger or hold an
// old one. Only the segments a window needs are read (ledger.ReadWindow).
type branchLedger struct {
	gh     *github.Client
	branch string
	// path is the active segment's path in the repository.
	path string
	// active, when set, is the active segment as just committed: no need
	// to read it again.
	active []byte
}

// Active implements ledger.Store.
func (b *branchLedger) Active(ctx context.Context) (io.ReadCloser, error) {
	if b.active != nil {
		return ledger.InMemory(b.active), nil
	}
	data, err := b.gh.ReadFile(ctx, b.branch, b.path)
	return ledger.InMemory(data), err
}

// Sealed implements ledger.Store.
func (b *branchLedger) Sealed(ctx context.Context) ([]ledger.Segment, error) {
	dir := ledger.SegmentDir(b.path)
	names, err := b.gh.ListDir(ctx, b.branch, filepath.ToSlash(dir))
	if err != nil {
		return nil, err
	}
	return ledger.SegmentsIn(dir, names)
}

// Open implements ledger.Store.
func (b *branchLedger) Open(ctx context.Context, s ledger.Segment) (io.ReadCloser, error) {
	data, err := b.gh.ReadFile(ctx, b.branch, filepath.ToSlash(s.Path))
	return ledger.InMemory(data), err
}
