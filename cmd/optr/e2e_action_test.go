package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/optr-dev/optr/internal/action/actiontest"
	"github.com/optr-dev/optr/internal/github/githubtest"
	"github.com/optr-dev/optr/internal/ledger"
)

func TestActionDispatchRunsAndCommits(t *testing.T) {
	t.Parallel()
	gh := githubtest.NewServer(t)
	r := newRunner(t, gh, "1001")
	r.demo("fail")
	r.Event("workflow_dispatch", "workflow_dispatch.json", func(p map[string]any) {
		p["inputs"] = map[string]any{"workflow": "release-notes", "intent": "Write release notes", "constraints": ""}
	})
	res := r.run()
	if res.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	want := map[string]string{"status": "completed", "run-id": "1001-1", "selected-agent": "good",
		"result-file": ".optr/workflows/release-notes/runs/1001-1/result.md"}
	for k, v := range want {
		if res.outputs[k] != v {
			t.Errorf("output %s = %q, want %q", k, res.outputs[k], v)
		}
	}
	lines := ledgerLines(t, gh)
	if len(lines) != 1 || lines[0]["hash"] != res.outputs["ledger-hash"] || lines[0]["selected"] != "good" {
		t.Fatalf("committed ledger = %v, outputs %v", lines, res.outputs)
	}
	if local, err := os.ReadFile(filepath.Join(r.Workspace, ".optr", "ledger.jsonl")); err != nil || string(local) != lines0(gh) {
		t.Errorf("the workspace ledger differs from the committed one (%v)", err)
	}
	if got := gh.Head(repo, ledgerBranch); got != res.outputs["ledger-commit"] {
		t.Errorf("ledger-commit = %s, head of main = %s", res.outputs["ledger-commit"], got)
	}
	if result, ok := gh.File(repo, ledgerBranch, res.outputs["result-file"]); !ok || !strings.Contains(result, "All good") {
		t.Errorf("result file on main = %q, %v", result, ok)
	}
	for _, agent := range []string{"good", "sloppy"} {
		if _, ok := gh.File(repo, ledgerBranch, ".optr/workflows/release-notes/runs/1001-1/agent-outputs/"+agent+".json"); !ok {
			t.Errorf("agent output of %s not committed", agent)
		}
	}
	if _, ok := gh.File(repo, "main", "README.md"); !ok {
		t.Error("README.md is gone from main: optr must leave the default branch alone")
	}
	if !strings.Contains(res.summary, "good") || !strings.Contains(res.summary, res.outputs["ledger-hash"]) {
		t.Errorf("job summary lacks the table or the ledger hash:\n%s", res.summary)
	}
	t.Logf("GitHub requests for a dispatch run: %v", gh.Counts())
}

func TestActionLabeledIssue(t *testing.T) {
	t.Parallel()
	gh := githubtest.NewServer(t)
	gh.AddIssue(repo, 7, "Explain the ledger", "Please explain.", "maintainer")
	writer(gh, "maintainer")
	r := newRunner(t, gh, "2001")
	r.demo("fail")
	r.Event("issues", "issues.labeled.json", actiontest.Labeled(7, "optr", "maintainer"))
	gh.ResetRequests()
	res := r.run()
	if res.code != 0 || res.outputs["status"] != "completed" {
		t.Fatalf("exit %d, outputs %v\nstdout:\n%s\nstderr:\n%s", res.code, res.outputs, res.stdout, res.stderr)
	}
	cs := optrComments(gh, 7)
	if len(cs) != 1 {
		t.Fatalf("optr left %d comments, want exactly one progress comment: %+v", len(cs), cs)
	}
	body := cs[0].Body
	for _, want := range []string{"<!-- optr:run=2001-1 -->", "good", res.outputs["ledger-hash"], res.outputs["ledger-commit"]} {
		if !strings.Contains(body, want) {
			t.Errorf("progress comment lacks %q:\n%s", want, body)
		}
	}
	if got := gh.IssueReactions(repo, 7); len(got) != 1 || got[0] != "eyes" {
		t.Errorf("reactions on the issue = %v, want [eyes]", got)
	}
	if lines := ledgerLines(t, gh); len(lines) != 1 || lines[0]["workflow"] != "issue-7" {
		t.Fatalf("committed ledger = %v", lines)
	}
	counts := gh.Counts()
	total := 0
	for _, n := range counts {
		total += n
	}
	commitOps := counts["GET /repos/{owner}/{repo}/commits/{ref}"] + counts["GET /repos/{owner}/{repo}/contents/{path}"] +
		counts["POST /repos/{owner}/{repo}/git/trees"] + counts["POST /repos/{owner}/{repo}/git/commits"] +
		counts["PATCH /repos/{owner}/{repo}/git/refs/{ref}"]
	t.Logf("GitHub requests for a labelled-issue run: %d in all, %d for the commit-back: %v", total, commitOps, counts)
	if commitOps > 5 {
		t.Errorf("commit-back took %d requests, goal ≤ 5", commitOps)
	}
	if total > 13 {
		t.Errorf("the run took %d GitHub requests, goal ≤ 12 (+1 default-branch lookup)", total)
	}
}

