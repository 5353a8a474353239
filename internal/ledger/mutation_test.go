package ledger

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/optr-dev/optr/internal/testkit/golden"
)

// mutation is one way of breaking testdata/golden.jsonl (6 entries).
type mutation struct {
	name    string
	mutate  func(t *testing.T, lines [][]byte) []byte
	line    int64
	problem Problem
}

func mutations() []mutation {
	join := func(lines [][]byte) []byte { return bytes.Join(lines, nil) }
	replaceIn := func(n int, old, new string) func(*testing.T, [][]byte) []byte {
		return func(t *testing.T, lines [][]byte) []byte {
			t.Helper()
			if !bytes.Contains(lines[n-1], []byte(old)) {
				t.Fatalf("line %d has no %q", n, old)
			}
			lines[n-1] = bytes.Replace(lines[n-1], []byte(old), []byte(new), 1)
			return join(lines)
		}
	}
	return []mutation{
		{"flipped byte in a value", replaceIn(3, "ship it", "ship iT"), 3, ProblemHash},
		{"flipped byte in a key, order kept", replaceIn(3, `"note"`, `"nOte"`), 3, ProblemHash},
		{"flipped byte in a key, order broken", replaceIn(3, `"note"`, `"Note"`), 3, ProblemNotCanonical},
		{"flipped hex digit of hash", func(t *testing.T, l [][]byte) []byte {
			// The next line's prev no longer matches either, but the first
			// bad line is this one.
			return replaceIn(2, `"hash":"33a8`, `"hash":"33a9`)(t, l)
		}, 2, ProblemHash},
		{"flipped hex digit of prev", replaceIn(4, `"prev":"0bcf`, `"prev":"0bce`), 4, ProblemPrev},
		{"edited and re-hashed", func(t *testing.T, l [][]byte) []byte {
			l[2] = rehash(t, bytes.Replace(l[2], []byte("ship it"), []byte("abort it"), 1))
			return join(l)
		}, 4, ProblemPrev},
		{"deleted line", func(_ *testing.T, l [][]byte) []byte {
			return join(append(l[:2:2], l[3:]...))
		}, 3, ProblemSeq},
		{"deleted first line", func(_ *testing.T, l [][]byte) []byte { return join(l[1:]) }, 1, ProblemSeq},
		{"duplicated line", func(_ *testing.T, l [][]byte) []byte {
			return join(append(l[:3:3], l[2:]...))
		}, 4, ProblemSeq},
		{"swapped lines", func(_ *testing.T, l [][]byte) []byte {
			l[2], l[3] = l[3], l[2]
			return join(l)
		}, 3, ProblemSeq},
		{"truncated tail", func(_ *testing.T, l [][]byte) []byte {
			b := join(l)
			return b[:len(b)-10]
		}, 6, ProblemTorn},
		{"missing final newline", func(_ *testing.T, l [][]byte) []byte {
			b := join(l)
			return b[:len(b)-1]
		}, 6, ProblemTorn},
		{"trailing garbage", func(_ *testing.T, l [][]byte) []byte {
			return append(join(l), "garbage\n"...)
		}, 7, ProblemTrailingGarbage},
		{"trailing empty line", func(_ *testing.T, l [][]byte) []byte {
			return append(join(l), '\n')
		}, 7, ProblemTrailingGarbage},
		{"trailing garbage without newline", func(_ *testing.T, l [][]byte) []byte {
			return append(join(l), "xx"...)
		}, 7, ProblemTorn},
		{"garbage line in the middle", func(_ *testing.T, l [][]byte) []byte {
			return join(append(l[:2:2], append([][]byte{[]byte("not json\n")}, l[2:]...)...))
		}, 3, ProblemNotJSON},
		{"empty line in the middle", func(_ *testing.T, l [][]byte) []byte {
			return join(append(l[:2:2], append([][]byte{[]byte("\n")}, l[2:]...)...))
		}, 3, ProblemNotJSON},
		{"JSON array line", func(_ *testing.T, l [][]byte) []byte {
			l[1] = []byte("[1,2]\n")
			return join(l)
		}, 2, ProblemNotJSON},
		{"keys reordered", func(t *testing.T, l [][]byte) []byte {
			// A valid entry with the same members, "seq" moved first.
			seq := []byte(`"seq":4,`)
			body := bytes.Replace(l[3], seq, nil, 1)
			l[3] = append([]byte(`{"seq":4,`), body[1:]...)
			return join(l)
		}, 4, ProblemNotCanonical},
		{"extra space", replaceIn(2, `"kind":"checkpoint"`, `"kind": "checkpoint"`), 2, ProblemNotCanonical},
		{"CRLF line ending", func(_ *testing.T, l [][]byte) []byte {
			l[1] = append(l[1][:len(l[1])-1], '\r', '\n')
			return join(l)
		}, 2, ProblemNotCanonical},
		{"escaped slash", replaceIn(4, `"@org/team"`, `"@org\/team"`), 4, ProblemNotCanonical},
		{"non-canonical number", replaceIn(3, `"choice":1`, `"choice":1.0`), 3, ProblemNotCanonical},
		{"uppercase unicode escape", replaceIn(2, `\u0001`, `\u001F`), 2, ProblemNotCanonical},
		{"non-canonical unicode escape", replaceIn(2, `Ü`, `\u00dc`), 2, ProblemNotCanonical},
		{"missing member", replaceIn(3, `"workflow":"issue-8"`, `"workflowx":"issue-8"`), 3, ProblemMember},
		{"seq as string", replaceIn(3, `"seq":3`, `"seq":"3"`), 3, ProblemMember},
		{"uppercase hash", func(t *testing.T, l [][]byte) []byte {
			return replaceIn(2, "33a8c3fbd22cb84655e1b5acf14f5601", "33A8C3FBD22CB84655E1B5ACF14F5601")(t, l)
		}, 2, ProblemMember},
		{"time not UTC", replaceIn(3, `12:09:00Z`, `12:09:00+01:00`), 3, ProblemMember},
		{"first prev not zero", replaceIn(1, `"prev":"0000`, `"prev":"1000`), 1, ProblemPrev},
	}
}

