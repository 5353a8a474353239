package ledger

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// segmented writes the ledger data as sealed segments cut after the given
// entry counts, the rest being the active segment, and returns the active
// segment's path.
func segmented(t testing.TB, data []byte, cuts ...int) string {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "ledger.jsonl")
	lines := splitLines(data)
	if err := os.MkdirAll(SegmentDir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	from := 0
	for _, c := range cuts {
		name := SegmentName(int64(from+1), int64(c))
		if err := os.WriteFile(filepath.Join(SegmentDir(path), name), bytes.Join(lines[from:c], nil), 0o644); err != nil {
			t.Fatal(err)
		}
		from = c
	}
	if err := os.WriteFile(path, bytes.Join(lines[from:], nil), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func synthetic(t testing.TB, n int) ([]byte, Head) {
	t.Helper()
	var buf bytes.Buffer
	head, err := WriteSynthetic(&buf, n)
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), head
}

func TestSegmentNames(t *testing.T) {
	t.Parallel()
	if got := SegmentName(1, 4096); got != "000000000001-000000004096.jsonl" {
		t.Errorf("SegmentName = %q", got)
	}
	if got := SegmentDir("/x/.optr/ledger.jsonl"); got != "/x/.optr/ledger.d" {
		t.Errorf("SegmentDir = %q", got)
	}
	for _, bad := range []string{"1-2.jsonl", "000000000002-000000000001.jsonl", "000000000000-000000000001.jsonl", "00000000000a-000000000001.jsonl", "000000000001-000000000002.json"} {
		if _, _, err := ParseSegmentName(bad); err == nil {
			t.Errorf("ParseSegmentName(%q) accepted it", bad)
		}
	}
}

// TestSegmentsReadAsOneLedger: verify, scan and the tail treat sealed
// segments and the active one as one chain.
func TestSegmentsReadAsOneLedger(t *testing.T) {
	t.Parallel()
	data, head := synthetic(t, 30)
	path := segmented(t, data, 10, 25)
	sum, err := VerifyFile(path)
	if err != nil {
		t.Fatalf("VerifyFile: %v", err)
	}
	if diff := cmp.Diff(Summary{Entries: 30, Head: head}, sum); diff != "" {
		t.Errorf("VerifyFile (-want +got):\n%s", diff)
	}
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	all, err := io.ReadAll(r)
	r.Close()
	if err != nil || !bytes.Equal(all, data) {
		t.Errorf("Open read %d bytes (%v), want the %d bytes of the ledger", len(all), err, len(data))
	}
	var seqs int64
	if err := ScanFile(path, func(e Entry) error { seqs++; return nil }); err != nil || seqs != 30 {
		t.Errorf("ScanFile saw %d entries (%v), want 30", seqs, err)
	}
	// An empty or missing active segment continues from the last sealed one.
	for _, active := range []string{"empty", "missing"} {
		p := segmented(t, data, 10, 30)
		if active == "missing" {
			os.Remove(p)
		}
		if got, err := TailHead(p); err != nil || got != head {
			t.Errorf("%s active: TailHead = %+v, %v; want %+v", active, got, err, head)
		}
		entries, err := Append(p, runDraft("31-1", 31))
		if err != nil {
			t.Fatalf("%s active: Append: %v", active, err)
		}
		if entries[0].Seq != 31 || entries[0].Prev != head.Hash {
			t.Errorf("%s active: appended seq %d prev %s, want 31 and %s", active, entries[0].Seq, entries[0].Prev, head.Hash)
		}
		if _, err := VerifyFile(p); err != nil {
			t.Errorf("%s active: VerifyFile after the append: %v", active, err)
		}
	}
}

// TestSegmentFaultsAreNamed: a missing, reordered, truncated or misnamed
// segment is caught, naming the file.
func TestSegmentFaultsAreNamed(t *testing.T) {
	t.Parallel()
	data, _ := synthetic(t, 30)
	seg := func(path string, first, last int64) string {
		return filepath.Join(SegmentDir(path), SegmentName(first, last))
	}
	tests := []struct {
		name    string
		break_  func(t *testing.T, path string) string // returns the file to be named
		problem Problem
	}{
		{"missing first segment", func(t *testing.T, p string) string {
			os.Remove(seg(p, 1, 10))
			return seg(p, 11, 25)
		}, ProblemSegment},
		{"missing middle segment", func(t *testing.T, p string) string {
			os.Remove(seg(p, 11, 25))
			return p
		}, ProblemSeq},
		{"reordered segments", func(t *testing.T, p string) string {
			a, b := seg(p, 1, 10), seg(p, 11, 25)
			da, _ := os.ReadFile(a)
			db, _ := os.ReadFile(b)
			os.WriteFile(a, db, 0o644)
			os.WriteFile(b, da, 0o644)
			return a
		}, ProblemSeq},
		{"truncated segment", func(t *testing.T, p string) string {
			b := seg(p, 11, 25)
			db, _ := os.ReadFile(b)
			lines := splitLines(db)
			os.WriteFile(b, bytes.Join(lines[:len(lines)-1], nil), 0o644)
			return b
		}, ProblemSegment},
		{"misnamed segment", func(t *testing.T, p string) string {
			os.Rename(seg(p, 11, 25), seg(p, 11, 24))
			return seg(p, 11, 24)
		}, ProblemSegment},
		{"stray file", func(t *testing.T, p string) string {
			os.WriteFile(filepath.Join(SegmentDir(p), "notes.txt"), nil, 0o644)
			return "notes.txt"
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := segmented(t, data, 10, 25)
			file := tt.break_(t, path)
			_, err := VerifyFile(path)
			if err == nil {
				t.Fatal("VerifyFile accepted the broken segments")
			}
			if !strings.Contains(err.Error(), file) {
				t.Errorf("error %q does not name %s", err, file)
			}
			if tt.problem != "" {
				if verr := asVerifyError(t, err); verr.Problem != tt.problem {
					t.Errorf("problem %s, want %s (%v)", verr.Problem, tt.problem, err)
				}
			}
		})
	}
}

// TestAppendSealsAtTheLimit: an append that would take the active segment
// past SegmentLimit first renames it, unchanged, into ledger.d.
func TestAppendSealsAtTheLimit(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	big := strings.Repeat("x", 512<<10)
	var n int64
	var before []byte
	for {
		cur, _ := os.ReadFile(path)
		res, err := AppendFile(path, Draft{Kind: "note", Run: "r", Time: testEpoch, Fields: map[string]any{"blob": big}})
		if err != nil {
			t.Fatal(err)
		}
		n++
		if res.Sealed != nil {
			before = cur
			want := &Segment{Path: filepath.Join(SegmentDir(path), SegmentName(1, n-1)), First: 1, Last: n - 1}
			if diff := cmp.Diff(want, res.Sealed); diff != "" {
				t.Fatalf("Sealed (-want +got):\n%s", diff)
			}
			break
		}
		if n > 40 {
			t.Fatal("no seal after 40 appends of 512 KiB")
		}
	}
	sealed, err := os.ReadFile(filepath.Join(SegmentDir(path), SegmentName(1, n-1)))
	if err != nil || !bytes.Equal(sealed, before) || len(sealed) > SegmentLimit {
		t.Errorf("the sealed segment is not the active one unchanged (%d bytes, %v)", len(sealed), err)
	}
	active, _ := os.ReadFile(path)
	if len(splitLines(active)) != 1 {
		t.Errorf("the new active segment has %d lines, want 1", len(splitLines(active)))
	}
	sum, err := VerifyFile(path)
	if err != nil || sum.Entries != n {
		t.Errorf("VerifyFile = %d entries, %v; want %d", sum.Entries, err, n)
	}
}

func TestOpenMissingLedger(t *testing.T) {
	t.Parallel()
	_, err := Open(filepath.Join(t.TempDir(), "ledger.jsonl"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Open: %v, want ErrNotExist", err)
	}
	if err := ScanFile(filepath.Join(t.TempDir(), "ledger.jsonl"), func(Entry) error { return nil }); err != nil {
		t.Errorf("ScanFile of a missing ledger: %v", err)
	}
}
