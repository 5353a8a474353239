package witness

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/optr-dev/optr/internal/ledger"
)

// repo is a real git repository holding a ledger at .optr/ledger.jsonl.
type repo struct {
	t    *testing.T
	dir  string
	path string // the active segment
}

func newRepo(t *testing.T) *repo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	r := &repo{t: t, dir: dir, path: filepath.Join(dir, ".optr", "ledger.jsonl")}
	r.git("init", "-q", "-b", "optr-ledger")
	r.git("config", "user.name", "optr")
	r.git("config", "user.email", "optr@example.com")
	r.git("config", "commit.gpgsign", "false")
	return r
}

func (r *repo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", append([]string{"-C", r.dir}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func draft(i int) ledger.Draft {
	return ledger.Draft{Kind: ledger.KindRun, Run: fmt.Sprintf("%d-1", i), Workflow: "issue-1",
		Time: time.Date(2026, 3, 1, 0, i, 0, 0, time.UTC), Fields: map[string]any{"selected": "a"}}
}

// append adds n entries through ledger.Append.
func (r *repo) append(from, n int) {
	r.t.Helper()
	for i := from; i < from+n; i++ {
		if _, err := ledger.Append(r.path, draft(i)); err != nil {
			r.t.Fatal(err)
		}
	}
}