// rehash recomputes the hash member of a line, as someone covering their
// tracks would.
func rehash(t *testing.T, line []byte) []byte {
	t.Helper()
	body := line[:len(line)-1]
	info, lerr := parseLine(body)
	if lerr != nil {
		t.Fatalf("rehash: %s", lerr.reason)
	}
	sum := sha256.Sum256(append(append([]byte{}, body[:info.cutStart]...), body[info.cutEnd:]...))
	out := append([]byte{}, body[:info.members.hash.val+1]...)
	out = append(out, hex.EncodeToString(sum[:])...)
	return append(append(out, body[info.members.hash.end-1:]...), '\n')
}

// TestVerifyMutations checks that each way of breaking a valid ledger is
// caught at the right line for the right reason. The messages are pinned in
// testdata/mutations.golden (UPDATE_GOLDEN=1 regenerates it).
func TestVerifyMutations(t *testing.T) {
	t.Parallel()
	base := readTestdata(t, "golden.jsonl")
	var messages strings.Builder
	for _, m := range mutations() {
		lines := splitLines(bytes.Clone(base))
		data := m.mutate(t, lines)
		_, err := Verify(bytes.NewReader(data))
		if err == nil {
			t.Errorf("%s: Verify accepted the mutated ledger", m.name)
			continue
		}
		verr := asVerifyError(t, err)
		want := struct {
			Line    int64
			Problem Problem
		}{m.line, m.problem}
		got := struct {
			Line    int64
			Problem Problem
		}{verr.Line, verr.Problem}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: (-want +got):\n%s\nerror: %v", m.name, diff, err)
		}
		fmt.Fprintf(&messages, "%s: %v\n", m.name, err)
	}
	golden.Check(t, "mutations.golden", string([]byte(messages.String())))
}

func TestVerifyEmpty(t *testing.T) {
	t.Parallel()
	got, err := Verify(bytes.NewReader(nil))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Summary{}, got); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
}

// TestVerifyTruncatedAtLineBoundary documents what a verifier cannot see
// on its own: a ledger cut after a complete line is a valid, shorter
// ledger. Its head differs, which is what callers compare with a head they
// recorded (the ledger-hash output).
func TestVerifyTruncatedAtLineBoundary(t *testing.T) {
	t.Parallel()
	lines := splitLines(readTestdata(t, "golden.jsonl"))
	got, err := Verify(bytes.NewReader(bytes.Join(lines[:4], nil)))
	if err != nil {
		t.Fatal(err)
	}
	if got.Entries != 4 || got.Head.Seq != 4 {
		t.Errorf("summary %+v, want 4 entries with head seq 4", got)
	}
}