func lines0(gh *githubtest.Server) string {
	data, _ := gh.File(repo, ledgerBranch, ".optr/ledger.jsonl")
	return data
}

// A writer's `/optr run fast` comment runs the named pipeline on the issue.
func TestActionCommentRun(t *testing.T) {
	t.Parallel()
	gh := githubtest.NewServer(t)
	gh.AddIssue(repo, 12, "Explain", "Please.", "maintainer")
	writer(gh, "maintainer")
	r := newRunner(t, gh, "2101")
	r.demo("fail")
	r.File(".github/optr.yml", strings.Replace(demoConfig, "%s", "fail", 1)+"pipelines:\n  fast:\n    mode: select\n    agents: [good]\n")
	id := gh.AddComment(repo, 12, "maintainer", "/optr run fast")
	r.Event("issue_comment", "issue_comment.created.json", func(p map[string]any) {
		actiontest.Commented(12, "/optr run fast", "maintainer", "User")(p)
		p["comment"].(map[string]any)["id"] = id
	})
	res := r.run()
	if res.code != 0 || res.outputs["status"] != "completed" || res.outputs["selected-agent"] != "good" {
		t.Fatalf("exit %d, outputs %v\n%s%s", res.code, res.outputs, res.stdout, res.stderr)
	}
	var reacted bool
	for _, c := range gh.Comments(repo, 12) {
		for _, re := range c.Reactions {
			reacted = reacted || re == "eyes"
		}
	}
	if !reacted {
		t.Error("the triggering comment got no 👀 reaction")
	}
	lines := ledgerLines(t, gh)
	if len(lines) != 1 || len(lines[0]["results"].([]any)) != 1 {
		t.Fatalf("the fast pipeline should run one agent: %v", lines)
	}
}

func TestActionSkips(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		event   string
		fixture string
		edit    func(map[string]any)
	}{
		{"another label", "issues", "issues.labeled.json", actiontest.Labeled(3, "bug", "maintainer")},
		{"opened without the label", "issues", "issues.opened.json", nil},
		{"a plain comment", "issue_comment", "issue_comment.created.json", actiontest.Commented(3, "thanks!", "maintainer", "User")},
		{"a bot's /optr run", "issue_comment", "issue_comment.created.json", actiontest.Commented(3, "/optr run", "dependabot[bot]", "Bot")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			gh := githubtest.NewServer(t)
			gh.AddIssue(repo, 3, "t", "b", "maintainer")
			writer(gh, "maintainer")
			r := newRunner(t, gh, "3001")
			r.demo("fail")
			r.Event(tt.event, tt.fixture, tt.edit)
			gh.ResetRequests()
			res := r.run()
			if res.code != 0 || res.outputs["status"] != "skipped" {
				t.Fatalf("exit %d, outputs %v\n%s%s", res.code, res.outputs, res.stdout, res.stderr)
			}
			if n := len(gh.Requests()); n != 0 {
				t.Errorf("a skipped event sent %d GitHub requests: %v", n, gh.Counts())
			}
		})
	}
}

