package commitback

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/gitdata/gitdatatest"
	"github.com/optr-dev/optr/internal/ledger"
)

func TestCommitHappyPath(t *testing.T) {
	forEachRemote(t, false, func(t *testing.T, r remote) {
		seed := ledgerOf(t, "1")
		before := r.Commit("main", map[string]string{ledgerPath: seed, "docs/keep.md": "keep\n"}, "before")
		r.ResetCounts()
		res, err := committer(r).Commit(t.Context(), Request{
			Branch:     "main",
			Message:    "optr: run 42-1",
			LedgerPath: ledgerPath,
			Drafts:     draftsFor("2"),
			Files: map[string][]byte{
				".optr/workflows/w/runs/42-1/result.md":            []byte("# result\n"),
				".optr/workflows/w/runs/42-1/agent-outputs/a.json": []byte(`{"agent":"a"}`),
			},
			AuthorName:  "optr",
			AuthorEmail: "optr@example.com",
		})
		if err != nil {
			t.Fatal(err)
		}
		wantLedger := ledgerOf(t, "1", "2")
		if len(res.Entries) != 1 || res.Entries[0].Head() != headOf(t, wantLedger) {
			t.Errorf("Entries = %+v, want the run's entry as seq 2", res.Entries)
		}
		res.Entries = nil
		if diff := cmp.Diff(Result{
			CommitSHA: r.Head("main"), Branch: "main", Ledger: []byte(wantLedger), Head: headOf(t, wantLedger), Previous: headOf(t, seed),
			Attempts: 1, Requests: 5,
		}, res); diff != "" {
			t.Errorf("result (-want +got):\n%s", diff)
		}
		wantFiles := map[string]string{
			"README.md":                             "# octo-repo\n",
			"docs/keep.md":                          "keep\n",
			ledgerPath:                              wantLedger,
			".optr/workflows/w/runs/42-1/result.md": "# result\n",
			".optr/workflows/w/runs/42-1/agent-outputs/a.json": `{"agent":"a"}`,
		}
		if diff := cmp.Diff(wantFiles, r.Files("main")); diff != "" {
			t.Errorf("files after the commit (-want +got): the tree on the tip's must keep the others\n%s", diff)
		}
		log := r.Log("main")
		if log[0].Message != ledger.WithTrailers("optr: run 42-1", headOf(t, wantLedger)) || log[0].Author != "optr" || log[0].Parent != before {
			t.Errorf("commit = %+v, want message, author optr and parent %s", log[0], before)
		}
		if !res.Moved() {
			t.Error("Moved() = false for a commit-back that added an entry")
		}
	})
}

func TestCommitDefaultBranchAndNoLedger(t *testing.T) {
	forEachRemote(t, false, func(t *testing.T, r remote) {
		res, err := committer(r).Commit(t.Context(), Request{Message: "m", LedgerPath: ledgerPath, Drafts: draftsFor("one")})
		if err != nil {
			t.Fatal(err)
		}
		if res.Branch != "main" || res.Requests != 6 || res.Previous != (ledger.Head{}) {
			t.Errorf("result = %+v, want branch main in 6 requests (5 + the default branch), from no ledger", res)
		}
		if _, err := committer(r).Commit(t.Context(), Request{Message: "m", LedgerPath: ledgerPath, Drafts: draftsFor("two")}); err != nil {
			t.Fatal(err)
		}
		if got, _ := r.File("main", ledgerPath); got != ledgerOf(t, "one", "two") {
			t.Errorf("ledger = %q, want both runs, chained from an absent ledger", got)
		}
	})
}

