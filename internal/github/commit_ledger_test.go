package github

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"path"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/github/githubtest"
	"github.com/optr-dev/optr/internal/ledger"
)

// TestCommitBackProtectedBranch: a 422 from a protection rule or ruleset
// fails at once, naming the rule and the ledger-branch input; it is not
// retried as a race.
func TestCommitBackProtectedBranch(t *testing.T) {
	for name, tc := range map[string]struct {
		f    githubtest.Fault
		rule string
	}{
		"protection rule": {githubtest.ProtectedBranch("main"), "Protected branch update failed for refs/heads/main."},
		"ruleset":         {githubtest.RulesetViolation("Changes must be made through a pull request."), "Repository rule violations found: Changes must be made through a pull request."},
	} {
		f := tc.f
		t.Run(name, func(t *testing.T) {
			s := githubtest.NewServer(t)
			s.FailNext(opUpdateRef, 1, f)
			sl := &sleeper{}
			c := newClient(t, s, sl)
			res, err := c.CommitBack(t.Context(), CommitRequest{Branch: "main", Message: "m", LedgerPath: ledgerPath, Rechain: (&appendLine{line: "x"}).rechain})
			var pe *ProtectedBranchError
			if !errors.As(err, &pe) {
				t.Fatalf("error = %v, want a *ProtectedBranchError", err)
			}
			for _, want := range []string{tc.rule, "`ledger-branch`"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not name %q", err, want)
				}
			}
			if res.Attempts != 1 || res.Conflicts != 0 || len(sl.recorded()) != 0 {
				t.Errorf("result %+v, waits %v: want one attempt, no retry", res, sl.recorded())
			}
		})
	}
}

// TestCommitBackVerifiesPublishedHead: with VerifyPublished the branch's
// ledger must still hold the head of the latest Optr-Ledger trailers; a
// rewritten (re-chained) or truncated ledger stops the commit-back with a
// *RewrittenLedgerError, and nothing is written.
func TestCommitBackVerifiesPublishedHead(t *testing.T) {
	tests := []struct {
		name   string
		tamper func(t *testing.T, s *githubtest.Server) // after two honest runs
		want   string
	}{
		{"honest", func(t *testing.T, s *githubtest.Server) {
			s.Commit(repo, "main", map[string]string{"docs/x.md": "someone else's commit\n"}, "docs")
		}, ""},
		{"rewritten and rechained", func(t *testing.T, s *githubtest.Server) {
			s.Commit(repo, "main", map[string]string{ledgerPath: ledgerOf(t, "r1", "r2-rewritten")}, "tidy the ledger")
		}, "was rewritten"},
		{"truncated", func(t *testing.T, s *githubtest.Server) {
			s.Commit(repo, "main", map[string]string{ledgerPath: ledgerOf(t, "r1")}, "drop the last run")
		}, "truncated"},
		{"forged trailer", func(t *testing.T, s *githubtest.Server) {
			s.Commit(repo, "main", map[string]string{"x": "y"}, "x\n\nOptr-Ledger-Size: 2\nOptr-Ledger-Head: "+strings.Repeat("ab", 32))
		}, "was rewritten"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := githubtest.NewServer(t)
			c := newClient(t, s, &sleeper{})
			for _, run := range []string{"r1", "r2"} {
				if _, err := c.CommitBack(t.Context(), CommitRequest{Branch: "main", Message: "run " + run, LedgerPath: ledgerPath, Rechain: (&appendLine{line: run}).rechain}); err != nil {
					t.Fatal(err)
				}
			}
			tt.tamper(t, s)
			before := s.Head(repo, "main")
			rc := &appendLine{line: "r3"}
			_, err := c.CommitBack(t.Context(), CommitRequest{Branch: "main", Message: "run r3", LedgerPath: ledgerPath, Rechain: rc.rechain, VerifyPublished: true})
			if tt.want == "" {
				if err != nil {
					t.Fatalf("an honest history was refused: %v", err)
				}
				return
			}
			var re *RewrittenLedgerError
			if !errors.As(err, &re) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "optr ledger verify --witness") {
				t.Fatalf("error = %v, want a *RewrittenLedgerError saying %q", err, tt.want)
			}
			if s.Head(repo, "main") != before || len(rc.calls()) != 0 {
				t.Errorf("the branch moved or Rechain was called after the check failed")
			}
		})
	}
}

