package ledger

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/mod/sumdb/tlog"
)

// MaxConsistencyHashes is the most hashes a consistency proof may have:
// C2SP tlog-witness lets a client send no more than 63 proof lines, and a
// proof between trees of fewer than 2^63 records never needs more.
const MaxConsistencyHashes = 63

// ProveConsistency builds the RFC 6962 consistency proof (§2.1.2) that the
// ledger at path as it stands extends its first from entries, and returns
// it with the head it leads to (origin as given; the caller signs it).
// The proof is empty when from is 0 or the ledger's size.
//
// Like Prove, it reads the sealed segments' tree files and the active
// segment (verifying it), hashing at most the segments around entry from;
// when a tree file it needs is missing or does not fit, it makes the proof
// in one pass over all the ledger's lines instead.
func ProveConsistency(path, origin string, from int64) (tlog.TreeProof, TreeHead, error) {
	v, err := openTreeView(path, -1, true)
	if errors.Is(err, errTreeUnusable) {
		return proveConsistencyStreaming(path, origin, from)
	}
	if err != nil {
		return nil, TreeHead{}, err
	}
	p, err := proveTree(v.size, from, v)
	if errors.Is(err, errTreeUnusable) {
		return proveConsistencyStreaming(path, origin, from)
	}
	return p, TreeHead{Origin: origin, Size: v.size, Root: v.root}, err
}

// proveConsistencyStreaming is ProveConsistency in one pass over the
// ledger's lines.
func proveConsistencyStreaming(path, origin string, from int64) (tlog.TreeProof, TreeHead, error) {
	st, err := streamTree(path, -1, func(size int64, r tlog.HashReader) error {
		_, err := proveTree(size, from, r)
		return err
	})
	if err != nil {
		return nil, TreeHead{}, err
	}
	p, err := proveTree(st.size, from, st)
	return p, TreeHead{Origin: origin, Size: st.size, Root: st.root}, err
}

// ConsistencyOf is ProveConsistency for a ledger known only by its last
// sealed segment's tree file (nil when it has none) and its active
// segment, as TreeHeadOf takes them: what the Action holds after a
// commit-back. Such a proof needs no sealed segment when from is at least
// the last sealed entry's seq: the nodes left of from are then the tree
// file's frontier or made by the active segment, those right of it too. An
// older from is refused with an error that says so.
func ConsistencyOf(lastTree, active []byte, from int64) (tlog.TreeProof, error) {
	v, err := viewOf(lastTree, active, true)
	if err != nil {
		return nil, fmt.Errorf("consistency proof: %w", err)
	}
	if from > 0 && from < v.sealed {
		return nil, fmt.Errorf("consistency proof from size %d: it needs the sealed segments before entry %d, and only the last one's tree file and the active segment are at hand", from, v.sealed+1)
	}
	return proveTree(v.size, from, v)
}

// viewOf is the tree view of a ledger held as its last sealed segment's
// tree file and its active segment, without the sealed segments: the
// active segment is verified, chained onto the tree file's head, and every
// node it makes is kept when capture is set.
func viewOf(lastTree, active []byte, capture bool) (*treeView, error) {
	v := &treeView{known: map[node]tlog.Hash{}, want: -1}
	var head Head
	var frontier []treeNode
	if lastTree != nil {
		t, err := parseTree(lastTree)
		if err != nil {
			return nil, fmt.Errorf("the last sealed segment's tree file: %w", err)
		}
		head, frontier = Head{Seq: t.size, Hash: t.head}, t.frontier()
		for _, n := range t.nodes {
			v.known[n.node] = n.hash
		}
	}
	rec := &treeRecorder{b: newTreeBuilderAt(head.Seq, frontier)}
	if capture {
		rec.b.formed = func(n treeNode) { v.known[n.node] = n.hash }
	}
	sum, err := verifyFrom(bytes.NewReader(active), head, rec, nil)
	if err != nil {
		return nil, fmt.Errorf("the active segment: %w", err)
	}
	v.sealed, v.size, v.root = head.Seq, sum.Entries, rec.b.root()
	return v, nil
}

// proveTree is tlog.ProveTree with RFC 6962's edge cases: the proof from
// an empty tree, and from a tree to itself, is empty.
func proveTree(size, from int64, r tlog.HashReader) (tlog.TreeProof, error) {
	switch {
	case from < 0 || from > size:
		return nil, fmt.Errorf("consistency proof: size %d is not a size of the ledger, which holds %d entries", from, size)
	case from == 0 || from == size:
		return tlog.TreeProof{}, nil
	}
	p, err := tlog.ProveTree(size, from, r)
	if err != nil {
		return nil, fmt.Errorf("consistency proof from size %d to %d: %w", from, size, err)
	}
	return p, nil
}

// FormatConsistency writes a consistency proof as C2SP tlog-witness sends
// it: one base64 hash per line.
func FormatConsistency(p tlog.TreeProof) []byte {
	var b bytes.Buffer
	for _, h := range p {
		b.WriteString(base64.StdEncoding.EncodeToString(h[:]))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// ParseConsistency reads a consistency proof in FormatConsistency's form.
// A final newline (and one blank line after it, as `echo "$P" >` leaves)
// is accepted; an empty text is the empty proof.
func ParseConsistency(text []byte) (tlog.TreeProof, error) {
	s := strings.TrimSuffix(strings.TrimSuffix(string(text), "\n"), "\n")
	if s == "" {
		return tlog.TreeProof{}, nil
	}
	lines := strings.Split(s, "\n")
	if len(lines) > MaxConsistencyHashes {
		return nil, fmt.Errorf("consistency proof: %d hashes, more than the %d any proof needs", len(lines), MaxConsistencyHashes)
	}
	p := make(tlog.TreeProof, len(lines))
	for i, l := range lines {
		h, err := base64.StdEncoding.DecodeString(l)
		if err != nil || len(h) != len(p[i]) {
			return nil, fmt.Errorf("consistency proof: line %d %q is not a base64 SHA-256 hash", i+1, l)
		}
		copy(p[i][:], h)
	}
	return p, nil
}

// CheckConsistency checks that proof p shows checkpoint next extends
// checkpoint prev: same origin, prev no larger, and (RFC 6962 §2.1.2) the
// tree of prev's size with prev's root a prefix of the tree of next's
// size with next's root. Equal sizes need equal roots and an empty proof;
// from size 0 the proof must be empty.
func CheckConsistency(p tlog.TreeProof, prev, next TreeHead) error {
	switch {
	case prev.Origin != next.Origin:
		return fmt.Errorf("consistency: the checkpoints are of two logs, %q and %q", prev.Origin, next.Origin)
	case prev.Size > next.Size:
		return fmt.Errorf("consistency: the old checkpoint's size %d is larger than the new one's %d: give the older checkpoint first", prev.Size, next.Size)
	case prev.Size == 0 || prev.Size == next.Size:
		if len(p) != 0 {
			return fmt.Errorf("consistency: a proof from size %d to %d must be empty; this one has %d hashes", prev.Size, next.Size, len(p))
		}
		if prev.Size == next.Size && prev.Root != next.Root {
			return fmt.Errorf("consistency: both checkpoints are of size %d, but their roots differ: the log was forked or rewritten", prev.Size)
		}
		return nil
	}
	if err := tlog.CheckTree(p, next.Size, next.Root, prev.Size, prev.Root); err != nil {
		return fmt.Errorf("consistency: the proof does not show that %s at size %d extends size %d (%v): the log was rewritten, or the proof is of other checkpoints", next.Origin, next.Size, prev.Size, err)
	}
	return nil
}
