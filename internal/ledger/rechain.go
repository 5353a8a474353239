package ledger

import (
	"bytes"
	"crypto/sha256"
	"fmt"

	"github.com/tidwall/gjson"
)

// memberOutcome is an outcome entry's member that says what happened:
// merged, closed or reverted.
const memberOutcome = "outcome"

// OutcomeKey identifies what an outcome entry records, so that it is
// recorded once however often and in whatever order the events that
// report it come: its run (the run that opened the pull request) and its
// outcome member (merged, closed, reverted). Entries with the same key
// record the same thing.
func OutcomeKey(run string, outcome any) string {
	return fmt.Sprintf("%s\x00%v", run, outcome)
}

// Rechain places a run's entries on top of a ledger that may have moved on
// since they were chained: the commit-back step of architecture §2, where the
// ledger branch is updated compare-and-swap and a refused update is retried
// on the new tip.
//
// remote is the full content of the ledger as it stands now (possibly
// empty); mine are this run's entries, one chain (consecutive seq, each prev
// the hash before), chained on some earlier head H. Rechain
//
//   - checks the remote's tail: a complete last line, and the entries after
//     H each well-formed, with a matching hash, chained to the one before;
//   - drops every entry of mine that the remote already holds after H — the
//     same entry except for seq, prev and hash (so kind, run, time and every
//     field equal) — because an earlier attempt of this commit landed;
//   - drops an outcome entry of mine whose run and outcome member the
//     remote already records after H, in another entry (another job
//     recorded the same merge or close first): an outcome is recorded
//     once (OutcomeKey);
//   - refuses a run entry whose run id the remote already records after H
//     with different content: a run id is recorded once;
//   - chains the rest after the remote's last entry, in order, with new seq,
//     prev and hash and nothing else changed.
//
// It returns the bytes to append to remote, and mine as they stand in the
// resulting ledger: rechained[i] is mine[i] with its final seq, prev and
// hash, whether it was appended now or found already present (for a
// dropped outcome, the remote's entry that records it). The remote is
// searched back to H only (all of it when H is not in it), so the cost
// grows with what happened since H, not with the ledger's size.
func Rechain(remote []byte, mine []Entry) (appended []byte, rechained []Entry, err error) {
	if len(mine) == 0 {
		return nil, nil, nil
	}
	ids, err := identities(mine)
	if err != nil {
		return nil, nil, err
	}
	tail, err := readRemoteTail(remote, mine[0].Prev)
	if err != nil {
		return nil, nil, err
	}

	present := make(map[string]int, len(tail.since)) // identity → index in since
	runs := make(map[string]int)                     // run id → index of its run entry
	outcomes := make(map[string]int)                 // OutcomeKey → index of its entry
	for i, r := range tail.since {
		present[string(r.id)] = i
		switch r.kind {
		case KindRun:
			runs[r.run] = i
		case KindOutcome:
			outcomes[r.once] = i
		}
	}
	head := tail.head
	rechained = make([]Entry, len(mine))
	for i, e := range mine {
		if j, ok := present[string(ids[i])]; ok {
			r := tail.since[j]
			delete(present, string(ids[i]))
			e.Seq, e.Prev, e.Hash = r.seq, r.prev, r.hash
			rechained[i] = e
			continue
		}
		if j, ok := outcomes[OutcomeKey(e.Run, e.Fields[memberOutcome])]; ok && e.Kind == KindOutcome {
			found, lerr := decodeEntry(tail.since[j].line)
			if lerr != nil {
				return nil, nil, fmt.Errorf("rechain: the remote's entry %d: %s", tail.since[j].seq, lerr.reason)
			}
			rechained[i] = found
			continue
		}
		if j, ok := runs[e.Run]; ok && e.Kind == KindRun {
			return nil, nil, fmt.Errorf("rechain: run %q is already recorded in the remote ledger (seq %d) with different content; a run id is recorded once, so this run must not commit again under the same id", e.Run, tail.since[j].seq)
		}
		e.Seq, e.Prev = head.Seq+1, head.prevHash()
		if err := e.seal(); err != nil {
			return nil, nil, fmt.Errorf("rechain entry %d: %w", i+1, err)
		}
		line, err := e.Line()
		if err != nil {
			return nil, nil, fmt.Errorf("rechain: %w", err)
		}
		appended = append(appended, line...)
		rechained[i] = e
		head = e.Head()
	}
	return appended, rechained, nil
}

