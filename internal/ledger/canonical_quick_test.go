package ledger

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// quickSeeds are documents at the edges of what quickCanonical takes.
var quickSeeds = []string{
	`{"a":"` + strings.Repeat("x", 62) + `"}`, `{"a":"` + strings.Repeat("x", 63) + `"}`,
	`{"a":"` + strings.Repeat("x", 64) + `"}`, `{"a":"` + strings.Repeat("x", 65) + `"}`,
	`{"a":"` + strings.Repeat("x", 200) + `"}`, `{"` + strings.Repeat("k", 70) + `":1}`,
	`{"a":""}`, `{"":""}`, `{"":1,"a":2}`, `{"a":1,"":2}`, `{"ab":1,"a":2}`, `{"a":1,"ab":2}`,
	`{"a":1,"a":1}`, `{"a":[1,[2,[3]]],"b":{"c":{"d":{}}}}`, `["",""]`, `[""]`, `["]`, `"`, `{"`, `{"a"`, `{"a":`,
	`{"a":-0}`, `{"a":-0.5}`, `{"a":0.0}`, `{"a":01}`, `{"a":1.}`, `{"a":-}`, `{"a":123456789012345}`,
	`{"a":1234567890123456}`, `{"a":1e3}`, `{"a":tru}`, `{"a":nul}`, `{"a":fals}`, `{"a":true,"b":false,"c":null}`,
	strings.Repeat("[", 16) + strings.Repeat("]", 16), strings.Repeat("[", 17) + "1" + strings.Repeat("]", 17),
	`{"a":"` + strings.Repeat("x", 4000) + `"}`, `{"a":"` + strings.Repeat("x", 5000) + `"}`,
	`{"a":0.8503000000000001}`, `{"a":-0.43679999999999997}`, `{"a":0.85030000000000010}`, `{"a":0.1000000000000000055511151231257827}`,
	`{"a":1.5e-7}`, `{"a":0.0000001}`, `{"a":123456789012345680000}`, `{"a":1234567890123456.8}`, `{"a":1e400}`, `{"a":0.1e1}`,
}

// FuzzQuickCanonicalAgreesWithChecker holds the fast path to the careful
// checker: what it takes, the checker takes too, with the same members;
// what it does not take, the checker decides.
func FuzzQuickCanonicalAgreesWithChecker(f *testing.F) {
	for _, s := range append(quickSeeds, canonicalSeeds...) {
		f.Add([]byte(s))
	}
	for _, line := range splitLines(mustRead(f, "golden.jsonl")) {
		f.Add(line[:len(line)-1])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if quickCanonical(b, nil) {
			if err := explainCanonical(b); err != nil {
				t.Fatalf("quickCanonical(%q) = true, the checker says %v", b, err)
			}
		}
		var quick, careful topMembers
		if len(b) > 0 && b[0] == '{' && quickCanonical(b, &quick) {
			if err := explainCanonicalObject(b, &careful); err != nil {
				t.Fatalf("quickCanonical(%q) = true, the checker says %v", b, err)
			}
			if quick != careful {
				t.Fatalf("quickCanonical(%q) found members %+v, the checker %+v", b, quick, careful)
			}
		}
		// With or without the fast path, the same answer as jcs.
		if got, want := explainCanonical(b) == nil, jcsCanonical(b); got != want {
			t.Fatalf("explainCanonical(%q) = %v, jcs says canonical = %v", b, got, want)
		}
	})
}