// nearlyFull is a valid ledger just under the segment limit.
func nearlyFull(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := ledger.WriteSynthetic(&buf, 12000); err != nil {
		t.Fatal(err)
	}
	var out []byte
	sc := bufio.NewScanner(&buf)
	sc.Buffer(make([]byte, 1<<20), ledger.MaxLineSize)
	for sc.Scan() {
		if len(out)+len(sc.Bytes())+1 > ledger.SegmentLimit-64 {
			// Top it up with small entries until the next one passes.
			for {
				next := chainOnto(t, out, "pad")
				if len(next) > ledger.SegmentLimit {
					return out
				}
				out = next
			}
		}
		out = append(append(out, sc.Bytes()...), '\n')
	}
	t.Fatalf("the synthetic ledger is smaller than %d bytes", ledger.SegmentLimit)
	return nil
}

// TestCommitBackSeals: an append that takes the active segment past 8 MiB
// seals it into ledger.d/ by its blob sha (the same blob, not uploaded
// again), and the new entries start a new active segment.
func TestCommitBackSeals(t *testing.T) {
	s := githubtest.NewServer(t)
	full := nearlyFull(t)
	s.Commit(repo, "main", map[string]string{ledgerPath: string(full)}, "full")
	c := newClient(t, s, &sleeper{})
	s.ResetRequests()
	res, err := c.CommitBack(t.Context(), CommitRequest{Branch: "main", Message: "m", LedgerPath: ledgerPath, Rechain: (&appendLine{line: "next"}).rechain})
	if err != nil {
		t.Fatal(err)
	}
	last := headOf(t, string(full))
	segPath := path.Join(".optr/ledger.d", ledger.SegmentName(1, last.Seq))
	if res.Sealed == nil || res.Sealed.Path != segPath || !bytes.Equal(res.Sealed.Content, full) {
		t.Fatalf("Sealed = %v, want %s holding the old active segment (ledger %d bytes, full %d)", res.Sealed != nil, segPath, len(res.Ledger), len(full))
	}
	files := s.Files(repo, "main")
	if files[segPath] != string(full) {
		t.Errorf("the sealed segment on the branch is not the old active segment")
	}
	if diff := cmp.Diff([]string{"next"}, runsOf(t, files[ledgerPath])); diff != "" {
		t.Errorf("the new active segment (-want +got):\n%s", diff)
	}
	if res.Head.Seq != last.Seq+1 {
		t.Errorf("head %+v, want seq %d", res.Head, last.Seq+1)
	}
	wantTree, err := ledger.SegmentTree(nil, full)
	if err != nil {
		t.Fatal(err)
	}
	if got := files[ledger.Segment{Path: segPath}.TreePath()]; got != string(wantTree) {
		t.Errorf("the sealed segment's tree file on the branch is\n%s\nwant\n%s", got, wantTree)
	}
	if diff := cmp.Diff(map[string]int{opGetCommit: 1, opGetContent: 1, opTree: 1, opCommit: 1, opUpdateRef: 1}, s.Counts()); diff != "" {
		t.Errorf("requests (-want +got): the sealed segment reuses its blob\n%s", diff)
	}
	for _, r := range s.Requests() {
		if r.Operation == opTree && r.RequestBytes > 64<<10 {
			t.Errorf("the tree request sent %d bytes: the sealed segment was uploaded again", r.RequestBytes)
		}
	}
	// The published head is now in the sealed segment as far as a later
	// Published check goes, and the trailers' head in the active one.
	_, err = c.CommitBack(t.Context(), CommitRequest{Branch: "main", Message: "m2", LedgerPath: ledgerPath, Rechain: (&appendLine{line: "after"}).rechain,
		VerifyPublished: true, Published: last})
	if err != nil {
		t.Errorf("a commit-back after the seal, checking a head in the sealed segment: %v", err)
	}
}

