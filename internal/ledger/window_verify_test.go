package ledger

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// seqsIn reads the seqs of the window from since with ReadVerifiedWindow.
func verifiedSeqs(t *testing.T, st Store, hours int) ([]int64, error) {
	t.Helper()
	var seqs []int64
	err := ReadVerifiedWindow(t.Context(), st, windowBase.Add(timeHours(hours)), func(e WindowEntry) error {
		seqs = append(seqs, e.Seq)
		return nil
	})
	return seqs, err
}

// A window that verifies reads the entries ReadWindow reads, wherever it
// starts (in the active segment, in a sealed one, at the first entry),
// each whole, its line too: those the verification read, and, past
// what it keeps of a segment (two entries here), those read again.
func TestReadVerifiedWindow(t *testing.T) {
	t.Parallel()
	path := windowLedger(t)
	for _, h := range []int{0, 5, 15, 25, 31} {
		since := windowBase.Add(timeHours(h))
		want := windowEntries(t, func(fn func(WindowEntry) error) error { return ReadWindow(t.Context(), Local(path), since, fn) })
		if h < 31 && len(want) == 0 {
			t.Fatalf("from hour %d: ReadWindow read nothing", h)
		}
		for _, keep := range []int{maxWindowLines, 2} {
			got := windowEntries(t, func(fn func(WindowEntry) error) error {
				return readWindow(t.Context(), Local(path), since, &windowLines{max: keep}, fn)
			})
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("from hour %d, %d entries kept (-ReadWindow +ReadVerifiedWindow):\n%s", h, keep, diff)
			}
		}
	}
}

