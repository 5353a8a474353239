package ledger

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/mod/sumdb/tlog"
)

// tlogRoot computes the tree hash of a ledger's lines with tlog alone.
func tlogRoot(t *testing.T, data []byte) tlog.Hash {
	t.Helper()
	var recs [][]byte
	for _, l := range splitLines(data) {
		recs = append(recs, bytes.TrimSuffix(l, []byte("\n")))
	}
	h, err := tlog.TreeHash(int64(len(recs)), storedHashes(t, recs))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestVerifyTreeAcrossSegments(t *testing.T) {
	t.Parallel()
	data, head := synthetic(t, 37)
	path := segmented(t, data, 8, 20)
	ts, err := VerifyTree(path, 5, 20, 37, 99)
	if err != nil {
		t.Fatal(err)
	}
	if ts.Head != head || ts.Root != tlogRoot(t, data) {
		t.Errorf("VerifyTree = head %+v root %v; want %+v and tlog's root", ts.Head, ts.Root, head)
	}
	lines := splitLines(data)
	if got, want := ts.At[5], tlogRoot(t, bytes.Join(lines[:5], nil)); got != want {
		t.Errorf("root at 5 = %v, want %v", got, want)
	}
	if _, ok := ts.At[99]; ok {
		t.Errorf("a root at size 99 of a 37-entry ledger")
	}
}

// TestCheckpointCatches: an honest older checkpoint holds; a checkpoint of
// another ledger, a truncated ledger and a rewritten-but-rechained one are
// each refused with the reason.
func TestCheckpointCatches(t *testing.T) {
	t.Parallel()
	data, _ := synthetic(t, 20)
	lines := splitLines(data)
	path := segmented(t, data, 10)
	old, err := VerifyTree(path)
	if err != nil {
		t.Fatal(err)
	}
	cp := TreeHead{Origin: "optr/o/r", Size: old.Entries, Root: old.Root}

	// The honest ledger grows: the old checkpoint still holds.
	if _, err := Append(path, runDraft("21-1", 21)); err != nil {
		t.Fatal(err)
	}
	grown, err := VerifyTree(path, cp.Size)
	if err != nil {
		t.Fatal(err)
	}
	if err := grown.Holds(cp); err != nil {
		t.Errorf("an honest extension fails the old checkpoint: %v", err)
	}

	// Rewritten and re-chained from entry 3 on: a valid chain, another tree.
	edited := bytes.Replace(lines[2], []byte(`"selected":"`), []byte(`"selected":"X`), 1)
	rewritten := append(bytes.Join(lines[:2], nil), rechainLines(t, Head{Seq: 2, Hash: hashOf(t, lines[1])}, append([][]byte{edited}, lines[3:]...))...)
	tests := []struct {
		name, data, want string
	}{
		{"rewritten and rechained", string(rewritten), "was rewritten"},
		{"truncated", string(bytes.Join(lines[:15], nil)), "only 15 entries"},
		// Another repository's ledger: another first run, the rest alike.
		{"another ledger", string(rechainLines(t, Head{}, append([][]byte{bytes.Replace(lines[0], []byte(`"run":"`), []byte(`"run":"z`), 1)}, lines[1:]...))), "another ledger"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := filepath.Join(t.TempDir(), "ledger.jsonl")
			os.WriteFile(p, []byte(tt.data), 0o644)
			ts, err := VerifyTree(p, cp.Size)
			if err != nil {
				t.Fatalf("the ledger itself must verify: %v", err)
			}
			err = ts.Holds(cp)
			var mm *TreeHeadMismatchError
			if !errors.As(err, &mm) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Holds = %v, want a mismatch saying %q", err, tt.want)
			}
		})
	}
}