func TestCommitCreatesMissingBranch(t *testing.T) {
	forEachRemote(t, false, func(t *testing.T, r remote) {
		main := r.Head("main")
		res, err := committer(r).Commit(t.Context(), Request{Branch: "optr/ledger", Message: "m", LedgerPath: ledgerPath, Drafts: draftsFor("x")})
		if err != nil {
			t.Fatal(err)
		}
		if !res.BranchCreated || res.CommitSHA != r.Head("optr/ledger") {
			t.Errorf("result = %+v, want the branch created at the commit", res)
		}
		if r.Head("main") != main {
			t.Error("the default branch moved")
		}
		if diff := cmp.Diff(map[string]string{ledgerPath: ledgerOf(t, "x")}, r.Files("optr/ledger")); diff != "" {
			t.Errorf("files on the new branch (-want +got): an orphan holding only the datalake\n%s", diff)
		}
		if log := r.Log("optr/ledger"); len(log) != 1 || log[0].Parent != "" {
			t.Errorf("history of the new branch = %+v, want one root commit", log)
		}
		if r.Count("CreateRef") != 1 || r.Count("UpdateRef") != 0 {
			t.Errorf("CreateRef %d, UpdateRef %d; want one CreateRef and no UpdateRef", r.Count("CreateRef"), r.Count("UpdateRef"))
		}
	})
}

func TestCommitEmptyRepository(t *testing.T) {
	forEachRemote(t, true, func(t *testing.T, r remote) {
		res, err := committer(r).Commit(t.Context(), Request{
			Branch: "main", Message: "optr: run 1", LedgerPath: ledgerPath, Drafts: draftsFor("first"),
			Files: map[string][]byte{"out/a.txt": []byte("a")},
		})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(map[string]string{ledgerPath: ledgerOf(t, "first"), "out/a.txt": "a"}, r.Files("main")); diff != "" {
			t.Errorf("files (-want +got):\n%s", diff)
		}
		var messages []string
		for _, l := range r.Log("main") {
			messages = append(messages, l.Message)
		}
		if diff := cmp.Diff([]string{ledger.WithTrailers("optr: run 1", res.Head), ledgerStartMessage}, messages); diff != "" {
			t.Errorf("history (-want +got):\n%s", diff)
		}
		if res.Conflicts != 0 || r.Count("CreateFile") != 1 {
			t.Errorf("result = %+v, %d CreateFile; want no conflict and one start", res, r.Count("CreateFile"))
		}
	})
}

func TestCommitEmptyRepositoryOtherBranch(t *testing.T) {
	forEachRemote(t, true, func(t *testing.T, r remote) {
		res, err := committer(r).Commit(t.Context(), Request{Branch: "ledger", Message: "m", LedgerPath: ledgerPath, Drafts: draftsFor("x")})
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := r.File("ledger", ledgerPath); got != ledgerOf(t, "x") || !res.BranchCreated {
			t.Errorf("ledger on branch = %q, result %+v", got, res)
		}
	})
}

// TestCommitConflict moves the branch between the commit-back's read and
// its update: the update is refused and the next round re-chains on the
// new remote ledger, in as many requests as the first.
func TestCommitConflict(t *testing.T) {
	forEachRemote(t, false, func(t *testing.T, r remote) {
		r.Commit("main", map[string]string{ledgerPath: ledgerOf(t, "a")}, "a")
		r.BeforeNextUpdate(func() {
			r.Commit("main", map[string]string{ledgerPath: ledgerOf(t, "a", "b"), "other.txt": "from b"}, "b")
		})
		c, waits := committer(r), 0
		c.Backoff = func(int, time.Duration) time.Duration { waits++; return 0 }
		res, err := c.Commit(t.Context(), Request{Branch: "main", Message: "c", LedgerPath: ledgerPath, Drafts: draftsFor("c")})
		if err != nil {
			t.Fatal(err)
		}
		if res.Attempts != 2 || res.Conflicts != 1 || string(res.Ledger) != ledgerOf(t, "a", "b", "c") || waits != 1 {
			t.Errorf("result = %+v, %d waits; want 2 attempts, 1 conflict, 1 backoff", res, waits)
		}
		if res.Previous != headOf(t, ledgerOf(t, "a", "b")) || res.Entries[0].Seq != 3 {
			t.Errorf("Previous %+v, entry seq %d: want the other writer's head, and the entry after it", res.Previous, res.Entries[0].Seq)
		}
		if res.Requests != 10 || r.Count("UpdateRef") != 2 {
			t.Errorf("%d requests, %d updates; want 5 a round, one update lost", res.Requests, r.Count("UpdateRef"))
		}
		if got, _ := r.File("main", "other.txt"); got != "from b" {
			t.Error("the other writer's file was lost")
		}
	})
}