// windowEntries returns the entries read calls its fn with, each with a
// copy of its line.
func windowEntries(t *testing.T, read func(fn func(WindowEntry) error) error) []WindowEntry {
	t.Helper()
	var out []WindowEntry
	if err := read(func(e WindowEntry) error {
		e.Line = bytes.Clone(e.Line)
		out = append(out, e)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// Each way a ledger can fail to verify stops the read, naming the path as
// given and the line (its place in the whole ledger), before the read
// hands on any entry of that segment; the same edits pass ReadWindow,
// which checks no chain, so the test can fail.
func TestReadVerifiedWindowRefuses(t *testing.T) {
	t.Parallel()
	sealed := func(path string) string { return filepath.Join(SegmentDir(path), SegmentName(11, 20)) }
	for _, tt := range []struct {
		name string
		// edit changes the ledger at path and returns the file it changed.
		edit  func(t *testing.T, path string) string
		want  string
		lax   bool // ReadWindow reads it all the same
		hours int
	}{
		{name: "a changed value", lax: true, want: "line 23: hash is", edit: func(t *testing.T, path string) string {
			replaceIn(t, path, `"tokens":230`, `"tokens":231`)
			return path
		}},
		{name: "a segment's first entry moved out of the window", lax: true, hours: 20, want: "line 21: hash is", edit: func(t *testing.T, path string) string {
			// Entry 21, the active segment's first, recorded at 21h:
			// moved to 19h, it and entry 20 would fall out of a window
			// from 20h unread.
			replaceIn(t, path, `"time":"2026-11-01T21:00:00Z"`, `"time":"2026-11-01T19:00:00Z"`)
			return path
		}},
		{name: "a duplicated key", lax: true, want: "line 23: the line is JSON but not in RFC 8785 canonical form", edit: func(t *testing.T, path string) string {
			replaceIn(t, path, `"tokens":230`, `"tokens":230,"tokens":0`)
			return path
		}},
		{name: "invalid UTF-8", lax: true, want: "line 22:", edit: func(t *testing.T, path string) string {
			replaceIn(t, path, `"tokens":220,"workflow":"w"`, "\"tokens\":220,\"workflow\":\"w\xff\"")
			return path
		}},
		{name: "an entry deleted", lax: true, want: "line 22: seq is 23, want 22", edit: func(t *testing.T, path string) string {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			lines := splitLines(data)
			writeFile(t, path, bytes.Join(append(lines[:1:1], lines[2:]...), nil))
			return path
		}},
		{name: "a sealed segment replaced", lax: true, hours: 12, want: "the segment after it starts with seq 21", edit: func(t *testing.T, path string) string {
			// A chain of its own, under the same name: each line is
			// good, but it does not continue 1–10, and 21 does not
			// continue it.
			var drafts []Draft
			for i := 11; i <= 20; i++ {
				drafts = append(drafts, Draft{Kind: KindRun, Run: "forged", Workflow: "w", Time: windowBase.Add(timeHours(i)), Fields: map[string]any{"tokens": int64(0)}})
			}
			head := Head{Seq: 10, Hash: strings.Repeat("ab", 32)}
			entries, err := Chain(head, drafts...)
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, sealed(path), linesOf(t, entries))
			return sealed(path)
		}},
		{name: "a sealed segment cut short", lax: true, hours: 12, want: "ends with seq 19, but its name says 20", edit: func(t *testing.T, path string) string {
			data, err := os.ReadFile(sealed(path))
			if err != nil {
				t.Fatal(err)
			}
			lines := splitLines(data)
			writeFile(t, sealed(path), bytes.Join(lines[:len(lines)-1], nil))
			return sealed(path)
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := windowLedger(t)
			file := tt.edit(t, path)
			if tt.lax {
				if err := ReadWindow(t.Context(), Local(path), windowBase.Add(timeHours(tt.hours)), func(WindowEntry) error { return nil }); err != nil {
					t.Fatalf("ReadWindow refuses it too, so the test proves nothing: %v", err)
				}
			}
			seqs, err := verifiedSeqs(t, Local(path), tt.hours)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "ledger "+file+":") {
				t.Fatalf("ReadVerifiedWindow = %v; want an error naming %s and containing %q", err, file, tt.want)
			}
			for _, s := range seqs {
				if s > 20 && file == path {
					t.Errorf("entry %d of the segment that failed was handed on", s)
				}
			}
		})
	}
}

func replaceIn(t *testing.T, path, old, new string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(old)) {
		t.Fatalf("%s holds no %s", path, old)
	}
	writeFile(t, path, bytes.Replace(data, []byte(old), []byte(new), 1))
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func timeHours(h int) time.Duration { return time.Duration(h) * time.Hour }

// A line read again for fn must be the line verified: a segment changed
// between the verification and the read (a line edited to the same
// length, or the segment cut short) is refused, not handed on.
func TestReadVerifiedWindowChangedWhileRead(t *testing.T) {
	t.Parallel()
	path := windowLedger(t)
	data, err := os.ReadFile(path) // entries 21 to 30
	if err != nil {
		t.Fatal(err)
	}
	lines := splitLines(data)
	edited := bytes.Replace(data, []byte(`"tokens":230`), []byte(`"tokens":231`), 1)
	for _, tt := range []struct {
		name, want string
		read       []byte
	}{
		{name: "unchanged", read: data},
		{name: "a line edited", want: "ledger " + path + ": line 3 is not the line verified", read: edited},
		{name: "cut short", want: "10 lines were verified, but 9 are left to read", read: bytes.Join(lines[:9], nil)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			first, lerr := parseLine(bytes.TrimSuffix(lines[0], []byte("\n")))
			if lerr != nil {
				t.Fatal(lerr)
			}
			w := &windowLines{max: maxWindowLines}
			if _, err := verifyFrom(bytes.NewReader(data), Head{Seq: first.seq - 1, Hash: string(first.prev)}, nil, w); err != nil {
				t.Fatal(err)
			}
			var seqs []int64
			err := w.read(bytes.NewReader(tt.read), path, 0, windowBase, func(e WindowEntry) error {
				seqs = append(seqs, e.Seq)
				return nil
			})
			if tt.want == "" {
				if err != nil || len(seqs) != 10 {
					t.Fatalf("read %v, %v; want entries 21 to 30", seqs, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("read = %v; want an error containing %q", err, tt.want)
			}
		})
	}
}