// seal moves the active segment into ledger.d as ledger.AppendFile does
// at 8 MiB, with its tree file beside it.
func (r *repo) seal() {
	r.t.Helper()
	data, err := os.ReadFile(r.path)
	if err != nil {
		r.t.Fatal(err)
	}
	first, err := ledger.FirstSeq(data)
	if err != nil {
		r.t.Fatal(err)
	}
	head, err := ledger.HeadOf(data)
	if err != nil {
		r.t.Fatal(err)
	}
	var prev []byte
	segs, err := ledger.Segments(r.path)
	if err != nil {
		r.t.Fatal(err)
	}
	if len(segs) > 0 {
		if prev, err = os.ReadFile(segs[len(segs)-1].TreePath()); err != nil {
			r.t.Fatal(err)
		}
	}
	tree, err := ledger.SegmentTree(prev, data)
	if err != nil {
		r.t.Fatal(err)
	}
	os.MkdirAll(ledger.SegmentDir(r.path), 0o755)
	seg := ledger.Segment{Path: filepath.Join(ledger.SegmentDir(r.path), ledger.SegmentName(first, head.Seq))}
	if err := os.Rename(r.path, seg.Path); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(seg.TreePath(), tree, 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// commit commits the datalake with trailers for its head (or the given
// trailer head).
func (r *repo) commit(msg string, forged *ledger.Head) string {
	r.t.Helper()
	head, err := ledger.TailHead(r.path)
	if err != nil {
		r.t.Fatal(err)
	}
	if forged != nil {
		head = *forged
	}
	r.git("add", "-A", ".")
	r.git("commit", "-q", "--allow-empty", "-m", ledger.WithTrailers(msg, head))
	return r.git("rev-parse", "HEAD")
}

// honest makes a history of many commits with one seal in it.
func honest(t *testing.T, commits int) *repo {
	r := newRepo(t)
	os.WriteFile(filepath.Join(r.dir, "README"), []byte("x\n"), 0o644)
	r.git("add", "README")
	r.git("commit", "-q", "-m", "start")
	n := 1
	for c := range commits {
		r.append(n, 2)
		n += 2
		if c == commits/2 {
			r.seal()
		}
		r.commit(fmt.Sprintf("optr: record run %d", c), nil)
	}
	return r
}

func TestHonestHistoryVerifies(t *testing.T) {
	t.Parallel()
	r := honest(t, 24)
	r.append(100, 1) // a local run not yet committed
	rep, err := Check(t.Context(), r.path)
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	if rep.Commits != 25 || rep.Trailers != 24 || rep.Head.Seq != 48 {
		t.Errorf("report %+v, want 25 commits, 24 trailers, head 48", rep)
	}
	if _, err := ledger.VerifyTree(r.path); err != nil {
		t.Errorf("VerifyTree: %v", err)
	}
	if files := r.git("ls-files", ".optr/ledger.d"); !strings.Contains(files, ".merkle") {
		t.Errorf("no tree file committed beside the sealed segment: %s", files)
	}
}

func TestWitnessCatches(t *testing.T) {
	t.Parallel()
	segDir := func(r *repo) string { return ledger.SegmentDir(r.path) }
	tests := []struct {
		name     string
		attack   func(r *repo) string // returns the commit to be named ("" = the working tree)
		want     string
		verifyOK bool // the chain itself still verifies
	}{
		{"rewritten but rechained", func(r *repo) string {
			// Rewrite the active segment's second entry and re-chain the
			// entries after it.
			entries := rebuild(t, r)
			os.WriteFile(r.path, entries, 0o644)
			return r.commit("rewrite", nil)
		}, "differs: the ledger was rewritten", true},
		{"truncated", func(r *repo) string {
			data, _ := os.ReadFile(r.path)
			lines := strings.SplitAfter(string(data), "\n")
			os.WriteFile(r.path, []byte(strings.Join(lines[:len(lines)-3], "")), 0o644)
			return r.commit("truncate", nil)
		}, "entries were removed", true},
		{"missing segment", func(r *repo) string {
			des, _ := os.ReadDir(segDir(r))
			os.Remove(filepath.Join(segDir(r), des[0].Name()))
			return r.commit("drop a segment", nil)
		}, "is gone", false},
		{"forged trailer", func(r *repo) string {
			r.append(200, 1)
			return r.commit("forge", &ledger.Head{Seq: 17, Hash: strings.Repeat("ab", 32)})
		}, "forged", true},
		{"stale trailer size", func(r *repo) string {
			head, _ := ledger.TailHead(r.path)
			r.append(200, 1)
			return r.commit("stale", &head)
		}, "stale", true},
		{"sealed segment changed in the working tree", func(r *repo) string {
			des, _ := os.ReadDir(segDir(r))
			p := filepath.Join(segDir(r), des[0].Name())
			data, _ := os.ReadFile(p)
			os.WriteFile(p, append(data, data[:10]...), 0o644)
			return worktree
		}, "differs from the committed one", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := honest(t, 8)
			commit := tt.attack(r)
			_, err := Check(t.Context(), r.path)
			var werr *Error
			if !errors.As(err, &werr) {
				t.Fatalf("Check = %v, want a *witness.Error", err)
			}
			if werr.Where != commit || !strings.Contains(werr.Reason, tt.want) {
				t.Errorf("Check named %s: %q; want %s and %q", werr.Where, werr.Reason, commit, tt.want)
			}
			// Some attacks leave a valid chain: only the witness sees them.
			if _, verr := ledger.VerifyFile(r.path); (verr == nil) != tt.verifyOK {
				t.Errorf("VerifyFile = %v; the chain alone should verify: %v", verr, tt.verifyOK)
			}
		})
	}
}

// rebuild returns the active segment re-chained with its second entry changed:
// a valid chain that is not the one that was committed.
func rebuild(t *testing.T, r *repo) []byte {
	t.Helper()
	entries := scan(t, r)
	data, _ := os.ReadFile(r.path)
	first, _ := ledger.FirstSeq(data)
	return rechained(t, entries, int(first)-1, len(entries), func(i int) bool { return i == int(first) })
}

// scan reads the entries of the repository's ledger.
func scan(t *testing.T, r *repo) []ledger.Entry {
	t.Helper()
	var entries []ledger.Entry
	if err := ledger.ScanFile(r.path, func(e ledger.Entry) error { entries = append(entries, e); return nil }); err != nil {
		t.Fatal(err)
	}
	return entries
}

// rechained returns the lines of entries from to total-1 (0-based) chained
// onto the entry before from: each the ledger's entry at that place (a
// new run's past its end), with another selection where changed says.
func rechained(t *testing.T, entries []ledger.Entry, from, total int, changed func(i int) bool) []byte {
	t.Helper()
	var head ledger.Head
	if from > 0 {
		head = entries[from-1].Head()
	}
	var out []byte
	for i := from; i < total; i++ {
		d := draft(500 + i)
		if i < len(entries) {
			e := entries[i]
			d = ledger.Draft{Kind: e.Kind, Run: e.Run, Workflow: e.Workflow, Fields: e.Fields}
			d.Time, _ = time.Parse(time.RFC3339Nano, e.Time)
		}
		if changed(i) {
			d.Fields = map[string]any{"selected": "b"}
		}
		ch, err := ledger.Chain(head, d)
		if err != nil {
			t.Fatal(err)
		}
		line, _ := ch[0].Line()
		out = append(out, line...)
		head = ch[0].Head()
	}
	return out
}

func TestNotAGitClone(t *testing.T) {
	t.Parallel()
	_, err := Check(t.Context(), filepath.Join(t.TempDir(), "ledger.jsonl"))
	if err == nil || !strings.Contains(err.Error(), "not in a git clone") {
		t.Errorf("Check outside git: %v", err)
	}
}