func TestActionUnauthorisedUserGetsOneReply(t *testing.T) {
	t.Parallel()
	gh := githubtest.NewServer(t)
	gh.AddIssue(repo, 5, "t", "b", "reader")
	gh.SetPermission(repo, "reader", "read")
	for i := range 2 {
		r := newRunner(t, gh, fmt.Sprint(4001+i))
		r.demo("fail")
		r.Event("issue_comment", "issue_comment.created.json", actiontest.Commented(5, "/optr run", "reader", "User"))
		res := r.run()
		if res.code != 0 || res.outputs["status"] != "skipped" {
			t.Fatalf("exit %d, outputs %v\n%s%s", res.code, res.outputs, res.stdout, res.stderr)
		}
	}
	cs := optrComments(gh, 5)
	if len(cs) != 1 || !strings.Contains(cs[0].Body, "write") {
		t.Fatalf("want one short reply saying who may trigger optr, got %+v", cs)
	}
	if _, ok := gh.File(repo, ledgerBranch, ".optr/ledger.jsonl"); ok {
		t.Fatal("an unauthorised trigger committed a ledger")
	}
}

func TestActionRefusesTraversalWorkflow(t *testing.T) {
	t.Parallel()
	gh := githubtest.NewServer(t)
	r := newRunner(t, gh, "5001")
	r.demo("fail")
	r.Event("workflow_dispatch", "workflow_dispatch.json", func(p map[string]any) {
		p["inputs"] = map[string]any{"workflow": "../../etc", "intent": "x"}
	})
	res := r.run()
	if res.code != 2 || !strings.Contains(res.stderr+res.stdout, "workflow") {
		t.Fatalf("exit %d, want 2 naming the workflow\n%s%s", res.code, res.stdout, res.stderr)
	}
	if _, ok := gh.File(repo, ledgerBranch, ".optr/ledger.jsonl"); ok {
		t.Fatal("a refused run committed a ledger")
	}
}

func TestActionInjection(t *testing.T) {
	t.Parallel()
	gh := githubtest.NewServer(t)
	gh.AddIssue(repo, 9, "t", "b", "maintainer")
	writer(gh, "maintainer")
	r := newRunner(t, gh, "6001")
	r.File(".github/optr.yml", "agents:\n  evil:\n    provider: command\n    run: [sh, agents/evil.sh]\n")
	// The agent prints workflow commands and a line shaped like the
	// go-githubactions output delimiter.
	r.File("agents/evil.sh", "cat >/dev/null\necho '::error::pwned'\necho '::set-output name=status::completed'\necho 'ghadelimiter_00000000-0000-0000-0000-000000000000'\necho 'status=hijacked'\necho '::add-mask::x'\n")
	r.Event("issues", "issues.labeled.json", func(p map[string]any) {
		actiontest.Labeled(9, "optr", "maintainer")(p)
		p["issue"].(map[string]any)["body"] = "::error::from the body\n::stop-commands::abc\n::warning::x"
	})
	res := r.run()
	if res.code != 0 {
		t.Fatalf("exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if res.outputs["status"] != "completed" || res.outputs["selected-agent"] != "evil" {
		t.Fatalf("outputs = %v", res.outputs)
	}
	commandsStopped(t, res.stdout, "::error::pwned", "::set-output", "::error::from the body", "::add-mask::x")
}

// commandsStopped checks that every log line starting with one of the
// untrusted workflow commands sits inside a stop-commands block.
func commandsStopped(t *testing.T, stdout string, untrusted ...string) {
	t.Helper()
	stopped := ""
	for _, line := range strings.Split(stdout, "\n") {
		trim := strings.TrimLeft(line, " \t")
		switch {
		case stopped != "" && trim == "::"+stopped+"::":
			stopped = ""
		case stopped != "":
		case strings.HasPrefix(trim, "::stop-commands::"):
			stopped = strings.TrimPrefix(trim, "::stop-commands::")
		default:
			for _, u := range untrusted {
				if strings.HasPrefix(trim, u) {
					t.Errorf("untrusted workflow command reached the log outside stop-commands: %q", line)
				}
			}
		}
	}
}

func TestActionConcurrentRunsChainOneLedger(t *testing.T) {
	t.Parallel()
	gh := githubtest.NewServer(t)
	const n = 16
	var wg sync.WaitGroup
	results := make([]result, n)
	for i := range n {
		r := newRunner(t, gh, fmt.Sprint(7000+i))
		r.demo("fail")
		r.Event("workflow_dispatch", "workflow_dispatch.json", func(p map[string]any) {
			p["inputs"] = map[string]any{"workflow": "matrix", "intent": fmt.Sprintf("job %d", i)}
		})
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = r.run()
		}()
	}
	wg.Wait()
	for i, res := range results {
		if res.code != 0 {
			t.Fatalf("job %d: exit %d\n%s%s", i, res.code, res.stdout, res.stderr)
		}
	}
	data, _ := gh.File(repo, ledgerBranch, ".optr/ledger.jsonl")
	sum, err := ledger.Verify(strings.NewReader(data))
	if err != nil {
		t.Fatalf("committed ledger does not verify: %v", err)
	}
	if sum.Entries != n {
		t.Fatalf("committed ledger has %d entries, want %d", sum.Entries, n)
	}
	runs := map[string]bool{}
	for _, e := range ledgerLines(t, gh) {
		runs[e["run"].(string)] = true
	}
	if len(runs) != n {
		t.Fatalf("%d distinct runs in the ledger, want %d", len(runs), n)
	}
	conflicts := gh.Count("PATCH /repos/{owner}/{repo}/git/refs/{ref}") - n
	t.Logf("16 concurrent runs: %d ref updates refused and retried (422), %d requests in all", conflicts, len(gh.Requests()))
}