func TestCheckpointNotes(t *testing.T) {
	t.Parallel()
	cp := TreeHead{Origin: "optr/o/r", Size: 42, Root: tlog.RecordHash([]byte("x"))}
	got, err := ParseCheckpoint([]byte(cp.Text()))
	if err != nil || got != cp {
		t.Fatalf("ParseCheckpoint(Text()) = %+v, %v", got, err)
	}
	skey, vkey, err := GenerateKey("optr/o/r")
	if err != nil {
		t.Fatal(err)
	}
	_, otherV, _ := GenerateKey("optr/o/r")
	signed, err := cp.Sign(skey)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(signed, []byte(cp.Text()+"\n— optr/o/r ")) {
		t.Errorf("signed note:\n%s", signed)
	}
	if c, s, err := OpenCheckpoint(signed, vkey); err != nil || !s || c != cp {
		t.Errorf("OpenCheckpoint(signed, right key) = %+v %v %v", c, s, err)
	}
	if _, _, err := OpenCheckpoint(signed, otherV); err == nil {
		t.Error("a signature by another key was accepted")
	}
	if _, _, err := OpenCheckpoint([]byte(cp.Text()), vkey); !errors.Is(err, ErrUnsigned) {
		t.Errorf("unsigned with a key: %v, want ErrUnsigned", err)
	}
	forged := bytes.Replace(signed, []byte("\n42\n"), []byte("\n41\n"), 1)
	if _, _, err := OpenCheckpoint(forged, vkey); err == nil {
		t.Error("a changed signed checkpoint was accepted")
	}
	for _, bad := range []string{"", "o\n", "o\n-1\nAAAA\n", "o\n1\nnot base64\n", "\n1\n" + strings.Repeat("A", 44) + "\n"} {
		if _, err := ParseCheckpoint([]byte(bad)); err == nil {
			t.Errorf("ParseCheckpoint(%q) accepted it", bad)
		}
	}
}

func TestProve(t *testing.T) {
	t.Parallel()
	data, _ := synthetic(t, 45)
	path := segmented(t, data, 16, 30)
	root := tlogRoot(t, data)
	for _, seq := range []int64{1, 16, 17, 31, 45} {
		p, cp, err := Prove(path, LocalOrigin, seq)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(TreeHead{Origin: LocalOrigin, Size: 45, Root: root}, cp); diff != "" {
			t.Errorf("seq %d: checkpoint (-want +got):\n%s", seq, diff)
		}
		if _, err := p.Check(""); err != nil {
			t.Errorf("seq %d: Check: %v", seq, err)
		}
		tampered := p
		tampered.Entry = strings.Replace(p.Entry, `"seq":`, `"seq": `, 1)
		if _, err := tampered.Check(""); err == nil {
			t.Errorf("seq %d: a changed entry passed", seq)
		}
		wrongSeq := p
		wrongSeq.Seq = seq%45 + 1
		if _, err := wrongSeq.Check(""); err == nil {
			t.Errorf("seq %d: a proof claiming another seq passed", seq)
		}
		other := p
		other.Checkpoint = TreeHead{Origin: LocalOrigin, Size: 45, Root: tlog.RecordHash(nil)}.Text()
		if _, err := other.Check(""); err == nil {
			t.Errorf("seq %d: a proof into another checkpoint passed", seq)
		}
	}
	if _, _, err := Prove(path, LocalOrigin, 46); err == nil {
		t.Error("Prove accepted a seq beyond the head")
	}
}

// TestCheckpointWithABlankLineAfter: a checkpoint file with one blank line
// after it (what `echo "$CP" > file` makes of the output) opens, signed or
// not; two blank lines do not.
func TestCheckpointWithABlankLineAfter(t *testing.T) {
	t.Parallel()
	skey, vkey, err := GenerateKey(LocalOrigin)
	if err != nil {
		t.Fatal(err)
	}
	cp := TreeHead{Origin: LocalOrigin, Size: 3}
	signed, err := cp.Sign(skey)
	if err != nil {
		t.Fatal(err)
	}
	if got, isSigned, err := OpenCheckpoint(append(signed, '\n'), vkey); err != nil || !isSigned || got != cp {
		t.Errorf("signed + blank line: %+v %v %v", got, isSigned, err)
	}
	if got, isSigned, err := OpenCheckpoint([]byte(cp.Text()+"\n"), ""); err != nil || isSigned || got != cp {
		t.Errorf("unsigned + blank line: %+v %v %v", got, isSigned, err)
	}
	if _, _, err := OpenCheckpoint(append(signed, '\n', '\n'), vkey); err == nil {
		t.Error("signed + two blank lines opened")
	}
}

// TestSignRefusesAKeyOfAnotherName: C2SP looks a log's key up by its
// origin, so a key named otherwise does not sign.
func TestSignRefusesAKeyOfAnotherName(t *testing.T) {
	t.Parallel()
	skey, _, err := GenerateKey("optr/octo/repo")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (TreeHead{Origin: LocalOrigin, Size: 1}).Sign(skey); !errors.Is(err, ErrKeyName) {
		t.Errorf("Sign with a key named optr/octo/repo for optr/local: %v", err)
	}
	if err := CheckKeyName(skey, "optr/octo/repo"); err != nil {
		t.Errorf("CheckKeyName of the right name: %v", err)
	}
}