// With Known, a round after a lost one reads the ledger at once: the
// branch moved, so the listing that could spare the download would only
// cost a request more.
func TestCommitKnownAfterALostRound(t *testing.T) {
	forEachRemote(t, false, func(t *testing.T, r remote) {
		seed := ledgerOf(t, "a")
		r.Commit("main", map[string]string{ledgerPath: seed}, "a")
		r.BeforeNextUpdate(func() { r.Commit("main", map[string]string{ledgerPath: ledgerOf(t, "a", "b")}, "b") })
		r.ResetCounts()
		res, err := committer(r).Commit(t.Context(), Request{Branch: "main", Message: "c", LedgerPath: ledgerPath, Known: []byte(seed), Drafts: draftsFor("c")})
		if err != nil {
			t.Fatal(err)
		}
		if res.Requests != 10 || r.Listings(".optr") != 1 || r.Reads(ledgerPath) != 1 {
			t.Errorf("%d requests, %d listings, %d reads of the ledger; want 5 a round: the listing in the first, the ledger read in the second",
				res.Requests, r.Listings(".optr"), r.Reads(ledgerPath))
		}
		if string(res.Ledger) != ledgerOf(t, "a", "b", "c") {
			t.Errorf("ledger %q", res.Ledger)
		}
	})
}

func TestCommitGivesUp(t *testing.T) {
	forEachRemote(t, false, func(t *testing.T, r remote) {
		for i := range 3 {
			r.BeforeNextUpdate(func() { r.Commit("main", map[string]string{"x": fmt.Sprint(i)}, "race") })
		}
		c := committer(r)
		c.Attempts = 3
		res, err := c.Commit(t.Context(), Request{Branch: "main", Message: "m", LedgerPath: ledgerPath, Drafts: draftsFor("x")})
		if err == nil || !strings.Contains(err.Error(), "re-run") {
			t.Errorf("error = %v, want a give-up that says to re-run", err)
		}
		if res.Attempts != 3 || res.Conflicts != 3 {
			t.Errorf("result = %+v, want 3 attempts, 3 conflicts", res)
		}
	})
}

func TestCommitNothingChanged(t *testing.T) {
	forEachRemote(t, false, func(t *testing.T, r remote) {
		tip := r.Commit("main", map[string]string{ledgerPath: ledgerOf(t, "a")}, "a")
		res, err := committer(r).Commit(t.Context(), Request{Branch: "main", Message: "m", LedgerPath: ledgerPath})
		if err != nil {
			t.Fatal(err)
		}
		if res.CommitSHA != tip || r.Head("main") != tip || r.Count("CreateCommit") != 0 || res.Moved() {
			t.Errorf("result %+v, head %s: want the tip %s and no new commit", res, r.Head("main"), tip)
		}
	})
}

// A run already on the branch (a job that committed, then was re-run)
// is not recorded again: its entry keeps its place.
func TestCommitRunAlreadyRecorded(t *testing.T) {
	forEachRemote(t, false, func(t *testing.T, r remote) {
		tip := r.Commit("main", map[string]string{ledgerPath: ledgerOf(t, "a", "x")}, "x")
		res, err := committer(r).Commit(t.Context(), Request{Branch: "main", Message: "m", LedgerPath: ledgerPath, Drafts: draftsFor("x")})
		if err != nil {
			t.Fatal(err)
		}
		if res.CommitSHA != tip || res.Entries[0].Seq != 2 || res.Moved() {
			t.Errorf("result %+v: want the tip, the entry at seq 2, nothing moved", res)
		}
	})
}

