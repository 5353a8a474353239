package github

import (
	"context"
	"path"

	gh "github.com/google/go-github/v60/github"

	"github.com/optr-dev/optr/internal/ledger"
)

// sealedTree returns the tree file to commit beside the segment this
// commit seals (ledger.d/<first>-<last>.merkle, see ledger.SegmentTree): a
// few KiB at most, computed from the segment and the tree file of the
// segment before it, read from the branch at tip t (treeEndingAt, once per
// seal; nothing for the first segment). When that one is
// missing (a ledger sealed before tree files existed) or anything about
// it fails, it returns nil and the segment is committed without one: the
// file is derived data, which readers do without (they hash the ledger
// then) and `optr ledger checkpoint` writes.
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

// treeEndingAt reads the tree file of the sealed segment whose last entry
// is seq, at tip t, and returns it with its path; nil and "" when there is
// none. The tip's TrailerTree hint names it on a branch optr has been
// committing to (one small read); only without a hint that names an
// existing file of that range does it list ledger.d, a request whose
// answer grows with the ledger.
func (r *round) treeEndingAt(ctx context.Context, t tip, seq int64) ([]byte, string) {
	c := r.c
	dir := ledger.SegmentDir(r.req.LedgerPath)
	if hint := ledger.TreeHint(t.message); hint != "" && path.Dir(hint) == dir {
		if _, last, err := ledger.ParseTreeName(path.Base(hint)); err == nil && last == seq {
			// readFile answers a missing file with no data and no error.
			if data, err := c.readFile(ctx, hint, t.sha); err == nil && data != nil {
				return data, hint
			}
		}
	}
	_, list, _, err := c.gh.Repositories.GetContents(ctx, c.owner, c.repo, escapePath(dir), &gh.RepositoryContentGetOptions{Ref: t.sha})
	if err != nil {
		return nil, ""
	}
	for _, e := range list {
		if _, last, err := ledger.ParseTreeName(e.GetName()); err != nil || last != seq {
			continue
		}
		p := path.Join(dir, e.GetName())
		data, err := c.readFile(ctx, p, t.sha)
		if err != nil {
			return nil, ""
		}
		return data, p
	}
	return nil, ""
}
