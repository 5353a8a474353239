package actionrun

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/action/actiontest"
	"github.com/optr-dev/optr/internal/github/githubtest"
	"github.com/optr-dev/optr/internal/testkit/gittest"
	"github.com/optr-dev/optr/internal/worktree"
)

// The three agents change greet.txt differently; only beta's change
// passes the command check (run in each agent's worktree) and touches no
// protected path. changes: is left to the action's changes input.
const changesConfig = `agents:
  alpha: { provider: command, run: [sh, -c, "cat >/dev/null; echo hola > greet.txt; echo alpha done"] }
  beta:  { provider: command, run: [sh, -c, "cat >/dev/null; echo 'hello, world' > greet.txt; echo world > world.txt; echo beta done"] }
  gamma: { provider: command, run: [sh, -c, "cat >/dev/null; echo 'hello, world' > greet.txt; echo 'on: pull_request' > .github/workflows/ci.yml; echo gamma done"] }
constraints:
  greets-world: { check: command, run: [grep, -qx, "hello, world", greet.txt] }
ledger: { branch: main }
`

// changesJob is a job whose workspace is a checkout of the fake
// repository's main: the same files, committed locally. remote changes
// what main holds on the fake (a base that moved).
func changesJob(t *testing.T, runID string, remote map[string]string, extraConfig string) (*job, *githubtest.Server) {
	t.Helper()
	return changesJobWith(t, runID, remote, changesConfig+extraConfig)
}

// changesJobWith is changesJob with config as the whole config file.
func changesJobWith(t *testing.T, runID string, remote map[string]string, config string) (*job, *githubtest.Server) {
	t.Helper()
	gh := githubtest.NewServer(t)
	gh.SetPermission(repo, "ada", "write")
	gh.AddIssue(repo, 7, "Greet the world", "greet.txt should greet the world.", "ada")
	files := map[string]string{
		"greet.txt":                "hello\n",
		".github/workflows/ci.yml": "on: push\n",
		".github/optr.yml":         config,
	}
	j := newJob(t, gh, runID)
	gittest.Write(t, j.Workspace, files)
	gittest.Sh(t, j.Workspace, "git init -q -b main . && git add -A && git commit -q -m base")
	for p, c := range remote {
		files[p] = c
	}
	gh.Commit(repo, "main", files, "base")
	j.Env["INPUT_CHANGES"] = "pull-request"
	j.Env["RUNNER_TEMP"] = filepath.Join(j.Dir, "runner-temp")
	j.Event("issues", "issues.labeled.json", actiontest.Labeled(7, "optr", "ada"))
	return j, gh
}

