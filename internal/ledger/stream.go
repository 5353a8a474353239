package ledger

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"golang.org/x/mod/sumdb/tlog"
)

// streamedTree is the ledger's Merkle tree taken in one pass over all its
// lines, for when the tree files cannot serve a proof: the root, and the
// hashes of the nodes one proof needs, found by making the proof once
// with placeholder hashes (which nodes a proof reads depends only on the
// sizes and indexes). It holds O(log n) hashes, and does not verify the
// chain (VerifyFile does).
type streamedTree struct {
	size  int64
	root  tlog.Hash
	nodes map[node]tlog.Hash
	line  []byte // the kept record's line
}

// streamTree reads the ledger at path, as far as its head, keeping the
// line of record keep (0-based; -1: none) and the nodes that prove asks
// for when given the ledger's size and a tlog.HashReader.
func streamTree(path string, keep int64, prove func(size int64, r tlog.HashReader) error) (*streamedTree, error) {
	head, err := TailHead(path)
	if err != nil {
		return nil, err
	}
	want := map[node]bool{}
	asked := tlog.HashReaderFunc(func(indexes []int64) ([]tlog.Hash, error) {
		for _, x := range indexes {
			level, n := tlog.SplitStoredHashIndex(x)
			want[node{level: level, index: n}] = true
		}
		return make([]tlog.Hash, len(indexes)), nil
	})
	if err := prove(head.Seq, asked); err != nil {
		return nil, err
	}
	st := &streamedTree{size: head.Seq, nodes: make(map[node]tlog.Hash, len(want))}
	b := newTreeBuilder()
	b.formed = func(n treeNode) {
		if want[n.node] {
			st.nodes[n.node] = n.hash
		}
	}
	r, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	br := bufio.NewReaderSize(r, 1<<20)
	for b.n < head.Seq {
		line, err := readLine(br)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read ledger line %d: %w", b.n+1, err)
		}
		if b.n == keep {
			st.line = bytes.Clone(line)
		}
		b.addRecord(line)
	}
	if b.n != head.Seq {
		return nil, fmt.Errorf("the ledger has %d lines, but its last entry has seq %d; run `optr ledger verify`", b.n, head.Seq)
	}
	st.root = b.root()
	return st, nil
}

// ReadHashes implements tlog.HashReader for the nodes streamTree kept.
func (st *streamedTree) ReadHashes(indexes []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(indexes))
	for i, x := range indexes {
		level, n := tlog.SplitStoredHashIndex(x)
		h, ok := st.nodes[node{level: level, index: n}]
		if !ok {
			return nil, fmt.Errorf("ledger tree: node %d %d was not kept", level, n)
		}
		out[i] = h
	}
	return out, nil
}
