package cli

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/optr-dev/optr/internal/github/githubtest"
	"github.com/optr-dev/optr/internal/ledger"
	"github.com/optr-dev/optr/internal/progress"
	"github.com/optr-dev/optr/internal/status"
	"github.com/optr-dev/optr/internal/testkit/gittest"
)

// commitLedger commits the working directory's ledger with the
// Optr-Ledger trailers of its head, as commit-back does.
func commitLedger(t *testing.T, path string) {
	t.Helper()
	head, err := ledger.TailHead(path)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile("msg", []byte(ledger.WithTrailers("optr: record a run", head)), 0o644)
	gittest.Sh(t, ".", "[ -d .git ] || git init -q -b optr-ledger .; git add .optr && git commit -q -F msg && rm msg")
}

// publish posts optr's final progress comment for the ledger's head on
// issue 1, as the Action does after a run.
func publish(t *testing.T, s *githubtest.Server, path, run string) {
	t.Helper()
	head, err := ledger.TailHead(path)
	if err != nil {
		t.Fatal(err)
	}
	cp, err := ledger.HeadCheckpoint(path, ledger.Origin(githubtest.DefaultRepo), "")
	if err != nil {
		t.Fatal(err)
	}
	s.AddComment(githubtest.DefaultRepo, 1, githubtest.DefaultLogin, progress.Comment(progress.View{
		RunID: run, Workflow: "issue-1", Status: status.Completed, Selected: "a",
		LedgerHash: head.Hash, LedgerCheckpoint: string(cp),
	}))
}

// TestVerifyWitnessReadsOptrsComments: verify --witness --repo checks the
// heads optr published in its comments (not a comment anyone else posts
// with optr's marker), and so catches a consistent rewrite in a clone
// that never saw the honest history, naming the comment; in Actions the
// workflow's repository is read without --repo.
func TestVerifyWitnessReadsOptrsComments(t *testing.T) {
	path := ledgerWorkspace(t, 6)
	commitLedger(t, path)
	s := githubtest.NewServer(t)
	s.AddIssue(githubtest.DefaultRepo, 1, "t", "b", "alice")
	publish(t, s, path, "1-1")
	for i := range 3 {
		ledger.Append(path, ledger.Draft{Kind: "run", Run: "later-" + string(rune('a'+i)), Time: time.Now()})
	}
	commitLedger(t, path)
	publish(t, s, path, "2-1")
	// A comment with optr's marker by someone else: a head no ledger has.
	s.AddComment(githubtest.DefaultRepo, 1, "mallory", progress.Comment(progress.View{
		RunID: "3-1", Status: status.Completed, LedgerHash: strings.Repeat("f", 64),
	}))
	env := map[string]string{"GITHUB_API_URL": s.URL(), "GITHUB_TOKEN": "ghs_test"}
	v := optrEnv(t, env, "ledger", "verify", "--witness", "--repo", githubtest.DefaultRepo)
	if v.code != 0 || !strings.Contains(v.stdout, "the 2 head(s) optr published") {
		t.Fatalf("verify --witness --repo of the honest ledger: exit %d, %q, %q", v.code, v.stdout, v.stderr)
	}

	// Another clone: the history force-pushed over, re-chained from entry
	// 4 on. It has no memory of the honest heads; the comments do.
	os.RemoveAll(".git")
	os.RemoveAll(".optr")
	ledgerWorkspaceHere(t, path, 3)
	for i := range 6 {
		ledger.Append(path, ledger.Draft{Kind: "run", Run: "forged-" + string(rune('a'+i)), Time: time.Now()})
	}
	commitLedger(t, path)
	if v := optr(t, "ledger", "verify", "--witness"); v.code != 0 {
		t.Fatalf("the rewrite passes the history check alone, or the test proves nothing: exit %d, %q", v.code, v.stderr)
	}
	v = optrEnv(t, env, "ledger", "verify", "--witness", "--repo", githubtest.DefaultRepo)
	if v.code != 1 || !strings.Contains(v.stderr, "issuecomment-") || !strings.Contains(v.stderr, "rewritten after optr published") {
		t.Errorf("verify --witness --repo of the rewrite: exit %d, %q", v.code, v.stderr)
	}
	env["GITHUB_ACTIONS"], env["GITHUB_REPOSITORY"] = "true", githubtest.DefaultRepo
	if v := optrEnv(t, env, "ledger", "verify", "--witness"); v.code != 1 || !strings.Contains(v.stderr, "issuecomment-") {
		t.Errorf("verify --witness in Actions: exit %d, %q", v.code, v.stderr)
	}
}