func TestVerifyLongLines(t *testing.T) {
	t.Parallel()
	// A 3 MiB entry crosses several read buffers and must verify.
	big := Draft{Kind: "note", Run: "r", Time: testEpoch, Fields: map[string]any{"blob": strings.Repeat("x", 3<<20)}}
	entries, err := Chain(Head{}, runDraft("1-1", 0), big, runDraft("2-1", 1))
	if err != nil {
		t.Fatal(err)
	}
	data := linesOf(t, entries)
	if s, err := Verify(bytes.NewReader(data)); err != nil || s.Entries != 3 {
		t.Fatalf("Verify = %+v, %v; want 3 entries", s, err)
	}

	// A line beyond MaxLineSize is refused.
	tooLong := append(bytes.Clone(data), `{"x":"`...)
	tooLong = append(tooLong, bytes.Repeat([]byte("y"), MaxLineSize)...)
	tooLong = append(tooLong, "\"}\n"...)
	_, err = Verify(bytes.NewReader(tooLong))
	verr := asVerifyError(t, err)
	if verr.Line != 4 || verr.Problem != ProblemTooLong {
		t.Errorf("got %v, want line 4 too long", err)
	}
}

// TestVerifyReadError checks that a failing reader is not reported as a
// broken ledger.
func TestVerifyReadError(t *testing.T) {
	t.Parallel()
	r := &failingReader{data: readTestdata(t, "golden.jsonl")}
	_, err := Verify(r)
	if err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("Verify error = %v, want the read error", err)
	}
	var verr *VerifyError
	if asVerify := asVerifyErrorOK(err, &verr); asVerify {
		t.Errorf("a read error came back as %v", verr)
	}
}

type failingReader struct{ data []byte }

func (r *failingReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, fmt.Errorf("disk on fire")
	}
	n := copy(p, r.data[:len(r.data)/2+1])
	r.data = r.data[n:]
	return n, nil
}

// TestVerifyStopsEarly checks that a bad hash near the start ends the read
// within a few buffers instead of reading the whole ledger.
func TestVerifyStopsEarly(t *testing.T) {
	t.Parallel()
	data := syntheticBytes(t, 20_000) // about 21 MB
	lines := splitLines(data)
	lines[0] = bytes.Replace(lines[0], []byte(`"kind":"run"`), []byte(`"kind":"nur"`), 1)
	r := &countingReader{r: bytes.NewReader(bytes.Join(lines, nil))}
	_, err := Verify(r)
	if verr := asVerifyError(t, err); verr.Line != 1 || verr.Problem != ProblemHash {
		t.Fatalf("Verify: %v, want a hash mismatch on line 1", err)
	}
	if limit := (numBatches() + 2) * chunkSize; r.n > limit {
		t.Errorf("read %d of %d bytes after a bad first line, want at most %d", r.n, len(data), limit)
	}
}

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// TestVerifyTrailingGarbageAtABufferEnd puts a last line that is not JSON
// exactly at the end of the first read buffer, so that the reader learns
// only from the next read that nothing follows it: it is trailing garbage
// then, and a bad line in the middle when an entry follows.
func TestVerifyTrailingGarbageAtABufferEnd(t *testing.T) {
	t.Parallel()
	var data []byte
	var lines int64
	for _, l := range splitLines(syntheticBytes(t, 100)) {
		if len(data)+len(l)+len("garbage\n") > firstChunk {
			break
		}
		data = append(data, l...)
		lines++
	}
	rest := firstChunk - len(data) - 1
	data = append(data, bytes.Repeat([]byte("x"), rest)...)
	data = append(data, '\n')
	if len(data) != firstChunk {
		t.Fatalf("%d bytes, want %d", len(data), firstChunk)
	}
	_, err := Verify(bytes.NewReader(data))
	if verr := asVerifyError(t, err); verr.Line != lines+1 || verr.Problem != ProblemTrailingGarbage {
		t.Errorf("garbage ending the ledger at the buffer's end: %v, want line %d trailing garbage", err, lines+1)
	}
	_, err = Verify(bytes.NewReader(append(bytes.Clone(data), splitLines(syntheticBytes(t, 1))[0]...)))
	if verr := asVerifyError(t, err); verr.Line != lines+1 || verr.Problem != ProblemNotJSON {
		t.Errorf("garbage at the buffer's end with an entry after it: %v, want line %d not JSON", err, lines+1)
	}
}
