package ledger

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"

	"golang.org/x/mod/sumdb/tlog"
)

// Proof is an RFC 6962 inclusion proof of one ledger entry in a checkpoint,
// as `optr ledger prove` prints it (JSON) and `optr ledger verify --proof`
// checks it.
type Proof struct {
	// Seq is the entry's seq (its record index plus one).
	Seq int64 `json:"seq"`
	// Entry is the entry's line as written, without its newline.
	Entry string `json:"entry"`
	// Checkpoint is the checkpoint the proof leads to: its text, or the
	// signed note when a key was given.
	Checkpoint string `json:"checkpoint"`
	// Hashes are the proof's hashes, the one nearest the entry first.
	Hashes tlog.RecordProof `json:"hashes"`
}

// Prove builds the inclusion proof of entry seq in the ledger at path as
// it stands. The returned Checkpoint is the head the proof leads to
// (origin as given); the caller signs it when it has a key. It refuses a
// seq beyond the head.
//
// It reads the sealed segments' tree files it needs (O(log n) nodes), and
// hashes the active segment, which it verifies as HeadCheckpoint does, and
// the one or two sealed segments around the entry. When a tree file it
// needs is missing or does not fit, it makes the proof in one pass over
// all the ledger's lines instead, in O(log n) memory, without verifying
// the chain (VerifyFile does).
func Prove(path, origin string, seq int64) (Proof, TreeHead, error) {
	p, cp, err := proveFromTrees(path, origin, seq)
	if !errors.Is(err, errTreeUnusable) {
		return p, cp, err
	}
	return proveStreaming(path, origin, seq)
}

// proveStreaming is Prove in one pass over the ledger's lines.
func proveStreaming(path, origin string, seq int64) (Proof, TreeHead, error) {
	st, err := streamTree(path, seq-1, func(size int64, r tlog.HashReader) error {
		if seq < 1 || seq > size {
			return fmt.Errorf("prove: seq %d is not in the ledger, which holds entries 1 to %d", seq, size)
		}
		_, err := tlog.ProveRecord(size, seq-1, r)
		return err
	})
	if err != nil {
		return Proof{}, TreeHead{}, err
	}
	hashes, err := tlog.ProveRecord(st.size, seq-1, st)
	if err != nil {
		return Proof{}, TreeHead{}, fmt.Errorf("prove: %w", err)
	}
	cp := TreeHead{Origin: origin, Size: st.size, Root: st.root}
	return Proof{Seq: seq, Entry: string(st.line), Checkpoint: cp.Text(), Hashes: hashes}, cp, nil
}

// Check verifies the proof: the entry is a well-formed ledger line whose
// hash matches and whose seq is Seq, and the hashes lead from it to the
// checkpoint's root. vkey, when set, is the public key the checkpoint's
// signature must verify with. It returns the checkpoint.
func (p Proof) Check(vkey string) (TreeHead, error) {
	cp, _, err := OpenCheckpoint([]byte(p.Checkpoint), vkey)
	if err != nil {
		return TreeHead{}, fmt.Errorf("proof: %w", err)
	}
	line := []byte(p.Entry)
	if bytes.IndexByte(line, '\n') >= 0 {
		return cp, errors.New("proof: the entry holds a newline; it must be one ledger line without its newline")
	}
	info, lerr := parseLine(line)
	if lerr != nil {
		return cp, fmt.Errorf("proof: the entry is not a ledger line: %s", lerr.reason)
	}
	var sum [sha256.Size]byte
	sumLine(sha256.New(), line, info.cutStart, info.cutEnd, &sum)
	if !hashMatches(&sum, info.hash) {
		return cp, fmt.Errorf("proof: the entry's hash is %s, but it hashes to %x", info.hash, sum)
	}
	if info.seq != p.Seq {
		return cp, fmt.Errorf("proof: the entry has seq %d, the proof says %d", info.seq, p.Seq)
	}
	if p.Seq < 1 || p.Seq > cp.Size {
		return cp, fmt.Errorf("proof: seq %d is outside the checkpoint's %d entries", p.Seq, cp.Size)
	}
	if err := tlog.CheckRecord(p.Hashes, cp.Size, cp.Root, p.Seq-1, tlog.RecordHash(line)); err != nil {
		return cp, fmt.Errorf("proof: entry %d is not in checkpoint %s at size %d: %w", p.Seq, cp.Origin, cp.Size, err)
	}
	return cp, nil
}
