package commitback

import (
	"bytes"
	"context"
	"fmt"
	"path"

	"github.com/optr-dev/optr/internal/ledger"
)

// publishedDepth bounds how far back checkPublished looks for a commit
// with Optr-Ledger trailers (commits by others in between have none).
const publishedDepth = 32

// checkPublished is "verify before write": the remote ledger (its active
// segment remote, at tip t) must hold the head of the latest Optr-Ledger
// trailers on the branch, and req.Published. It costs no request when the
// tip carries the trailers and their entry is in the active segment.
func (r *round) checkPublished(ctx context.Context, t tip, remote []byte) error {
	if r.req.Published.Seq > 0 {
		if err := r.holds(ctx, t, remote, r.req.Published, "the request"); err != nil {
			return err
		}
	}
	if !r.req.VerifyPublished {
		return nil
	}
	msg, sha, parent := t.Message, t.SHA, t.Parent
	for range publishedDepth {
		head, ok, err := ledger.ParseTrailers(msg)
		if err != nil {
			return &RewrittenLedgerError{Branch: r.branch, Commit: sha, Found: "its trailers are malformed: " + err.Error()}
		}
		if ok {
			return r.holds(ctx, t, remote, head, "commit "+sha)
		}
		if parent == "" {
			return nil // never published: the first run
		}
		c, err := r.store.ReadCommit(ctx, parent)
		if err != nil {
			return fmt.Errorf("commit to %s: read commit %.7s for its ledger trailers: %w", r.branch, parent, err)
		}
		msg, sha, parent = c.Message, parent, c.Parent
	}
	return nil
}

// holds checks that the ledger at tip t (active segment remote) has entry
// want.Seq with hash want.Hash.
func (r *round) holds(ctx context.Context, t tip, remote []byte, want ledger.Head, where string) error {
	if want.Seq == 0 {
		return nil
	}
	fail := func(format string, args ...any) error {
		return &RewrittenLedgerError{Branch: r.branch, Commit: where, Published: want, Found: fmt.Sprintf(format, args...)}
	}
	seg, first := remote, int64(0)
	if len(remote) > 0 {
		f, err := ledger.FirstSeq(remote)
		if err != nil {
			return fail("its active segment is unreadable: %v", err)
		}
		first = f
	}
	if len(remote) == 0 || want.Seq < first {
		var err error
		if seg, first, err = r.sealedSegmentWith(ctx, t, want.Seq); err != nil {
			return err
		}
		if seg == nil {
			return fail("no segment holds entry %d: the ledger was truncated or replaced", want.Seq)
		}
	}
	end := 0
	for n := first; n <= want.Seq; n++ {
		i := bytes.IndexByte(seg[end:], '\n')
		if i < 0 {
			return fail("it ends before entry %d: the ledger was truncated", want.Seq)
		}
		end += i + 1
	}
	got, err := ledger.HeadOf(seg[:end])
	if err != nil {
		return fail("its entry %d is unreadable: %v", want.Seq, err)
	}
	if got != want {
		return fail("its entry %d has seq %d and hash %s: the ledger was rewritten", want.Seq, got.Seq, got.Hash)
	}
	return nil
}

// sealedSegmentWith reads the sealed segment that holds entry seq at tip
// t, or nil when there is none.
func (r *round) sealedSegmentWith(ctx context.Context, t tip, seq int64) ([]byte, int64, error) {
	dir := ledger.SegmentDir(r.req.LedgerPath)
	list, err := r.store.ListDir(ctx, t.SHA, dir)
	if err != nil {
		return nil, 0, fmt.Errorf("commit to %s: list the sealed ledger segments: %w", r.branch, err)
	}
	for _, e := range list {
		first, last, err := ledger.ParseSegmentName(e.Name)
		if err != nil || seq < first || seq > last {
			continue
		}
		data, err := r.store.ReadFileAt(ctx, t.SHA, path.Join(dir, e.Name))
		if err != nil {
			return nil, 0, fmt.Errorf("commit to %s: %w", r.branch, err)
		}
		return data, first, nil
	}
	return nil, 0, nil
}