// TestCommitBackSealsWithTheTreeBefore: sealing a segment that follows
// another commits its tree file, computed from the one before it on the
// branch; without that one the segment is sealed all the same, without a
// tree file.
func TestCommitBackSealsWithTheTreeBefore(t *testing.T) {
	full := nearlyFull(t)
	lines := bytes.SplitAfter(full, []byte("\n"))
	sealed := bytes.Join(lines[:50], nil)
	active := bytes.Join(lines[50:], nil)
	// Top the active segment up again to just under the limit.
	pad := len(chainOnto(t, active, "pad")) - len(active)
	many := make([]string, (ledger.SegmentLimit-len(active))/pad-1)
	for i := range many {
		many[i] = "pad"
	}
	active = chainOnto(t, active, many...)
	for next := chainOnto(t, active, "pad"); len(next) <= ledger.SegmentLimit; next = chainOnto(t, active, "pad") {
		active = next
	}
	firstTree, err := ledger.SegmentTree(nil, sealed)
	if err != nil {
		t.Fatal(err)
	}
	first := ledger.Segment{Path: path.Join(".optr/ledger.d", ledger.SegmentName(1, 50))}
	last := headOf(t, string(active))
	second := ledger.Segment{Path: path.Join(".optr/ledger.d", ledger.SegmentName(51, last.Seq))}
	wantTree, err := ledger.SegmentTree(firstTree, active)
	if err != nil {
		t.Fatal(err)
	}
	for _, withTree := range []bool{true, false} {
		s := githubtest.NewServer(t)
		seed := map[string]string{first.Path: string(sealed), ledgerPath: string(active)}
		msg := "seed"
		if withTree {
			// As an earlier commit-back leaves it: the tree file and its hint.
			seed[first.TreePath()] = string(firstTree)
			msg += "\n\n" + ledger.TreeHintLine(first.TreePath())
		}
		s.Commit(repo, "main", seed, msg)
		c := newClient(t, s, &sleeper{})
		s.ResetRequests()
		res, err := c.CommitBack(t.Context(), CommitRequest{Branch: "main", Message: "m", LedgerPath: ledgerPath, Rechain: (&appendLine{line: "next"}).rechain})
		if err != nil {
			t.Fatal(err)
		}
		// The hint spares the seal a listing of ledger.d, whose answer
		// grows with the ledger; without one the seal lists it once.
		if n, want := ledgerDirListings(s), map[bool]int{true: 0, false: 1}[withTree]; n != want {
			t.Errorf("with the tree before %v: the seal listed ledger.d %d times, want %d", withTree, n, want)
		}
		if res.Sealed == nil || res.Sealed.Path != second.Path {
			t.Fatalf("with the tree before %v: sealed %+v, want %s", withTree, res.Sealed, second.Path)
		}
		got, ok := s.Files(repo, "main")[second.TreePath()]
		if withTree && got != string(wantTree) {
			t.Errorf("the tree file committed beside %s is\n%s\nwant\n%s", second.Path, got, wantTree)
		}
		if !withTree && ok {
			t.Errorf("a tree file was committed without the one before it:\n%s", got)
		}
	}
}

// TestCommitBackKnownLedgerIsNotDownloaded: with Known equal to the
// branch's ledger, the raw ledger is not read again; with a stale Known it
// is, and the commit chains onto the real remote.
func TestCommitBackKnownLedgerIsNotDownloaded(t *testing.T) {
	s := githubtest.NewServer(t)
	seed := ledgerOf(t, "a", "b")
	s.Commit(repo, "main", map[string]string{ledgerPath: seed}, "seed")
	c := newClient(t, s, &sleeper{})
	for _, tc := range []struct {
		name  string
		known string
		raw   bool // the raw file must be read
	}{
		{"known", seed, false},
		{"stale", ledgerOf(t, "a"), true},
	} {
		s.ResetRequests()
		before, _ := s.File(repo, "main", ledgerPath)
		if tc.name == "known" {
			tc.known = before
		}
		res, err := c.CommitBack(t.Context(), CommitRequest{Branch: "main", Message: "m", LedgerPath: ledgerPath, Known: []byte(tc.known), Rechain: (&appendLine{line: tc.name}).rechain})
		if err != nil {
			t.Fatal(err)
		}
		var raw int
		for _, r := range s.Requests() {
			if r.Operation == opGetContent && strings.HasSuffix(r.Path, "ledger.jsonl") {
				raw++
			}
		}
		if (raw > 0) != tc.raw {
			t.Errorf("%s: %d raw reads of the ledger", tc.name, raw)
		}
		if string(res.Ledger) != string(chainOnto(t, []byte(before), tc.name)) {
			t.Errorf("%s: the committed ledger is not the remote one plus this run", tc.name)
		}
	}
}

