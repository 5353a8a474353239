package ledger

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestAppendRepairsTornTail checks issue 9 item 5 and issue 27 item 2: a
// last line without its newline is repaired under the lock by the next
// append, which says so and chains on. A whole entry that chains only lost
// its newline (editors, git and copy tools strip it) and is completed; it
// must never be replaced by another entry at its seq, a fork that verify
// cannot see. Anything else was a write cut off and is removed.
func TestAppendRepairsTornTail(t *testing.T) {
	t.Parallel()
	golden := readTestdata(t, "golden.jsonl")
	lines := splitLines(golden)
	last := bytes.TrimSuffix(lines[5], []byte("\n"))
	flipped := bytes.Replace(bytes.Clone(last), []byte(`"kind":"`), []byte(`"kind":"x`), 1)
	tests := []struct {
		name      string
		content   []byte
		cuts      []int // entries sealed into ledger.d first
		keep      int   // lines of golden that stay
		line      int64
		completed bool
	}{
		{name: "torn line", content: append(bytes.Clone(golden), `{"commit":"4b8`...), keep: 6, line: 7},
		{name: "missing final newline", content: golden[:len(golden)-1], keep: 6, line: 6, completed: true},
		{name: "first line of the active segment, newline stripped", content: golden[:len(golden)-1], cuts: []int{5}, keep: 6, line: 6, completed: true},
		{name: "torn first line", content: []byte(`{"commit":`), keep: 0, line: 1},
		{name: "whole entry that does not chain", content: append(bytes.Clone(golden), last...), keep: 6, line: 7},
		{name: "whole line whose hash does not hold", content: append(bytes.Join(lines[:5], nil), flipped...), keep: 5, line: 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := segmented(t, tt.content, tt.cuts...)
			if _, err := VerifyFile(path); asVerifyError(t, err).Problem != ProblemTorn {
				t.Fatalf("VerifyFile before the append: %v, want a torn line", err)
			}
			res, err := AppendFile(path, runDraft("9-1", 9))
			if err != nil {
				t.Fatalf("AppendFile: %v", err)
			}
			kept := bytes.Join(lines[:tt.keep], nil)
			tornAt := len(bytes.Join(lines[:min(tt.keep, int(tt.line)-1)], nil))
			want := &Repair{Path: path, Line: tt.line, Bytes: int64(len(tt.content) - tornAt), Completed: tt.completed}
			if diff := cmp.Diff(want, res.Repaired); diff != "" {
				t.Errorf("Repaired (-want +got):\n%s", diff)
			}
			if say := map[bool]string{true: "completed the last line", false: "removed the torn last line"}[tt.completed]; !strings.Contains(res.Repaired.String(), say) {
				t.Errorf("Repair.String() = %q does not say %q", res.Repaired, say)
			}
			if got := res.Entries[0].Seq; got != int64(tt.keep)+1 {
				t.Errorf("the new entry has seq %d, want %d", got, tt.keep+1)
			}
			all := readAll(t, path)
			if !bytes.HasPrefix(all, kept) {
				t.Errorf("the lines before the torn one changed")
			}
			sum, err := VerifyFile(path)
			if err != nil {
				t.Fatalf("VerifyFile after the repair: %v", err)
			}
			if sum.Entries != int64(tt.keep)+1 {
				t.Errorf("entries %d, want %d", sum.Entries, tt.keep+1)
			}
		})
	}
}

