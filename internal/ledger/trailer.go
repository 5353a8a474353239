package ledger

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// The commit trailers every commit-back ends its message with (architecture
// §4.13): the ledger's entry count and the hash of its last entry.
const (
	TrailerSize = "Optr-Ledger-Size"
	TrailerHead = "Optr-Ledger-Head"
)

// TrailerTree is a hint, not part of the contract's trailers: the
// repository path of the newest sealed segment's tree file
// (ledger.d/<first>-<last>.merkle) when the committed ledger has sealed
// segments. Commit-back carries it from commit to commit so that the next
// one finds that file with one small read instead of listing ledger.d,
// whose listing grows with the ledger. Nothing trusts it: the file it
// names is checked like any tree file, and a wrong hint only costs the
// listing.
const TrailerTree = "Optr-Ledger-Tree"

// TreeHint returns the TrailerTree value of a commit message, "" when it
// has none.
func TreeHint(msg string) string {
	for _, l := range strings.Split(msg, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimRight(l, "\r"), TrailerTree+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// TreeHintLine is the TrailerTree line naming the tree file at path, to end
// a commit message's trailers; "" when path is "".
func TreeHintLine(path string) string {
	if path == "" {
		return ""
	}
	return TrailerTree + ": " + path + "\n"
}

// Trailers returns the trailer block for head: two "Key: value" lines.
func Trailers(head Head) string {
	return fmt.Sprintf("%s: %d\n%s: %s\n", TrailerSize, head.Seq, TrailerHead, head.prevHashOrEmpty())
}

func (h Head) prevHashOrEmpty() string {
	if h.Seq == 0 {
		return ZeroHash
	}
	return h.Hash
}

// WithTrailers returns msg with the trailers for head as its last
// paragraph, replacing any Optr-Ledger trailers msg already had.
func WithTrailers(msg string, head Head) string {
	var kept []string
	for _, l := range strings.Split(strings.TrimRight(msg, "\n"), "\n") {
		if !strings.HasPrefix(l, TrailerSize+":") && !strings.HasPrefix(l, TrailerHead+":") && !strings.HasPrefix(l, TrailerTree+":") {
			kept = append(kept, l)
		}
	}
	return strings.TrimRight(strings.Join(kept, "\n"), "\n") + "\n\n" + Trailers(head)
}

// ParseTrailers reads the Optr-Ledger trailers of a commit message. ok is
// false when the message has none; a message with only one of them, or a
// malformed value, is an error (a forged or damaged trailer).
func ParseTrailers(msg string) (head Head, ok bool, err error) {
	var size, hash string
	var nSize, nHash int
	for _, l := range strings.Split(msg, "\n") {
		l = strings.TrimRight(l, "\r")
		if v, found := strings.CutPrefix(l, TrailerSize+":"); found {
			size, nSize = strings.TrimSpace(v), nSize+1
		}
		if v, found := strings.CutPrefix(l, TrailerHead+":"); found {
			hash, nHash = strings.TrimSpace(v), nHash+1
		}
	}
	switch {
	case nSize == 0 && nHash == 0:
		return Head{}, false, nil
	case nSize != 1 || nHash != 1:
		return Head{}, true, fmt.Errorf("the message has %d %s and %d %s trailers, want one of each", nSize, TrailerSize, nHash, TrailerHead)
	}
	n, err := strconv.ParseInt(size, 10, 64)
	if err != nil || n < 0 || strconv.FormatInt(n, 10) != size {
		return Head{}, true, fmt.Errorf("trailer %s: %q is not an entry count", TrailerSize, size)
	}
	if !isHexHash([]byte(hash)) {
		return Head{}, true, fmt.Errorf("trailer %s: %q is not 64 lowercase hex digits", TrailerHead, hash)
	}
	if n == 0 {
		if hash != ZeroHash {
			return Head{}, true, fmt.Errorf("trailer %s is 0 but %s is not 64 zeros", TrailerSize, TrailerHead)
		}
		return Head{}, true, nil
	}
	return Head{Seq: n, Hash: hash}, true, nil
}

// HeadOf returns the head of a ledger segment held in memory, checking its
// tail as Append does (the last line, and the lines in the 64 KiB before
// it). An empty segment has the zero head.
func HeadOf(segment []byte) (Head, error) {
	return readTailHead(bytes.NewReader(segment), int64(len(segment)))
}

// FirstSeq returns the seq of the first entry of a non-empty segment held
// in memory.
func FirstSeq(segment []byte) (int64, error) {
	seq, err := firstSeq(bytes.NewReader(segment), int64(len(segment)))
	if err != nil {
		return 0, fmt.Errorf("read the segment's first entry: %w", err)
	}
	return seq, nil
}