// identities checks that mine is one intact chain and returns each entry's
// identity: its canonical form without seq, prev and hash.
func identities(mine []Entry) ([][]byte, error) {
	ids := make([][]byte, len(mine))
	for i, e := range mine {
		if i > 0 && (e.Seq != mine[i-1].Seq+1 || e.Prev != mine[i-1].Hash) {
			return nil, fmt.Errorf("rechain: the entries are not one chain: entry %d (seq %d) does not follow seq %d; pass the entries in the order Chain or Append returned them", i+1, e.Seq, mine[i-1].Seq)
		}
		line, err := e.Line()
		if err != nil {
			return nil, fmt.Errorf("rechain: %w", err)
		}
		line = line[:len(line)-1]
		info, lerr := parseLine(line)
		if lerr != nil {
			return nil, fmt.Errorf("rechain: entry %d (seq %d): %s", i+1, e.Seq, lerr.reason)
		}
		var sum [sha256.Size]byte
		sumLine(sha256.New(), line, info.cutStart, info.cutEnd, &sum)
		if !hashMatches(&sum, info.hash) {
			return nil, fmt.Errorf("rechain: entry %d (seq %d) has hash %s but its content hashes to %x: it was changed after it was chained", i+1, e.Seq, e.Hash, sum)
		}
		ids[i] = identity(line, &info.members)
	}
	return ids, nil
}

// identity returns a checked line without its seq, prev and hash members.
// Each of them is followed by another member in canonical order (time,
// run and kind respectively), so each is cut with the comma after it and
// what remains is still canonical.
func identity(line []byte, m *topMembers) []byte {
	cuts := []member{m.hash, m.prev, m.seq} // ascending key order
	out := make([]byte, 0, len(line))
	at := 0
	for _, c := range cuts {
		out = append(out, line[at:c.key]...)
		at = c.end + 1
	}
	return append(out, line[at:]...)
}

// remoteTail is what Rechain needs to know of the remote ledger.
type remoteTail struct {
	head  Head
	since []remoteEntry // entries after the base head, newest first
}

type remoteEntry struct {
	seq        int64
	prev, hash string
	kind, run  string
	id         []byte
	// once is an outcome entry's OutcomeKey, line its line.
	once string
	line []byte
}

// readRemoteTail walks the remote ledger back from its end to the entry
// whose hash is base (or to its start), checking each line on the way.
func readRemoteTail(remote []byte, base string) (remoteTail, error) {
	var t remoteTail
	if len(remote) == 0 {
		return t, nil
	}
	lineNo := int64(bytes.Count(remote, []byte{'\n'}))
	if remote[len(remote)-1] != '\n' {
		return t, errRemote(newLineError(ProblemTorn, "the last line is incomplete (no trailing newline)").at(lineNo + 1))
	}
	h := sha256.New()
	var sum [sha256.Size]byte
	var later *lineInfo
	for end := len(remote) - 1; end >= 0; end, lineNo = end-1, lineNo-1 {
		start := bytes.LastIndexByte(remote[:end], '\n') + 1
		line := remote[start:end]
		info, lerr := parseLine(line)
		if lerr != nil {
			return t, errRemote(lerr.at(lineNo))
		}
		sumLine(h, line, info.cutStart, info.cutEnd, &sum)
		if !hashMatches(&sum, info.hash) {
			return t, errRemote(newLineError(ProblemHash, "hash is %s, but the line hashes to %x", info.hash, sum).at(lineNo))
		}
		if later == nil {
			t.head = Head{Seq: info.seq, Hash: string(info.hash)}
		} else if later.seq != info.seq+1 || !bytes.Equal(later.prev, info.hash) {
			return t, errRemote(newLineError(ProblemPrev, "the entry does not follow the one before it (seq %d, hash %s)", info.seq, info.hash).at(lineNo + 1))
		}
		if string(info.hash) == base {
			return t, nil
		}
		// The first line is the ledger's first entry, or, in an active
		// segment that follows sealed ones, an entry chained onto them.
		if start == 0 && (info.seq == 1) != (string(info.prev) == ZeroHash) {
			return t, errRemote(newLineError(ProblemSeq, "the first entry has seq %d and prev %s: want seq 1 with 64 zeros, or a later seq continuing a sealed segment", info.seq, info.prev).at(1))
		}
		re := remoteEntry{
			seq:  info.seq,
			prev: string(info.prev),
			hash: string(info.hash),
			kind: string(info.kind),
			run:  string(info.run),
			id:   identity(line, &info.members),
		}
		if re.kind == KindOutcome {
			re.once, re.line = OutcomeKey(re.run, gjson.GetBytes(line, memberOutcome).Value()), line
		}
		t.since = append(t.since, re)
		later = &info
		end = start
	}
	return t, nil
}

func errRemote(verr *VerifyError) error {
	return fmt.Errorf("rechain: the remote ledger is broken at %w; run `optr ledger verify` on the ledger branch and repair it before committing", verr)
}
