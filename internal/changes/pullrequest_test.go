package changes

import (
	"errors"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/check"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/github"
	"github.com/optr-dev/optr/internal/github/githubtest"
	"github.com/optr-dev/optr/internal/testkit/gittest"
	"github.com/optr-dev/optr/internal/worktree"
)

const repoName = "octo-org/app"

var baseFiles = map[string]string{
	"greet.txt":                "hello\n",
	"bye.txt":                  "bye\n",
	".github/workflows/ci.yml": "on: push\n",
}

// setup returns a local clone-alike of the fake repository: the same
// files, committed locally and on the fake's main.
func setup(t *testing.T) (workspace string, s *githubtest.Server, gh *github.Client) {
	t.Helper()
	workspace = gittest.Repo(t, baseFiles)
	s = githubtest.NewServer(t, githubtest.WithRepo(repoName, "main"))
	s.Commit(repoName, "main", baseFiles, "base")
	gh, err := github.New(t.Context(), github.Options{APIURL: s.URL(), Token: "ghs_test", Repository: repoName, HTTPClient: s.Client()})
	if err != nil {
		t.Fatal(err)
	}
	return workspace, s, gh
}

// writes lists the operations of the requests that changed something.
func writes(s *githubtest.Server) []string {
	var out []string
	for _, r := range s.Requests() {
		if r.Method != http.MethodGet {
			out = append(out, r.Operation)
		}
	}
	return out
}