// readAll returns the ledger at path as one file: its sealed segments,
// then the active one.
func readAll(t *testing.T, path string) []byte {
	t.Helper()
	segs, err := Segments(path)
	if err != nil {
		t.Fatal(err)
	}
	var all []byte
	for _, s := range segs {
		b, err := os.ReadFile(s.Path)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return append(all, b...)
}

// TestTailHeadReportsTornTail: only an append repairs a torn line; reading
// the head reports it.
func TestTailHeadReportsTornTail(t *testing.T) {
	t.Parallel()
	golden := readTestdata(t, "golden.jsonl")
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	content := append(bytes.Clone(golden), `{"seq":7`...)
	if err := os.WriteFile(path, content, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := TailHead(path); asVerifyError(t, err).Problem != ProblemTorn {
		t.Errorf("TailHead: %v, want a torn line", err)
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(after, content) {
		t.Errorf("TailHead changed the file")
	}
}

// TestAppendCatchesTailWindowFaults checks issue 9 item 13: a duplicated,
// dropped or edited entry before the last line, within the tail window, is
// refused with a message pointing at `optr ledger verify`.
func TestAppendCatchesTailWindowFaults(t *testing.T) {
	t.Parallel()
	golden := readTestdata(t, "golden.jsonl")
	lines := splitLines(golden)
	// A duplicate of entry 4 that is itself valid: same seq and prev, a
	// different run, and entries 5 and 6 chained on the duplicate.
	dupDrafts := []Draft{runDraft("dup-4", 40)}
	dup, err := Chain(Head{Seq: 3, Hash: hashOf(t, lines[2])}, dupDrafts...)
	if err != nil {
		t.Fatal(err)
	}
	rest := rechainLines(t, dup[0].Head(), lines[4:])
	tests := []struct {
		name    string
		content []byte
		problem Problem
	}{
		{"duplicate seq", join(lines[:4], linesOf(t, dup), rest), ProblemSeq},
		{"dropped entry", join(lines[:3], lines[4:]), ProblemSeq},
		{"edited entry", join(lines[:2], [][]byte{bytes.Replace(lines[2], []byte(`"ship it"`), []byte(`"ship It"`), 1)}, lines[3:]), ProblemHash},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "ledger.jsonl")
			if err := os.WriteFile(path, tt.content, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Append(path, runDraft("9-1", 9))
			if err == nil {
				t.Fatal("Append accepted the bad tail window")
			}
			if verr := asVerifyError(t, err); verr.Problem != tt.problem {
				t.Errorf("problem %s, want %s (%v)", verr.Problem, tt.problem, err)
			}
			for _, want := range []string{"near the end", "optr ledger verify --ledger " + path} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			after, _ := os.ReadFile(path)
			if !bytes.Equal(after, tt.content) {
				t.Errorf("Append changed the file")
			}
		})
	}
}

func join(parts ...any) []byte {
	var out []byte
	for _, p := range parts {
		switch p := p.(type) {
		case []byte:
			out = append(out, p...)
		case [][]byte:
			out = append(out, bytes.Join(p, nil)...)
		}
	}
	return out
}

func hashOf(t *testing.T, line []byte) string {
	t.Helper()
	info, lerr := parseLine(bytes.TrimSuffix(line, []byte("\n")))
	if lerr != nil {
		t.Fatal(lerr.reason)
	}
	return string(info.hash)
}

// rechainLines re-chains lines onto head (new seq, prev and hash).
func rechainLines(t *testing.T, head Head, lines [][]byte) []byte {
	t.Helper()
	var out []byte
	for _, l := range lines {
		var e Entry
		if err := Scan(bytes.NewReader(l), func(x Entry) error { e = x; return nil }); err != nil {
			t.Fatal(err)
		}
		e.Seq, e.Prev = head.Seq+1, head.prevHash()
		if err := e.seal(); err != nil {
			t.Fatal(err)
		}
		out = append(out, linesOf(t, []Entry{e})...)
		head = e.Head()
	}
	return out
}

// FuzzTailReader feeds the tail reader arbitrary files: it must never
// panic, and whatever head it accepts must be the head Verify finds when
// the whole file verifies.
func FuzzTailReader(f *testing.F) {
	golden, err := readFileTestdata("golden.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(golden)
	f.Add(golden[:len(golden)-1])
	f.Add(append(bytes.Clone(golden), "junk\n"...))
	f.Add([]byte("\n"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bytes.NewReader(data)
		head, err := readTailHead(r, int64(len(data)))
		cut, _, terr := tornTail(r, int64(len(data)))
		if terr == nil && (cut < 0 || cut > int64(len(data)) || (cut < int64(len(data)) && cut > 0 && data[cut-1] != '\n')) {
			t.Fatalf("tornTail cut at %d of %d, not after a newline", cut, len(data))
		}
		sum, verr := Verify(bytes.NewReader(data))
		if verr == nil && err != nil {
			t.Fatalf("Verify accepts the ledger, the tail reader refuses it: %v", err)
		}
		if verr == nil && head != sum.Head {
			t.Fatalf("tail head %+v, Verify head %+v", head, sum.Head)
		}
	})
}
