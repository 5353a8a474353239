package commitback

import (
	"bytes"
	"context"
	"fmt"
	"path"

	"github.com/optr-dev/optr/internal/gitdata"
	"github.com/optr-dev/optr/internal/ledger"
)

// segment decides what the ledger files of the commit are: next as the
// active segment, or, when next would pass ledger.SegmentLimit and extends
// remote, remote sealed into ledger.d/ and the new entries as a new active
// segment.
func (r *round) segment(remote, next []byte) (outcome, error) {
	out := outcome{ledger: next}
	if len(remote) > 0 && len(next) > ledger.SegmentLimit && bytes.HasPrefix(next, remote) && len(next) > len(remote) {
		first, err := ledger.FirstSeq(remote)
		if err != nil {
			return out, fmt.Errorf("commit to %s: seal %s: %w", r.branch, r.req.LedgerPath, err)
		}
		last, err := ledger.HeadOf(remote)
		if err != nil {
			return out, fmt.Errorf("commit to %s: seal %s: %w", r.branch, r.req.LedgerPath, err)
		}
		out.sealed = &SealedSegment{
			Path:    path.Join(ledger.SegmentDir(r.req.LedgerPath), ledger.SegmentName(first, last.Seq)),
			Content: remote,
		}
		out.sealedSHA = gitdata.BlobSHA(remote)
		out.ledger = next[len(remote):]
	}
	head, err := ledger.HeadOf(out.ledger)
	if err != nil {
		return out, fmt.Errorf("commit to %s: the ledger to commit has a bad tail: %w", r.branch, err)
	}
	if len(out.ledger) == 0 && len(remote) > 0 {
		// Nothing of it left active (no entry to add): the head is the
		// remote's.
		if head, err = ledger.HeadOf(remote); err != nil {
			return out, fmt.Errorf("commit to %s: the remote ledger has a bad tail: %w", r.branch, err)
		}
	}
	out.head = head
	return out, nil
}

// sealedTree returns the tree file to commit beside the segment this
// commit seals (ledger.d/<first>-<last>.merkle, see ledger.SegmentTree): a
// few KiB at most, computed from the segment and the tree file of the
// segment before it, read from the branch at tip t (treeEndingAt, once per
// seal; nothing for the first segment). When that one is missing (a ledger
// sealed before tree files existed) or anything about it fails, it returns
// nil and the segment is committed without one: the file is derived data,
// which readers do without (they hash the ledger then) and `optr ledger
// checkpoint` writes.
func (r *round) sealedTree(ctx context.Context, t tip, s *SealedSegment) []byte {
	first, _, err := ledger.ParseSegmentName(path.Base(s.Path))
	if err != nil {
		return nil
	}
	var prev []byte
	if first > 1 {
		if prev, _ = r.treeEndingAt(ctx, t, first-1); prev == nil {
			return nil
		}
	}
	tree, err := ledger.SegmentTree(prev, s.Content)
	if err != nil {
		return nil
	}
	return tree
}

// lastTree is the tree file of the newest sealed segment once out is
// committed, and its path: the one this commit sealed, else the one at t
// that ends just before the active segment (treeEndingAt; the commit
// carries its hint on). Nil and "" when the ledger has no sealed segment
// or the file is missing.
func (r *round) lastTree(ctx context.Context, t tip, out outcome) ([]byte, string) {
	if out.sealed != nil {
		if out.sealedTree == nil {
			return nil, ""
		}
		return out.sealedTree, ledger.Segment{Path: out.sealed.Path}.TreePath()
	}
	first, err := ledger.FirstSeq(out.ledger)
	if err != nil || first <= 1 || t.missing {
		return nil, ""
	}
	return r.treeEndingAt(ctx, t, first-1)
}

// treeEndingAt reads the tree file of the sealed segment whose last entry
// is seq, at tip t, and returns it with its path; nil and "" when there is
// none. The tip's TrailerTree hint names it on a branch optr has been
// committing to (one small read, none when an earlier round read it); only
// without a hint that names an existing file of that range does it list
// ledger.d, a request whose answer grows with the ledger.
func (r *round) treeEndingAt(ctx context.Context, t tip, seq int64) ([]byte, string) {
	dir := ledger.SegmentDir(r.req.LedgerPath)
	if hint := ledger.TreeHint(t.Message); hint != "" && path.Dir(hint) == dir {
		if _, last, err := ledger.ParseTreeName(path.Base(hint)); err == nil && last == seq {
			if data := r.readTree(ctx, t, hint); data != nil {
				return data, hint
			}
		}
	}
	list, err := r.store.ListDir(ctx, t.SHA, dir)
	if err != nil {
		return nil, ""
	}
	for _, e := range list {
		if _, last, err := ledger.ParseTreeName(e.Name); err != nil || last != seq {
			continue
		}
		p := path.Join(dir, e.Name)
		if data := r.readTree(ctx, t, p); data != nil {
			return data, p
		}
		return nil, ""
	}
	return nil, ""
}

// readTree reads the tree file p at t, or from an earlier round; nil when
// it is missing or cannot be read.
func (r *round) readTree(ctx context.Context, t tip, p string) []byte {
	if data, ok := r.trees[p]; ok {
		return data
	}
	data, err := r.store.ReadFileAt(ctx, t.SHA, p)
	if err != nil || data == nil {
		return nil
	}
	r.trees[p] = data
	return data
}