func TestCommitLedgerIsADirectory(t *testing.T) {
	forEachRemote(t, false, func(t *testing.T, r remote) {
		r.Commit("main", map[string]string{".optr/ledger.jsonl/x": "oops"}, "dir")
		res, err := committer(r).Commit(t.Context(), Request{Branch: "main", Message: "m", LedgerPath: ledgerPath, Drafts: draftsFor("x")})
		if err == nil || !strings.Contains(err.Error(), "is a directory") {
			t.Errorf("error = %v, want one saying the ledger path is a directory", err)
		}
		if res.Requests != 2 {
			t.Errorf("Requests = %d, want 2 counted on failure too", res.Requests)
		}
	})
}

// A refusal by a protection rule or ruleset fails at once, naming the rule
// and the ledger-branch input; it is not retried as a race.
func TestCommitProtectedBranch(t *testing.T) {
	forEachRemote(t, false, func(t *testing.T, r remote) {
		rule := r.Refuse("main")
		c, waits := committer(r), 0
		c.Backoff = func(int, time.Duration) time.Duration { waits++; return 0 }
		res, err := c.Commit(t.Context(), Request{Branch: "main", Message: "m", LedgerPath: ledgerPath, Drafts: draftsFor("x")})
		var pe *ProtectedBranchError
		if !errors.As(err, &pe) {
			t.Fatalf("error = %v, want a *ProtectedBranchError", err)
		}
		for _, want := range []string{rule, "`ledger-branch`"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not name %q", err, want)
			}
		}
		if res.Attempts != 1 || res.Conflicts != 0 || waits != 0 {
			t.Errorf("result %+v, %d waits: want one attempt, no retry", res, waits)
		}
	})
}

func TestCommitRejects(t *testing.T) {
	t.Parallel()
	bad := draftFor("a")
	bad.Fields = map[string]any{"seq": 7}
	tests := []struct {
		name string
		req  Request
		want string
	}{
		{"no message", Request{LedgerPath: ledgerPath}, "message"},
		{"absolute ledger", Request{Message: "m", LedgerPath: "/etc/ledger"}, "ledger path"},
		{"escaping ledger", Request{Message: "m", LedgerPath: "../ledger"}, "ledger path"},
		{"into .git", Request{Message: "m", LedgerPath: ledgerPath, Files: map[string][]byte{".git/config": nil}}, "file path"},
		{"ledger twice", Request{Message: "m", LedgerPath: ledgerPath, Files: map[string][]byte{ledgerPath: nil}}, "ledger"},
		{"the ledger as a local file", Request{Message: "m", LedgerPath: ledgerPath, Paths: map[string]string{ledgerPath: "/tmp/l"}}, ledgerPath + " is the ledger; it cannot also be one of the files"},
		{"a path as content and as a local file", Request{Message: "m", LedgerPath: ledgerPath, Files: map[string][]byte{"x/a.json": nil}, Paths: map[string]string{"x/a.json": "/tmp/a.json"}}, "x/a.json is given both as content and as a local file"},
		{"half an author", Request{Message: "m", LedgerPath: ledgerPath, AuthorName: "x"}, "author"},
		{"a bad draft", Request{Message: "m", LedgerPath: ledgerPath, Drafts: []ledger.Draft{bad}}, `field "seq" is a common ledger member`},
	}
	r := gitdatatest.New()
	for _, tc := range tests {
		_, err := Commit(t.Context(), r, tc.req)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error = %v, want one about %q", tc.name, err, tc.want)
		}
	}
	if n := len(r.Calls()); n != 0 {
		t.Errorf("%d calls for invalid commit-backs, want 0", n)
	}
	// A remote that records the run with other content: re-chaining
	// refuses, and nothing is written.
	r.Commit("main", map[string]string{ledgerPath: ledgerOf(t, "x")}, "x")
	_, err := Commit(t.Context(), r, Request{Branch: "main", Message: "m", LedgerPath: ledgerPath, Drafts: draftsOf(ledger.Draft{Kind: ledger.KindRun, Run: "x", Workflow: "w", Time: entryTime, Fields: map[string]any{"selected": "b"}})})
	if err == nil || !strings.Contains(err.Error(), "already recorded") {
		t.Errorf("error = %v, want re-chaining's refusal passed on", err)
	}
	if r.Counts()["CreateTree"] != 0 {
		t.Error("a tree was created after re-chaining failed")
	}
}
