package witness

import (
	"fmt"
	"strings"

	"github.com/optr-dev/optr/internal/lazyregexp"
	"github.com/optr-dev/optr/internal/ledger"
)

// Published is a ledger head optr published in one of its final progress
// comments (architecture §4.6, §4.13): the comment witness. A rewrite of the
// ledger after the run can edit the git history but not what the issue
// thread already showed.
type Published struct {
	// Where is the comment's URL.
	Where string
	// Hash is the hash of the run's last entry, the ledger's head after
	// the run (the footer's "Ledger `…`").
	Hash string
	// Checkpoint is the checkpoint the comment carries, when it has one:
	// its size is the head's seq.
	Checkpoint *ledger.TreeHead
}

var (
	ledgerHashRE = lazyregexp.New("(?m)^Ledger `([0-9a-f]{64})`")
	summaryLine  = "<summary>Ledger checkpoint</summary>"
)

// ParsePublished reads the head a final progress comment published; ok is
// false for a comment that published none (a run still going, or one that
// recorded nothing). A checkpoint block that does not read as a checkpoint
// is an error: the comment was edited, or is not optr's.
func ParsePublished(where, body string) (p Published, ok bool, err error) {
	m := ledgerHashRE.FindStringSubmatch(body)
	if m == nil {
		return Published{}, false, nil
	}
	p = Published{Where: where, Hash: m[1]}
	_, rest, found := strings.Cut(body, summaryLine)
	if !found {
		return p, true, nil
	}
	text, err := fenced(rest)
	if err != nil {
		return p, true, &Error{Where: "comment " + where, Reason: "its ledger checkpoint " + err.Error()}
	}
	cp, _, err := ledger.OpenCheckpoint([]byte(text), "")
	if err != nil {
		return p, true, &Error{Where: "comment " + where, Reason: err.Error()}
	}
	p.Checkpoint = &cp
	return p, true, nil
}

// fenced returns the text of the first fenced code block in s.
func fenced(s string) (string, error) {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, "```") || strings.Trim(l, "`") != "" {
			continue
		}
		for j := i + 1; j < len(lines); j++ {
			if lines[j] == l {
				return strings.Join(lines[i+1:j], "\n") + "\n", nil
			}
		}
		break
	}
	return "", fmt.Errorf("is not a closed code block")
}

// PublishedSizes lists the checkpoint sizes of pubs, for VerifyTree.
func PublishedSizes(pubs []Published) []int64 {
	var out []int64
	for _, p := range pubs {
		if p.Checkpoint != nil {
			out = append(out, p.Checkpoint.Size)
		}
	}
	return out
}

// CheckPublished checks that the ledger at path, verified (ts, from
// ledger.VerifyTree given PublishedSizes), holds every published head: the
// entry at the checkpoint's size has the published hash and the ledger's
// first entries have the checkpoint's root; a comment without a checkpoint
// needs its hash somewhere in the ledger. The first comment that does not
// fit is an *Error naming it.
func CheckPublished(path string, ts ledger.TreeSummary, pubs []Published) error {
	var seqs []int64
	var loose []string
	for _, p := range pubs {
		if p.Checkpoint != nil {
			seqs = append(seqs, p.Checkpoint.Size)
		} else {
			loose = append(loose, p.Hash)
		}
	}
	found, err := ledger.Lookup(path, seqs, loose)
	if err != nil {
		return fmt.Errorf("witness: %w", err)
	}
	for _, p := range pubs {
		fail := func(format string, args ...any) error {
			return &Error{Where: "comment " + p.Where, Reason: fmt.Sprintf(format, args...) + ": the ledger was rewritten after optr published this head"}
		}
		cp := p.Checkpoint
		if cp == nil {
			if _, ok := found.ByHash[p.Hash]; !ok {
				return fail("it published head %s, which is no entry of the ledger", p.Hash)
			}
			continue
		}
		have, ok := found.BySeq[cp.Size]
		switch {
		case !ok:
			return fail("it published head %d (%s), but the ledger has only %d entries", cp.Size, p.Hash, found.Entries)
		case have != p.Hash:
			return fail("it published head %d (%s), but entry %d is %s", cp.Size, p.Hash, cp.Size, have)
		}
		if err := ts.Holds(*cp); err != nil {
			return fail("%v", err)
		}
	}
	return nil
}
