package preflight

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/testkit/fifotest"
	"time"

	"github.com/optr-dev/optr/internal/ledger"
	"github.com/optr-dev/optr/internal/testkit/gittest"
)

// validLedger writes a ledger of two entries and returns its path.
func validLedger(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "ledger.jsonl")
	for _, run := range []string{"r1", "r2"} {
		if _, err := ledger.Append(path, ledger.Draft{Kind: "run", Run: run, Workflow: "demo", Time: time.Unix(1, 0)}); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

// sealed writes, in dir, a ledger whose entries 1 and 2 are a sealed
// segment and entry 3 is in the active segment, and returns its path.
func sealed(t *testing.T, dir string) string {
	t.Helper()
	path := validLedger(t, dir)
	if err := os.MkdirAll(ledger.SegmentDir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path, filepath.Join(ledger.SegmentDir(path), ledger.SegmentName(1, 2))); err != nil {
		t.Fatal(err)
	}
	if _, err := ledger.Append(path, ledger.Draft{Kind: "run", Run: "r3", Workflow: "demo", Time: time.Unix(1, 0)}); err != nil {
		t.Fatal(err)
	}
	if err := ledger.CheckShape(path); err != nil {
		t.Fatalf("the sound segmented ledger: %v", err)
	}
	return path
}

// Every input that used to fail only after every agent ran is refused
// before the first one starts, with a message naming what is wrong.
func TestCheckRefusesBadInputs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := validLedger(t, dir)
	data, _ := os.ReadFile(good)

	mk := func(name string, content []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, content, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	crlf := mk("crlf.jsonl", bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n")))
	flipped := mk("flipped.jsonl", bytes.Replace(data, []byte(`"r2"`), []byte(`"r3"`), 1))
	fifo := filepath.Join(dir, "fifo")
	fifotest.Make(t, fifo)
	dangling := filepath.Join(dir, "dangling")
	if err := os.Symlink(filepath.Join(dir, "nowhere", "ledger.jsonl"), dangling); err != nil {
		t.Fatal(err)
	}
	// Sealed segments the active segment no longer follows (issue 27
	// item 6): one removed, one added.
	removed := sealed(t, filepath.Join(dir, "removed"))
	os.Remove(filepath.Join(ledger.SegmentDir(removed), ledger.SegmentName(1, 2)))
	extra := sealed(t, filepath.Join(dir, "extra"))
	os.WriteFile(filepath.Join(ledger.SegmentDir(extra), ledger.SegmentName(3, 4)), data, 0o644)
	// Datalakes the Action must not write into (issue 27 item 8).
	ws := filepath.Join(dir, "ws")
	for _, d := range []string{".git", "docs"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(t.TempDir(), filepath.Join(ws, "outside")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("docs", filepath.Join(ws, "inside")); err != nil {
		t.Fatal(err)
	}
	readonlyDir := filepath.Join(dir, "ro")
	_ = os.Mkdir(readonlyDir, 0o555)
	notDir := mk("file", []byte("x"))

	tests := []struct {
		name string
		in   Input
		want string
	}{
		{"ledger is a directory", Input{LedgerPath: dir}, "is a directory"},
		{"ledger is /dev/full", Input{LedgerPath: "/dev/full"}, "not a regular file (a character device)"},
		{"ledger is a FIFO", Input{LedgerPath: fifo}, "not a regular file (a FIFO)"},
		{"ledger is a dangling symlink", Input{LedgerPath: dangling}, "does not exist"},
		{"ledger in a file, not a directory", Input{LedgerPath: filepath.Join(notDir, "ledger.jsonl")}, "not a directory"},
		{"ledger with CRLF line ends", Input{LedgerPath: crlf}, "CRLF"},
		{"ledger whose last line was changed", Input{LedgerPath: flipped}, "optr ledger verify"},
		{"ledger whose sealed segment was removed", Input{LedgerPath: removed}, "does not follow the start of the ledger"},
		{"ledger with an extra sealed segment", Input{LedgerPath: extra}, ledger.SegmentName(3, 4)},
		{"datalake input absolute", Input{Datalake: "/etc/optr", Workspace: dir}, "absolute path"},
		{"datalake input leaves the workspace", Input{Datalake: "../elsewhere", Workspace: dir}, "leaves the workspace"},
		{"datalake input leaves via a subdir", Input{Datalake: "a/../../b", Workspace: dir}, "leaves the workspace"},
		{"datalake is a file", Input{Datalake: notDir}, "is not a directory"},
		{"datalake input is a symbolic link out", Input{Datalake: "outside", Workspace: ws}, "symbolic link"},
		{"datalake input under a symbolic link out", Input{Datalake: "outside/.optr", Workspace: ws}, "symbolic link"},
		{"datalake input is a symbolic link inside", Input{Datalake: "inside/.optr", Workspace: ws}, "symbolic link"},
		{"datalake input is .git", Input{Datalake: ".git", Workspace: ws}, ".git directory"},
		{"datalake input is inside .git", Input{Datalake: "./.git/optr", Workspace: ws}, ".git directory"},
		{"datalake input is the workspace", Input{Datalake: ".", Workspace: ws}, "the workspace itself"},
		{"datalake input is the workspace by a detour", Input{Datalake: "docs/..", Workspace: ws}, "the workspace itself"},
	}
	if os.Geteuid() != 0 { // root may write anywhere
		tests = append(tests, struct {
			name string
			in   Input
			want string
		}{"ledger in a read-only directory", Input{LedgerPath: filepath.Join(readonlyDir, "ledger.jsonl")}, "cannot be written"})
	}
	refused := 0
	for _, tt := range tests {
		_, err := Check(t.Context(), tt.in)
		var pe *Error
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Check = %v, want an *Error containing %q", tt.name, err, tt.want)
			continue
		}
		refused++
	}
	t.Logf("bad inputs tried: %d, refused before any agent: %d", len(tests), refused)
}

func TestCheckAcceptsGoodInputs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := validLedger(t, dir)
	torn := filepath.Join(dir, "torn.jsonl")
	data, _ := os.ReadFile(good)
	_ = os.WriteFile(torn, append(data, `{"seq":3,"ti`...), 0o644)
	link := filepath.Join(dir, "link.jsonl")
	_ = os.Symlink(good, link)
	tests := []struct {
		name     string
		in       Input
		warnings int
	}{
		{"valid ledger", Input{LedgerPath: good, Datalake: dir}, 0},
		{"ledger not there yet, deep", Input{LedgerPath: filepath.Join(dir, "a", "b", "ledger.jsonl")}, 0},
		{"link to a valid ledger", Input{LedgerPath: link}, 0},
		{"torn tail: the next append recovers it", Input{LedgerPath: torn}, 1},
		{"datalake inside the workspace", Input{Datalake: ".optr", Workspace: dir}, 0},
		{"datalake that exists, deeper", Input{Datalake: "./a/.optr/", Workspace: dir}, 0},
		{"datalake whose name starts with .git", Input{Datalake: ".github/optr-data", Workspace: dir}, 0},
	}
	if err := os.MkdirAll(filepath.Join(dir, "a", ".optr"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		rep, err := Check(t.Context(), tt.in)
		if err != nil || len(rep.Warnings) != tt.warnings {
			t.Errorf("%s: Check = %+v, %v; want %d warnings, no error", tt.name, rep, err, tt.warnings)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".optr-preflight-") {
			t.Fatalf("preflight left %s behind", e.Name())
		}
	}
}

// A workspace whose git configuration carries the token actions/checkout
// persists is refused, naming the key and what to change; without it
// the run may start.
func TestCheckRefusesPersistedCredentials(t *testing.T) {
	t.Parallel()
	repo := gittest.Repo(t, map[string]string{"a.txt": "a\n"})
	if _, err := Check(t.Context(), Input{Repository: repo}); err != nil {
		t.Fatalf("a workspace without a credential: %v", err)
	}
	header := gittest.PersistCredentials(t, repo, t.TempDir(), "ghs_PREFLIGHTtoken0123456789abcdefABCD", false)
	_, err := Check(t.Context(), Input{Repository: filepath.Join(repo, ".")})
	var pe *Error
	if !errors.As(err, &pe) {
		t.Fatalf("Check = %v, want an *Error", err)
	}
	for _, want := range []string{"http.https://github.com/.extraheader", "persist-credentials: false"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal does not say %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), header[len("AUTHORIZATION: basic "):]) {
		t.Errorf("the refusal shows the credential:\n%v", err)
	}
}