// Done means (issue 14): three command agents change the same file
// differently; only the one passing the command check is in the pull
// request; the base branch gets only the ledger commit; the workspace is
// untouched.
func TestOnlyTheSelectedChangeBecomesThePullRequest(t *testing.T) {
	t.Parallel()
	j, gh := changesJob(t, "700", nil, "")
	base := gh.Head(repo, "main")
	outs, err := j.run()
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, j.log.String())
	}
	if outs["status"] != "completed" || outs["selected-agent"] != "beta" {
		t.Fatalf("outputs = %v\n%s", outs, j.log.String())
	}
	pulls := gh.Pulls(repo)
	if len(pulls) != 1 {
		t.Fatalf("%d pull requests, want 1", len(pulls))
	}
	pr := pulls[0]
	if pr.Head != "optr/issue-7/700-1" || pr.Base != "main" || !pr.Draft {
		t.Errorf("pull request %+v", pr)
	}
	if outs["pull-request"] != strconv.Itoa(pr.Number) || !strings.HasSuffix(outs["pull-request-url"], "/pull/"+strconv.Itoa(pr.Number)) {
		t.Errorf("outputs pull-request %q, pull-request-url %q; the pull request is #%d", outs["pull-request"], outs["pull-request-url"], pr.Number)
	}
	for _, want := range []string{"Closes #7", "**beta** | yes", "`run` entry, which records", "selected **beta**"} {
		if !strings.Contains(pr.Body, want) {
			t.Errorf("the pull request's body lacks %q:\n%s", want, pr.Body)
		}
	}

	// The branch: one commit on the base, holding beta's change only.
	log := gh.Log(repo, pr.Head)
	if len(log) < 2 || log[1].SHA != base {
		t.Fatalf("the branch's history: %+v", log)
	}
	wantPR := map[string]string{
		"greet.txt":                "hello, world\n",
		"world.txt":                "world\n",
		".github/workflows/ci.yml": "on: push\n",
		".github/optr.yml":         changesConfig,
		"README.md":                "# octo-repo\n", // the fake's initial commit
	}
	if diff := cmp.Diff(wantPR, gh.Files(repo, pr.Head)); diff != "" {
		t.Errorf("the pull request's files (-want +got):\n%s", diff)
	}

	// The base branch: only the ledger commit, which records the pull request.
	mainLog := gh.Log(repo, "main")
	if len(mainLog) < 2 || mainLog[1].SHA != base || outs["ledger-commit"] != mainLog[0].SHA {
		t.Fatalf("main's history: %+v (ledger-commit %s)", mainLog, outs["ledger-commit"])
	}
	if got, _ := gh.File(repo, "main", "greet.txt"); got != "hello\n" {
		t.Errorf("main's greet.txt = %q", got)
	}
	es := committedLedger(t, gh, "main")
	run := es[len(es)-1]
	if run.Kind != "run" || run.Fields["pull_request"] == nil || run.Fields["pull_request"].(interface{ String() string }).String() != strconv.Itoa(pr.Number) {
		t.Fatalf("the run entry's pull_request = %v, want %d", run.Fields["pull_request"], pr.Number)
	}
	for _, res := range run.Fields["results"].([]any) {
		m := res.(map[string]any)
		if sha, _ := m["patch_sha256"].(string); len(sha) != 64 {
			t.Errorf("result %v: patch_sha256 %v", m["agent"], m["patch_sha256"])
		}
	}
	patch, ok := gh.File(repo, "main", ".optr/workflows/issue-7/runs/700-1/agent-outputs/beta.patch")
	if !ok || !strings.Contains(patch, "+hello, world") {
		t.Errorf("beta's patch is not committed with the run: %q", patch)
	}

	// The progress comment names the pull request (a link when its URL is
	// https, as on GitHub; the fake serves http).
	linked := false
	for _, c := range gh.Comments(repo, 7) {
		if strings.Contains(c.Body, "<!-- optr:run=700-1 -->") && strings.Contains(c.Body, "pull request #"+outs["pull-request"]) {
			linked = true
		}
	}
	if !linked {
		t.Errorf("no progress comment names pull request #%s", outs["pull-request"])
	}

	// The workspace: untouched but for the datalake; no worktree is left.
	if got := gittest.Sh(t, j.Workspace, "git status --porcelain; cat greet.txt; git worktree list | wc -l"); got != "?? .optr/\nhello\n1" {
		t.Errorf("the workspace after the run:\n%s", got)
	}
	if left, _ := os.ReadDir(filepath.Join(j.Env["RUNNER_TEMP"], "optr-worktrees")); len(left) != 0 {
		t.Errorf("left in the worktree root: %v", left)
	}
}

// The base moved under the run: main on GitHub changed greet.txt after the
// checkout. π*'s patch no longer applies there: the run fails with the
// reason, nothing is pushed (no branch, no pull request), and the run is
// still recorded.
func TestMovedBaseOpensNoPullRequest(t *testing.T) {
	t.Parallel()
	j, gh := changesJob(t, "701", map[string]string{"greet.txt": "hi there\n"}, "")
	base := gh.Head(repo, "main")
	outs, err := j.run()
	var failed *FailedError
	if !errors.As(err, &failed) {
		t.Fatalf("Run = %v, want a failed run\n%s", err, j.log.String())
	}
	if outs["status"] != "failed" || outs["selected-agent"] != "beta" || outs["pull-request"] != "" {
		t.Errorf("outputs = %v", outs)
	}
	if !strings.Contains(err.Error(), "main moved to") || !strings.Contains(err.Error(), worktree.ErrNotApplicable.Error()) {
		t.Errorf("the reason: %v", err)
	}
	if n := len(gh.Pulls(repo)); n != 0 {
		t.Errorf("%d pull requests opened", n)
	}
	if h := gh.Head(repo, "optr/issue-7/701-1"); h != "" {
		t.Errorf("the change's branch was pushed: %s", h)
	}
	mainLog := gh.Log(repo, "main")
	if len(mainLog) < 2 || mainLog[1].SHA != base {
		t.Fatalf("main's history: %+v", mainLog)
	}
	es := committedLedger(t, gh, "main")
	if run := es[len(es)-1]; run.Kind != "run" || run.Fields["status"] != "failed" || run.Fields["pull_request"] != nil {
		t.Errorf("the run entry: %v", run.Fields)
	}
}

