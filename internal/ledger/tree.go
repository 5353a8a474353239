package ledger

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/tlog"
)

// A sealed segment's tree file, ledger.d/<first>-<last>.merkle beside
// ledger.d/<first>-<last>.jsonl, holds the Merkle tree hashes a checkpoint
// or a proof needs from that segment and everything before it, so that
// neither has to hash the whole ledger:
//
//	optr ledger tree 1
//	first <first>
//	size <last>
//	head <hash of entry last>
//	<level> <index> <base64 hash>
//	...
//	sum <hex SHA-256 of the lines before>
//
// The node lines (tlog's level and index: the perfect subtree over records
// [index<<level, (index+1)<<level)) are, largest level first, the tree's
// frontier after the segment (frontierOf(last)) and every node that spans
// the segment's start (made while adding the segment's records, with
// records of earlier segments in it). Every other node of the tree is
// either in an earlier segment's file or inside one segment, where hashing
// that segment's records gives it.
//
// The file is derived data: it is written when the segment is sealed and
// never trusted on its own. A reader checks its shape against the
// segment's name and its head against the segment's last entry, and falls
// back to hashing the ledger when it is missing or does not fit;
// VerifyTree recomputes it and names a file that differs.

// treeExt is the extension of a segment's tree file.
const treeExt = ".merkle"

// treeMagic is the first line of a tree file.
const treeMagic = "optr ledger tree 1"

// TreePath is the tree file of a sealed segment: its path with .merkle for
// .jsonl.
func (s Segment) TreePath() string {
	return strings.TrimSuffix(s.Path, ".jsonl") + treeExt
}

// IsTreeName reports whether a file name in the segment directory is a
// segment's tree file (<first>-<last>.merkle), not a segment.
func IsTreeName(name string) bool {
	_, _, err := ParseTreeName(name)
	return err == nil
}

// ParseTreeName returns the range of the segment whose tree file is named
// name (<first>-<last>.merkle).
func ParseTreeName(name string) (first, last int64, err error) {
	stem, ok := strings.CutSuffix(name, treeExt)
	if !ok {
		return 0, 0, fmt.Errorf("%q is not a segment's tree file (<first>-<last>%s)", name, treeExt)
	}
	return ParseSegmentName(stem + ".jsonl")
}

// segmentTree is the content of a tree file.
type segmentTree struct {
	first int64
	size  int64
	head  string
	nodes []treeNode // in file order
}

// spanningNodes lists the nodes made while records first-1 to last-1
// (0-based) are added that hold records from before first-1: for each
// level, the node holding records first-2 and first-1, when it ends by
// last.
func spanningNodes(first, last int64) []node {
	s := first - 1
	var out []node
	if s == 0 {
		return nil
	}
	for level := 1; level < 63; level++ {
		n := node{level: level, index: (s - 1) >> level}
		if n.hi() > last {
			break
		}
		if n.hi() > s { // holds s-1 and s
			out = append(out, n)
		}
	}
	return out
}

// treeNodesOf lists the nodes a tree file for entries first to last holds,
// in file order (largest level first, then by index).
func treeNodesOf(first, last int64) []node {
	set := map[node]bool{}
	for _, n := range frontierOf(last) {
		set[n] = true
	}
	for _, n := range spanningNodes(first, last) {
		set[n] = true
	}
	out := make([]node, 0, len(set))
	for n := range set {
		out = append(out, n)
	}
	slices.SortFunc(out, func(a, b node) int {
		if a.level != b.level {
			return b.level - a.level
		}
		return int(a.index - b.index)
	})
	return out
}

// marshal writes the tree file's content.
func (t segmentTree) marshal() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\nfirst %d\nsize %d\nhead %s\n", treeMagic, t.first, t.size, t.head)
	for _, n := range t.nodes {
		fmt.Fprintf(&b, "%d %d %s\n", n.level, n.index, base64.StdEncoding.EncodeToString(n.hash[:]))
	}
	fmt.Fprintf(&b, "sum %x\n", sha256.Sum256(b.Bytes()))
	return b.Bytes()
}

// parseTree reads a tree file and checks that it has exactly the nodes a
// tree file of the segment it names (first, size) holds.
func parseTree(data []byte) (segmentTree, error) {
	var t segmentTree
	i := bytes.LastIndex(data, []byte("\nsum "))
	if i < 0 || string(data[i+len("\nsum "):]) != fmt.Sprintf("%x\n", sha256.Sum256(data[:i+1])) {
		return t, errors.New("its sum line is missing or is not the SHA-256 of the lines before it: the file was changed or cut short")
	}
	lines := strings.Split(string(data[:i+1]), "\n")
	if len(lines) < 5 || lines[len(lines)-1] != "" || lines[0] != treeMagic {
		return t, errors.New("it is not an optr ledger tree file")
	}
	lines = lines[:len(lines)-1]
	first, ok1 := strings.CutPrefix(lines[1], "first ")
	size, ok2 := strings.CutPrefix(lines[2], "size ")
	var err1, err2 error
	t.first, err1 = strconv.ParseInt(first, 10, 64)
	t.size, err2 = strconv.ParseInt(size, 10, 64)
	if !ok1 || !ok2 || err1 != nil || err2 != nil || t.first < 1 || t.size < t.first {
		return t, fmt.Errorf("its lines %q and %q do not name a range of entries", lines[1], lines[2])
	}
	head, ok := strings.CutPrefix(lines[3], "head ")
	if !ok || !isHexHash([]byte(head)) {
		return t, fmt.Errorf("its head line %q is not a hash", lines[3])
	}
	t.head = head
	want := treeNodesOf(t.first, t.size)
	if len(lines)-4 != len(want) {
		return t, fmt.Errorf("it has %d node lines, a segment of entries %d to %d needs %d", len(lines)-4, t.first, t.size, len(want))
	}
	for i, l := range lines[4:] {
		f := strings.Fields(l)
		var tn treeNode
		if len(f) == 3 {
			level, err1 := strconv.Atoi(f[0])
			index, err2 := strconv.ParseInt(f[1], 10, 64)
			h, err3 := base64.StdEncoding.DecodeString(f[2])
			if err1 == nil && err2 == nil && err3 == nil && len(h) == len(tn.hash) {
				tn.node = node{level: level, index: index}
				copy(tn.hash[:], h)
			}
		}
		if tn.node != want[i] {
			return t, fmt.Errorf("node line %d %q is not node %d %d with a base64 hash", i+1, l, want[i].level, want[i].index)
		}
		t.nodes = append(t.nodes, tn)
	}
	return t, nil
}