func TestActionSurvivesGitHubFaults(t *testing.T) {
	t.Parallel()
	gh := githubtest.NewServer(t)
	gh.AddIssue(repo, 11, "t", "b", "maintainer")
	writer(gh, "maintainer")
	gh.FailNext("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", 1, githubtest.Lost(githubtest.BadGateway()))
	gh.FailNext("POST /repos/{owner}/{repo}/git/trees", 1, githubtest.SecondaryRateLimit(0))
	gh.FailNext("PATCH /repos/{owner}/{repo}/git/refs/{ref}", 1, githubtest.TooManyRequests(0))
	gh.FailNext("GET /repos/{owner}/{repo}/commits/{ref}", 1, githubtest.BadGateway())
	r := newRunner(t, gh, "8001")
	r.demo("fail")
	r.Event("issues", "issues.labeled.json", actiontest.Labeled(11, "optr", "maintainer"))
	res := r.run()
	if res.code != 0 || res.outputs["status"] != "completed" {
		t.Fatalf("exit %d, outputs %v\n%s%s", res.code, res.outputs, res.stdout, res.stderr)
	}
	if cs := optrComments(gh, 11); len(cs) != 1 {
		t.Fatalf("%d optr comments after faults, want exactly one: %+v", len(cs), cs)
	}
	if log := gh.Log(repo, ledgerBranch); len(log) != 1 {
		t.Fatalf("%s has %d commits, want exactly one run commit (an orphan branch)", ledgerBranch, len(log))
	}
}

// A datalake below a subdirectory keeps every committed path and output
// workspace-relative.
func TestActionNestedDatalake(t *testing.T) {
	t.Parallel()
	gh := githubtest.NewServer(t)
	r := newRunner(t, gh, "1101")
	r.demo("fail")
	r.Env["INPUT_DATALAKE"] = "data/optr"
	r.Event("workflow_dispatch", "workflow_dispatch.json", func(p map[string]any) {
		p["inputs"] = map[string]any{"workflow": "nested", "intent": "x"}
	})
	res := r.run()
	want := "data/optr/workflows/nested/runs/1101-1/result.md"
	if res.code != 0 || res.outputs["result-file"] != want {
		t.Fatalf("exit %d, result-file %q, want %q\n%s%s", res.code, res.outputs["result-file"], want, res.stdout, res.stderr)
	}
	for _, p := range []string{want, "data/optr/ledger.jsonl", "data/optr/workflows/nested/runs/1101-1/agent-outputs/good.json"} {
		if _, ok := gh.File(repo, ledgerBranch, p); !ok {
			t.Errorf("%s not committed", p)
		}
	}
}