// A run paused for approval pushes nothing; the pull request is opened
// when a writer chooses Proceed, by a later job whose checkout lacks the
// run's files (the patch comes back from the ledger branch), and the run
// entry recorded then names it.
func TestPausedRunOpensThePullRequestAfterTheChoice(t *testing.T) {
	t.Parallel()
	first, gh := changesJob(t, "800", nil, "checkpoints: { before-commit: true }\n")
	outs, err := first.run()
	if err != nil || outs["status"] != "paused" || outs["pull-request"] != "" {
		t.Fatalf("first run: %v %v\n%s", err, outs, first.log.String())
	}
	if n := len(gh.Pulls(repo)); n != 0 {
		t.Fatalf("%d pull requests opened before the choice", n)
	}
	second := newJob(t, gh, "801")
	second.File(".github/optr.yml", changesConfig+"checkpoints: { before-commit: true }\n")
	second.Env["INPUT_CHANGES"] = "pull-request"
	second.Event("issue_comment", "issue_comment.created.json", actiontest.Commented(7, "/optr choose 1", "ada", "User"))
	outs, err = second.run()
	if err != nil || outs["status"] != "completed" || outs["run-id"] != "800-1" {
		t.Fatalf("resume: %v %v\n%s", err, outs, second.log.String())
	}
	pulls := gh.Pulls(repo)
	if len(pulls) != 1 || pulls[0].Head != "optr/issue-7/800-1" || outs["pull-request"] != strconv.Itoa(pulls[0].Number) {
		t.Fatalf("pull requests %+v, outputs %v", pulls, outs)
	}
	if got, _ := gh.File(repo, pulls[0].Head, "greet.txt"); got != "hello, world\n" {
		t.Errorf("the pull request's greet.txt = %q", got)
	}
	es := committedLedger(t, gh, "main")
	if got := kinds(es); got != "checkpoint,decision,run" {
		t.Fatalf("ledger kinds %s", got)
	}
	if pr := es[2].Fields["pull_request"]; pr == nil || pr.(interface{ String() string }).String() != outs["pull-request"] {
		t.Errorf("the run entry's pull_request = %v", pr)
	}
}

// An agent's change to optr's own files is never admissible in the Action
// either, wherever the datalake input puts the datalake and whatever
// changes.protect says (set here, so no default glob applies): of an agent
// that loosens the config, one that writes into the datalake and an honest
// one, only the honest change becomes the pull request.
func TestPullRequestNeverTouchesOptrsOwnFiles(t *testing.T) {
	t.Parallel()
	j, gh := changesJobWith(t, "701", nil, `agents:
  loosener: { provider: command, run: [sh, -c, "cat >/dev/null; echo 'hello, world' > greet.txt; echo 'sandbox: { mode: off }' >> .github/optr.yml; echo done"] }
  planter:  { provider: command, run: [sh, -c, "cat >/dev/null; echo 'hello, world' > greet.txt; mkdir -p ops/lake && echo forged > ops/lake/ledger.jsonl; echo done"] }
  honest:   { provider: command, run: [sh, -c, "cat >/dev/null; echo 'hello, world' > greet.txt; echo done"] }
constraints:
  greets-world: { check: command, run: [grep, -qx, "hello, world", greet.txt] }
ledger: { branch: main }
changes: { protect: ["secrets/**"] }
`)
	j.Env["INPUT_DATALAKE"] = "ops/lake"
	outs, err := j.run()
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, j.log.String())
	}
	if outs["status"] != "completed" || outs["selected-agent"] != "honest" {
		t.Fatalf("outputs = %v\n%s", outs, j.log.String())
	}
	pulls := gh.Pulls(repo)
	if len(pulls) != 1 {
		t.Fatalf("%d pull requests, want 1", len(pulls))
	}
	if got, _ := gh.File(repo, pulls[0].Head, "greet.txt"); got != "hello, world\n" {
		t.Errorf("the pull request's greet.txt = %q", got)
	}
	// The run is recorded in the datalake the input names; its score table
	// says why each refused change was not admissible.
	if es := committedLedgerAt(t, gh, "main", "ops/lake/ledger.jsonl"); es[len(es)-1].Kind != "run" {
		t.Fatalf("the last committed entry is a %s entry", es[len(es)-1].Kind)
	}
	selection, _ := gh.File(repo, "main", "ops/lake/workflows/issue-7/runs/701-1/optr-selection.json")
	for agent, want := range map[string]string{
		"loosener": "touches optr's config file: .github/optr.yml",
		"planter":  "touches optr's ledger: ops/lake/ledger.jsonl",
	} {
		if !strings.Contains(selection, want) {
			t.Errorf("the committed score table does not say why %s's change was refused (%q):\n%s", agent, want, selection)
		}
	}
}
