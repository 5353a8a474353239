package ledger

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/gowebpki/jcs"
)

func TestChainLinksEntries(t *testing.T) {
	t.Parallel()
	entries, err := Chain(Head{}, runDraft("1-1", 0), runDraft("2-1", 1))
	if err != nil {
		t.Fatal(err)
	}
	more, err := Chain(entries[1].Head(), runDraft("3-1", 2))
	if err != nil {
		t.Fatal(err)
	}
	entries = append(entries, more...)
	prev := ZeroHash
	for i, e := range entries {
		if e.Seq != int64(i+1) {
			t.Errorf("entry %d: seq %d, want %d", i, e.Seq, i+1)
		}
		if e.Prev != prev {
			t.Errorf("entry %d: prev %s, want %s", i, e.Prev, prev)
		}
		line, err := e.Line()
		if err != nil {
			t.Fatal(err)
		}
		if got := referenceHash(t, line); got != e.Hash {
			t.Errorf("entry %d: hash %s, reference computes %s", i, e.Hash, got)
		}
		prev = e.Hash
	}
}

func TestChainIsDeterministic(t *testing.T) {
	t.Parallel()
	a, err := Chain(Head{}, runDraft("1-1", 0))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Chain(Head{}, runDraft("1-1", 0))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("same draft, different entries (-first +second):\n%s", diff)
	}
}

// TestLineIsCanonical checks that lines are exactly jcs's output, for
// values that tempt an encoder to differ: HTML characters, control
// characters, non-ASCII and keys whose UTF-16 order differs from their
// UTF-8 order.
func TestLineIsCanonical(t *testing.T) {
	t.Parallel()
	d := Draft{
		Kind: "note", Run: "r", Workflow: "w",
		Time: time.Date(2026, 3, 1, 13, 0, 0, 5, time.FixedZone("CET", 3600)),
		Fields: map[string]any{
			"html":       "<b>&</b>",
			"control":    "a\u0001b\tc\u007f",
			"unicode":    "Überprüfung ✓ 🚀 \u2028",
			"z\ue000":    1,
			"z😀":         2,
			"float":      0.1,
			"tiny":       1e-7,
			"negative":   -42,
			"safe":       MaxSafeInteger,
			"nested":     map[string]any{"b": []any{nil, true, false, map[string]any{}}, "a": []any{}},
			"escapes":    `quote " backslash \ slash /`,
			"zero float": 0.0,
		},
	}
	entries, err := Chain(Head{}, d)
	if err != nil {
		t.Fatal(err)
	}
	line, err := entries[0].Line()
	if err != nil {
		t.Fatal(err)
	}
	body := line[:len(line)-1]
	canon, err := jcs.Transform(body)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(canon), string(body)); diff != "" {
		t.Errorf("line is not jcs canonical (-jcs +line):\n%s", diff)
	}
	if err := checkCanonical(body); err != nil {
		t.Errorf("checkCanonical refuses the line: %v", err)
	}
	if got, want := entries[0].Time, "2026-03-01T12:00:00.000000005Z"; got != want {
		t.Errorf("time %q, want %q (UTC)", got, want)
	}
	if !bytes.Contains(body, []byte(`"z😀":2,"z`+"\ue000"+`":1`)) {
		t.Errorf("keys not in UTF-16 order: %s", body)
	}
}