// TestCommitBackFindsTheLastTreeByItsHint: with sealed segments on the
// branch, a commit-back returns the newest tree file (LastTree) for the
// checkpoint. Without a hint on the tip it lists ledger.d once and leaves
// the Optr-Ledger-Tree hint in its commit; every later commit-back reads
// the file by that hint and lists nothing, so what a run moves does not
// grow with the number of segments.
func TestCommitBackFindsTheLastTreeByItsHint(t *testing.T) {
	t.Parallel()
	var synthetic bytes.Buffer
	if _, err := ledger.WriteSynthetic(&synthetic, 30); err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(synthetic.Bytes(), []byte("\n"))
	sealed, active := bytes.Join(lines[:20], nil), bytes.Join(lines[20:30], nil)
	tree, err := ledger.SegmentTree(nil, sealed)
	if err != nil {
		t.Fatal(err)
	}
	seg := ledger.Segment{Path: path.Join(".optr/ledger.d", ledger.SegmentName(1, 20))}
	s := githubtest.NewServer(t)
	s.Commit(repo, "main", map[string]string{seg.Path: string(sealed), seg.TreePath(): string(tree), ledgerPath: string(active)}, "seed")
	c := newClient(t, s, &sleeper{})
	listings := func() int { return ledgerDirListings(s) }
	for i, wantListings := range []int{1, 0, 0} {
		s.ResetRequests()
		res, err := c.CommitBack(t.Context(), CommitRequest{Branch: "main", Message: "m", LedgerPath: ledgerPath, Rechain: (&appendLine{line: fmt.Sprint("run ", i)}).rechain})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(res.LastTree, tree) {
			t.Fatalf("commit-back %d: LastTree\n%s\nwant the sealed segment's\n%s", i, res.LastTree, tree)
		}
		if n := listings(); n != wantListings {
			t.Errorf("commit-back %d listed ledger.d %d times, want %d", i, n, wantListings)
		}
		if msg := s.Log(repo, "main")[0].Message; ledger.TreeHint(msg) != seg.TreePath() {
			t.Errorf("commit-back %d: the commit's hint is %q, want %s:\n%s", i, ledger.TreeHint(msg), seg.TreePath(), msg)
		}
	}
}

// ledgerDirListings counts the listings of .optr/ledger.d s served.
func ledgerDirListings(s *githubtest.Server) int {
	n := 0
	for _, r := range s.Requests() {
		if r.Method == http.MethodGet && strings.HasSuffix(r.Path, "/contents/.optr/ledger.d") {
			n++
		}
	}
	return n
}

// A hint naming a tree file the tip does not hold is not trusted: the
// missing file is looked for in ledger.d, and a commit-back that finds
// none there carries no hint on, rather than the dangling one.
func TestCommitBackDropsADanglingTreeHint(t *testing.T) {
	t.Parallel()
	var synthetic bytes.Buffer
	if _, err := ledger.WriteSynthetic(&synthetic, 30); err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(synthetic.Bytes(), []byte("\n"))
	seg := ledger.Segment{Path: path.Join(".optr/ledger.d", ledger.SegmentName(1, 20))}
	s := githubtest.NewServer(t)
	s.Commit(repo, "main", map[string]string{seg.Path: string(bytes.Join(lines[:20], nil)), ledgerPath: string(bytes.Join(lines[20:30], nil))},
		"seed\n\n"+ledger.TreeHintLine(seg.TreePath()))
	c := newClient(t, s, &sleeper{})
	s.ResetRequests()
	res, err := c.CommitBack(t.Context(), CommitRequest{Branch: "main", Message: "m", LedgerPath: ledgerPath, Rechain: (&appendLine{line: "run"}).rechain})
	if err != nil {
		t.Fatal(err)
	}
	if res.LastTree != nil {
		t.Errorf("LastTree = %q, want none: the tree file is missing", res.LastTree)
	}
	if n := ledgerDirListings(s); n != 1 {
		t.Errorf("ledger.d listed %d times, want 1 (the hint's file is missing)", n)
	}
	if hint := ledger.TreeHint(s.Log(repo, "main")[0].Message); hint != "" {
		t.Errorf("the commit carries the dangling hint %q on", hint)
	}
}