// frontier returns the tree's frontier after the segment, with hashes.
func (t segmentTree) frontier() []treeNode {
	byNode := map[node]tlog.Hash{}
	for _, n := range t.nodes {
		byNode[n.node] = n.hash
	}
	var out []treeNode
	for _, n := range frontierOf(t.size) {
		out = append(out, treeNode{node: n, hash: byNode[n]})
	}
	return out
}

// treeCollector gathers, while a segment's records are added to a
// builder, the nodes its tree file holds.
type treeCollector struct {
	first    int64 // the segment's first seq
	spanning []treeNode
}

// formed is the builder's callback.
func (c *treeCollector) formed(n treeNode) {
	if n.lo() < c.first-1 {
		c.spanning = append(c.spanning, n)
	}
}

// file is the tree file of the segment that ended with entry head, the
// builder b having just added its last record.
func (c *treeCollector) file(b *treeBuilder, head string) segmentTree {
	have := map[node]tlog.Hash{}
	for _, n := range c.spanning {
		have[n.node] = n.hash
	}
	for _, n := range b.stack {
		have[n.node] = n.hash
	}
	t := segmentTree{first: c.first, size: b.n, head: head}
	for _, n := range treeNodesOf(c.first, b.n) {
		t.nodes = append(t.nodes, treeNode{node: n, hash: have[n]})
	}
	return t
}

// SegmentTree returns the tree file for a sealed segment: seg is its
// content, prev the tree file of the segment before it (nil for the first
// segment, whose first entry is 1). It checks that prev ends where seg
// starts (size, and head against the first entry's prev) and that seg's
// last entry has the seq its place implies, but not the chain (VerifyFile
// does). A commit-back that seals a segment commits its tree file beside
// it: at most a few KiB (two nodes per tree level), once per segment.
func SegmentTree(prev, seg []byte) ([]byte, error) {
	first, err := FirstSeq(seg)
	if err != nil {
		return nil, fmt.Errorf("ledger tree: %w", err)
	}
	var frontier []treeNode
	var prevHead string
	if first > 1 {
		if prev == nil {
			return nil, fmt.Errorf("ledger tree: the segment starts at %d, but no tree file of the segment before it was given", first)
		}
		pt, err := parseTree(prev)
		if err != nil {
			return nil, fmt.Errorf("ledger tree of the previous segment: %w", err)
		}
		if pt.size != first-1 {
			return nil, fmt.Errorf("ledger tree of the previous segment: it ends at %d, the segment starts at %d", pt.size, first)
		}
		frontier, prevHead = pt.frontier(), pt.head
	}
	return segmentTreeFrom(frontier, prevHead, seg, first)
}

// segmentTreeFrom computes the tree file of segment seg (entries first to
// its last), continuing the tree whose frontier after first-1 records is
// given and whose last entry had hash prevHead.
func segmentTreeFrom(frontier []treeNode, prevHead string, seg []byte, first int64) ([]byte, error) {
	b := newTreeBuilderAt(first-1, frontier)
	c := &treeCollector{first: first}
	b.formed = c.formed
	var last []byte
	for rest := seg; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			return nil, fmt.Errorf("ledger tree: the segment's line %d has no newline", b.n+1)
		}
		line := rest[:i]
		if b.n == first-1 && prevHead != "" {
			info, lerr := parseLine(line)
			if lerr != nil {
				return nil, fmt.Errorf("ledger tree: the segment's first line: %s", lerr.reason)
			}
			if string(info.prev) != prevHead {
				return nil, fmt.Errorf("ledger tree: the segment's first entry has prev %s, the tree before it ends with %s", info.prev, prevHead)
			}
		}
		b.addRecord(line)
		last, rest = line, rest[i+1:]
	}
	if last == nil {
		return nil, errors.New("ledger tree: the segment is empty")
	}
	info, lerr := parseLine(last)
	if lerr != nil {
		return nil, fmt.Errorf("ledger tree: the segment's last line: %s", lerr.reason)
	}
	if info.seq != b.n {
		return nil, fmt.Errorf("ledger tree: the segment's last entry has seq %d, but it is record %d of the ledger", info.seq, b.n)
	}
	return c.file(b, string(info.hash)).marshal(), nil
}

// writeTree writes a tree file atomically (a hidden temporary file in the
// same directory, renamed), so that no reader sees half of one. It is
// best effort: a tree file is derived data, which readers do without
// (they hash the segment then), so a file that cannot be written (a
// read-only clone) is left out and nothing else fails.
func writeTree(path string, data []byte) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(data)
	if cerr := tmp.Close(); werr != nil || cerr != nil || os.Rename(tmp.Name(), path) != nil {
		os.Remove(tmp.Name())
	}
}