// TestQuickCanonicalTakesLedgerLines: the fast path is the one ordinary
// ledger lines take, those Append writes and the benchmarks' synthetic
// ones (with what runs spent: sums of costs, some with 17 significant
// digits, 0.8503000000000001), or the verifier is no faster for it.
func TestQuickCanonicalTakesLedgerLines(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	for i := range 3 {
		d := Draft{Kind: KindRun, Run: fmt.Sprintf("run-%d", i), Workflow: "issue-7", Time: time.Now(),
			Fields: map[string]any{"selected": "claude", "score": 0.75, "results": []any{map[string]any{"agent": "codex", "ms": 1200}}}}
		if _, err := Append(path, d); err != nil {
			t.Fatal(err)
		}
	}
	appended, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var spend bytes.Buffer
	if _, err := WriteSyntheticWith(&spend, 2000, SyntheticOptions{Spend: true, Outcomes: true}); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`[0-9]\.[0-9]{16}`).Match(spend.Bytes()) {
		t.Fatal("no synthetic line has a number of 17 significant digits: the test takes none")
	}
	lines := append(splitLines(appended), splitLines(syntheticBytes(t, 200))...)
	lines = append(lines, splitLines(spend.Bytes())...)
	for _, line := range lines {
		var top topMembers
		if !quickCanonical(line[:len(line)-1], &top) {
			t.Errorf("quickCanonical refuses the ledger line %.80q", line)
		}
		if !top.seq.found || !top.hash.found || !top.prev.found {
			t.Errorf("quickCanonical did not find the members of %.80q: %+v", line, top)
		}
	}
}

// wordSeeds are byte strings at the edges of the eight-byte steps of
// plainPrefix, nextQuote and isHexHash: a byte of each kind at each place
// of a word, after a borrow and at the ragged end.
var wordSeeds = []string{
	"", "a", `"`, "\\", "\n", "\x1f", "\x7f", "\x80", "\xff", " ", "\x00",
	`abcdefg"`, `abcdefgh"`, `"abcdefgh`, "abcdefg\\", "abcdefgh\x1f", "\x1fabcdefgh",
	`abcdefghijklmno"pq"`, "abc\x80defghijkl\"", "\\\"\\\"\\\"\\\"", "\x00\"\x00\"",
	strings.Repeat("0123456789abcdef", 4), strings.Repeat("0123456789ABCDEF", 4),
	strings.Repeat("f", 63) + "g", strings.Repeat("0", 63) + "/", strings.Repeat("9", 63) + ":",
	strings.Repeat("a", 63) + "`", strings.Repeat("a", 63) + "\xe1", "\xb0" + strings.Repeat("0", 63),
}

// FuzzPlainPrefix holds plainPrefix to a byte at a time: its prefix ends
// at the first control character, '\\' or byte from 0x80.
func FuzzPlainPrefix(f *testing.F) {
	for _, s := range append(wordSeeds, quickSeeds...) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		want := 0
		for want < len(b) && b[want] >= 0x20 && b[want] < 0x80 && b[want] != '\\' {
			want++
		}
		if got := plainPrefix(b); got != want {
			t.Fatalf("plainPrefix(%q) = %d, want %d", b, got, want)
		}
	})
}

// FuzzNextQuote holds nextQuote to bytes.IndexByte on the plain bytes it
// is given.
func FuzzNextQuote(f *testing.F) {
	for _, s := range append(wordSeeds, quickSeeds...) {
		f.Add([]byte(s), 0)
		f.Add([]byte(s), 1)
	}
	f.Fuzz(func(t *testing.T, b []byte, from int) {
		b = b[:plainPrefix(b)]
		if from < 0 || from > len(b) {
			return
		}
		want := len(b)
		if i := bytes.IndexByte(b[from:], '"'); i >= 0 {
			want = from + i
		}
		if got := nextQuote(b, from); got != want {
			t.Fatalf("nextQuote(%q, %d) = %d, want %d", b, from, got, want)
		}
	})
}

// FuzzIsHexHash holds isHexHash to a byte at a time.
func FuzzIsHexHash(f *testing.F) {
	for _, s := range wordSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		want := len(b) == 64
		for _, c := range b {
			want = want && ('0' <= c && c <= '9' || 'a' <= c && c <= 'f')
		}
		if got := isHexHash(b); got != want {
			t.Fatalf("isHexHash(%q) = %v, want %v", b, got, want)
		}
	})
}