// Three command agents change the same file differently in their own
// worktrees; the command check runs in each worktree; only the one that
// passes it and touches no protected path is admissible, and only its
// change reaches the pull request. The base branch and the workspace are
// untouched.
func TestOnlyTheSelectedChangeIsInThePullRequest(t *testing.T) {
	t.Parallel()
	workspace, s, gh := setup(t)
	ctx := t.Context()
	run, err := worktree.Start(ctx, worktree.Options{Workspace: workspace, Root: filepath.Join(t.TempDir(), "wt"), RunID: "run-1"})
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close(ctx)

	agents := map[string]string{
		"alpha": `echo hola > greet.txt`,
		"beta":  `echo 'hello, world' > greet.txt && echo world > world.txt && rm bye.txt`,
		"gamma": `echo 'hello, world' > greet.txt && echo 'on: pull_request' > .github/workflows/ci.yml`,
	}
	checker, err := check.New("greets-world", config.Constraint{Check: config.CheckCommand, Run: []string{"grep", "-qx", "hello, world", "greet.txt"}},
		check.Options{Dir: workspace})
	if err != nil {
		t.Fatal(err)
	}
	constraints := []check.Constraint{{Name: "greets-world", Hard: true, Checker: checker}}
	policy := worktree.Policy{Protect: []string{".github/workflows/**", ".optr/**"}, MaxFiles: 50}

	admissible := map[string]worktree.Change{}
	reasons := map[string]string{}
	for _, name := range []string{"alpha", "beta", "gamma"} {
		tree, err := run.Add(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		gittest.Sh(t, tree.Dir(), agents[name])
		ch, err := tree.Capture(ctx, worktree.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		ev := check.Evaluate(check.WithDir(ctx, tree.Dir()), constraints, "done")
		v := policy.Admit(ch)
		switch {
		case !v.Admissible:
			reasons[name] = v.Reason
		case !ev.Admissible:
			reasons[name] = ev.Verdicts[0].Reason
		default:
			admissible[name] = ch
		}
	}
	wantReasons := map[string]string{
		"alpha": "command grep exited with status 1",
		"gamma": `protected by ".github/workflows/**" (changes.protect): the change touches .github/workflows/ci.yml`,
	}
	if diff := cmp.Diff(wantReasons, reasons); diff != "" {
		t.Fatalf("inadmissible (-want +got):\n%s", diff)
	}
	best, ok := admissible["beta"]
	if !ok || len(admissible) != 1 {
		t.Fatalf("admissible: %v", admissible)
	}

	baseTip := s.Head(repoName, "main")
	s.ResetRequests()
	opened, err := OpenPullRequest(ctx, gh, best.Patch, PullRequest{
		Branch: "optr/issue-7/run-1", Message: "optr: issue-7", Title: "optr: greet the world",
		Body: "| agent | score |\n\nCloses #7", Draft: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	wantWrites := []string{
		"POST /repos/{owner}/{repo}/git/blobs", "POST /repos/{owner}/{repo}/git/blobs",
		"POST /repos/{owner}/{repo}/git/trees", "POST /repos/{owner}/{repo}/git/commits",
		"POST /repos/{owner}/{repo}/git/refs", "POST /repos/{owner}/{repo}/pulls",
	}
	if diff := cmp.Diff(wantWrites, writes(s)); diff != "" {
		t.Errorf("requests that wrote (-want +got):\n%s", diff)
	}
	wantFiles := map[string]string{"greet.txt": "hello, world\n", "world.txt": "world\n", ".github/workflows/ci.yml": "on: push\n"}
	if diff := cmp.Diff(wantFiles, s.Files(repoName, "optr/issue-7/run-1")); diff != "" {
		t.Errorf("the pull request's branch (-want +got):\n%s", diff)
	}
	log := s.Log(repoName, "optr/issue-7/run-1")
	if log[0].SHA != opened.Commit || log[1].SHA != baseTip || len(log) != 2 {
		t.Errorf("branch history %+v, want one commit on %s", log, baseTip)
	}
	if s.Head(repoName, "main") != baseTip {
		t.Error("the base branch moved")
	}
	want := []githubtest.PullRequest{{Number: opened.Number, Title: "optr: greet the world", Body: "| agent | score |\n\nCloses #7",
		Head: "optr/issue-7/run-1", Base: "main", Draft: true, Login: githubtest.DefaultLogin}}
	if diff := cmp.Diff(want, s.Pulls(repoName)); diff != "" {
		t.Errorf("pull requests (-want +got):\n%s", diff)
	}
	if opened.URL == "" || opened.Base != "main" || opened.BaseCommit != baseTip {
		t.Errorf("opened %+v", opened)
	}
	if st := gittest.Sh(t, workspace, "git status --porcelain --untracked-files=all; cat greet.txt"); st != "hello" {
		t.Errorf("the workspace changed: %q", st)
	}
}

// When the base moved, the change is carried onto the new tip if it still
// applies, and refused without a single write if it does not.
func TestBaseMoved(t *testing.T) {
	t.Parallel()
	workspace, s, gh := setup(t)
	ctx := t.Context()
	run, err := worktree.Start(ctx, worktree.Options{Workspace: workspace, Root: filepath.Join(t.TempDir(), "wt"), RunID: "run-1"})
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close(ctx)
	tree, err := run.Add(ctx, "agent")
	if err != nil {
		t.Fatal(err)
	}
	gittest.Sh(t, tree.Dir(), "echo 'hello, world' > greet.txt")
	ch, err := tree.Capture(ctx, worktree.Limits{})
	if err != nil {
		t.Fatal(err)
	}

	moved := s.Commit(repoName, "main", map[string]string{"other.txt": "other\n"}, "elsewhere")
	opened, err := OpenPullRequest(ctx, gh, ch.Patch, PullRequest{Branch: "optr/w/run-1", Message: "m", Title: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if opened.BaseCommit != moved {
		t.Errorf("the change went on %s, want the new tip %s", opened.BaseCommit, moved)
	}
	if got, _ := s.File(repoName, "optr/w/run-1", "greet.txt"); got != "hello, world\n" {
		t.Errorf("greet.txt = %q", got)
	}
	if got, _ := s.File(repoName, "optr/w/run-1", "other.txt"); got != "other\n" {
		t.Errorf("other.txt = %q: the change was not put on the new tip", got)
	}

	s.Commit(repoName, "main", map[string]string{"greet.txt": "good morning\n"}, "conflict")
	s.ResetRequests()
	_, err = OpenPullRequest(ctx, gh, ch.Patch, PullRequest{Branch: "optr/w/run-2", Message: "m", Title: "t"})
	if !errors.Is(err, ErrNotApplicable) {
		t.Fatalf("OpenPullRequest = %v, want ErrNotApplicable", err)
	}
	if w := writes(s); len(w) != 0 {
		t.Errorf("a patch that does not apply still wrote: %v", w)
	}
	if s.Head(repoName, "optr/w/run-2") != "" {
		t.Error("the branch was created")
	}
}

func TestBranchName(t *testing.T) {
	t.Parallel()
	if b, err := BranchName("issue-7", "123-1"); err != nil || b != "optr/issue-7/123-1" {
		t.Errorf("BranchName = %q, %v", b, err)
	}
	for _, bad := range [][2]string{{"../x", "1"}, {"w", ".."}, {"W", "1"}, {"w", ""}} {
		if _, err := BranchName(bad[0], bad[1]); err == nil {
			t.Errorf("BranchName(%q, %q) succeeded", bad[0], bad[1])
		}
	}
}