func TestChainRefusesBadDrafts(t *testing.T) {
	t.Parallel()
	ok := func() Draft { return Draft{Kind: "k", Run: "r", Workflow: "w", Time: testEpoch} }
	with := func(fields map[string]any) Draft { d := ok(); d.Fields = fields; return d }
	tests := []struct {
		name  string
		draft Draft
		want  string // part of the error
	}{
		{"empty kind", Draft{Run: "r", Time: testEpoch}, "kind is empty"},
		{"empty run", Draft{Kind: "k", Time: testEpoch}, "run id is empty"},
		{"zero time", Draft{Kind: "k", Run: "r"}, "time is not set"},
		{"quote in run", Draft{Kind: "k", Run: `r"1`, Time: testEpoch}, `run "r\"1" has a '"' at byte 1`},
		{"newline in workflow", Draft{Kind: "k", Run: "r", Workflow: "w\n", Time: testEpoch}, "quotes, backslashes and control characters are not allowed"},
		{"backslash in kind", Draft{Kind: `k\`, Run: "r", Time: testEpoch}, "kind"},
		{"field seq", with(map[string]any{"seq": 1}), `field "seq" is a common ledger member`},
		{"field hash", with(map[string]any{"hash": "x"}), `field "hash" is a common ledger member`},
		{"field time", with(map[string]any{"time": "x"}), `field "time" is a common ledger member`},
		{"2^53", with(map[string]any{"n": int64(1) << 53}), "number 9007199254740992 at n is beyond"},
		{"-2^53", with(map[string]any{"n": -(int64(1) << 53)}), "number -9007199254740992 at n is beyond"},
		{"2^53+1", with(map[string]any{"n": int64(1)<<53 + 1}), "number 9007199254740993 at n"},
		{"max uint64", with(map[string]any{"n": uint64(math.MaxUint64)}), "at n is beyond"},
		{"large float", with(map[string]any{"n": 1e300}), "number 1e+300 at n"},
		{"nested", with(map[string]any{"results": []any{map[string]any{"ttv_ms": int64(1) << 60}}}), "at results[0].ttv_ms"},
		{"not encodable", with(map[string]any{"c": make(chan int)}), "encode members"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Chain(Head{}, tt.draft)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Chain error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestChainAcceptsSafeNumbers(t *testing.T) {
	t.Parallel()
	for _, n := range []any{int64(MaxSafeInteger), int64(-MaxSafeInteger), 1.5, -0.25, 1e-300, 0} {
		d := Draft{Kind: "k", Run: "r", Time: testEpoch, Fields: map[string]any{"n": n}}
		if _, err := Chain(Head{}, d); err != nil {
			t.Errorf("Chain with n=%v: %v", n, err)
		}
	}
}

func TestChainRefusesBadHead(t *testing.T) {
	t.Parallel()
	for _, h := range []Head{
		{Seq: -1},
		{Seq: 0, Hash: ZeroHash},
		{Seq: 3, Hash: "abc"},
		{Seq: 3, Hash: strings.ToUpper(strings.Repeat("ab", 32))},
	} {
		if _, err := Chain(h, runDraft("1-1", 0)); err == nil {
			t.Errorf("Chain on head %+v succeeded, want an error", h)
		}
	}
}

func TestLineRefusesCommonMemberInFields(t *testing.T) {
	t.Parallel()
	entries, err := Chain(Head{}, runDraft("1-1", 0))
	if err != nil {
		t.Fatal(err)
	}
	e := entries[0]
	e.Fields = map[string]any{"seq": 99}
	if _, err := e.Line(); err == nil || !strings.Contains(err.Error(), `field "seq" is a common ledger member`) {
		t.Errorf("Line error = %v, want a refusal of the field", err)
	}
}

// TestChainMakesTheLineOnce: the line Chain made is the one Line returns,
// without canonicalising the entry again (the append writes it and the
// attestation hashes it), and it is the line and hash the entry's members
// give when canonicalised whole, for members on both sides of "hash".
func TestChainMakesTheLineOnce(t *testing.T) { // not parallel: AllocsPerRun
	d := runDraft("1-1", 0)
	for _, k := range []string{"", "A", "a", "h", "ha", "has", "hasg", "hasi", "hash_", "hashes", "i", "Ü", "z😀", "\ue000"} {
		d.Fields[k] = map[string]any{"n": len(k), "k": k}
	}
	entries, err := Chain(Head{}, d)
	if err != nil {
		t.Fatal(err)
	}
	e := entries[0]
	line, err := e.Line()
	if err != nil {
		t.Fatal(err)
	}
	if allocs := testing.AllocsPerRun(10, func() { _, _ = e.Line() }); allocs != 0 {
		t.Errorf("Line of a chained entry allocates %v times: it canonicalises the entry again", allocs)
	}
	if diff := cmp.Diff(string(canonicalWhole(t, e, true))+"\n", string(line)); diff != "" {
		t.Errorf("line (-whole entry canonicalised +Chain's):\n%s", diff)
	}
	if sum := sha256.Sum256(canonicalWhole(t, e, false)); hex.EncodeToString(sum[:]) != e.Hash {
		t.Errorf("hash %s is not the SHA-256 of the entry without it", e.Hash)
	}
}

// canonicalWhole is e's members, with or without its hash, canonicalised
// as one object.
func canonicalWhole(t *testing.T, e Entry, withHash bool) []byte {
	t.Helper()
	m, err := e.members(withHash)
	if err != nil {
		t.Fatal(err)
	}
	b, err := canonicalObject(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestLineFollowsAChangedEntry: an entry changed after Chain gets the line
// of its new members, not the one Chain kept.
func TestLineFollowsAChangedEntry(t *testing.T) {
	t.Parallel()
	entries, err := Chain(Head{}, runDraft("1-1", 0))
	if err != nil {
		t.Fatal(err)
	}
	e := entries[0]
	e.Seq = 7
	line, err := e.Line()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(line, []byte(`"seq":7`)) {
		t.Errorf("line of the entry moved to seq 7: %s", line)
	}
}
