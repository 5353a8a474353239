package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/action/actiontest"
	"github.com/optr-dev/optr/internal/github/githubtest"
	"github.com/optr-dev/optr/internal/testkit/demotest"
	"github.com/optr-dev/optr/internal/testkit/gittest"
)

// The matrix end to end: `command: plan` in one job, `command: task` in one
// job per matrix entry — each its own workspace and process, in parallel —
// and `command: gather` over the artifacts laid out as
// actions/download-artifact lays them out, against the fake GitHub.

// matrixJobs is what one matrix workflow run left behind.
type matrixJobs struct {
	plan, gather result
	tasks        []string
	// taskResults are what the task jobs left, in the order they ended.
	taskResults []result
}

// issueServer is a fake GitHub with issue 7 and a writer who labels it.
func issueServer(t *testing.T) *githubtest.Server {
	t.Helper()
	gh := githubtest.NewServer(t)
	gh.AddIssue(repo, 7, "Explain the ledger", "Please explain.", "maintainer")
	writer(gh, "maintainer")
	return gh
}

// selectRepo is a checkout with two command agents under select; good
// leaves a file in $OPTR_OUTPUT_DIR, committed with the run.
func selectRepo(r *runner) {
	r.demo("fail")
	r.File("agents/good.sh", goodAgent+"echo notes >\"$OPTR_OUTPUT_DIR/good-notes.md\"\n")
}

// researchRepo is a checkout of the demo running its research pipeline
// (mode: delegate, four topics, one of them refused).
func researchRepo(r *runner) {
	demotest.Copy(r.t, r.Workspace)
	r.Env["INPUT_CONFIG"] = "testdata/demo/optr.yml"
	r.Env["INPUT_PIPELINE"] = "research"
}

// job is one job of the matrix workflow run runID, on a fresh checkout of
// repo (selectRepo when nil).
func job(t *testing.T, gh *githubtest.Server, runID, command string, repo ...func(*runner)) *runner {
	t.Helper()
	r := newRunner(t, gh, runID)
	checkout := selectRepo
	if len(repo) > 0 {
		checkout = repo[0]
	}
	checkout(r)
	r.Event("issues", "issues.labeled.json", actiontest.Labeled(7, "optr", "maintainer"))
	r.Env["INPUT_COMMAND"] = command
	return r
}

// copyDir copies the tree src to dst (an upload or a download).
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
}

// runMatrix runs plan → tasks → gather. between may change the uploaded
// artifacts (artifacts/<name>/…) before gather downloads them.
func runMatrix(t *testing.T, gh *githubtest.Server, runID string, between func(artifacts string), repo ...func(*runner)) matrixJobs {
	t.Helper()
	var jobs matrixJobs
	artifacts := t.TempDir()

	p := job(t, gh, runID, "plan", repo...)
	jobs.plan = p.run()
	if jobs.plan.code != 0 || jobs.plan.outputs["status"] != "completed" {
		t.Fatalf("plan: exit %d, outputs %v\n%s%s", jobs.plan.code, jobs.plan.outputs, jobs.plan.stdout, jobs.plan.stderr)
	}
	var m struct {
		Include []struct{ Task string } `json:"include"`
	}
	if err := json.Unmarshal([]byte(jobs.plan.outputs["matrix"]), &m); err != nil {
		t.Fatalf("matrix output %q: %v", jobs.plan.outputs["matrix"], err)
	}
	planDir := filepath.Join(p.Workspace, jobs.plan.outputs["plan-dir"])
	copyDir(t, planDir, filepath.Join(artifacts, "optr-plan")) // upload-artifact name: optr-plan

	var mu sync.Mutex
	t.Run("tasks", func(t *testing.T) {
		for _, e := range m.Include {
			jobs.tasks = append(jobs.tasks, e.Task)
			t.Run(e.Task, func(t *testing.T) {
				t.Parallel()
				r := job(t, gh, runID, "task", repo...)
				r.Env["INPUT_TASK"] = e.Task
				// A task never reads the repository's config: the plan carries it.
				r.File(r.Env["INPUT_CONFIG"], "agents: {\n")
				copyDir(t, filepath.Join(artifacts, "optr-plan"), filepath.Join(r.Workspace, "optr-plan"))
				res := r.run()
				mu.Lock()
				jobs.taskResults = append(jobs.taskResults, res)
				mu.Unlock()
				if res.code != 0 || res.outputs["status"] != "completed" {
					t.Fatalf("task %s: exit %d, outputs %v\n%s%s", e.Task, res.code, res.outputs, res.stdout, res.stderr)
				}
				// upload-artifact, name optr-task-<id>, path optr-tasks/
				copyDir(t, filepath.Join(r.Workspace, "optr-tasks"), filepath.Join(artifacts, "optr-task-"+e.Task))
			})
		}
	})
	if t.Failed() {
		t.FailNow()
	}
	if between != nil {
		between(artifacts)
	}

	g := job(t, gh, runID, "gather", repo...)
	copyDir(t, filepath.Join(artifacts, "optr-plan"), filepath.Join(g.Workspace, "optr-plan"))
	entries, err := os.ReadDir(artifacts)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries { // download-artifact, pattern optr-task-*, without merge-multiple
		if strings.HasPrefix(e.Name(), "optr-task-") {
			copyDir(t, filepath.Join(artifacts, e.Name()), filepath.Join(g.Workspace, "optr-tasks", e.Name()))
		}
	}
	gh.ResetRequests()
	jobs.gather = g.run()
	return jobs
}

// comparableLedger is the committed ledger without what measured time
// makes differ between two runs: timestamps, durations, scores, hashes.
func comparableLedger(t *testing.T, gh *githubtest.Server) []map[string]any {
	t.Helper()
	lines := ledgerLines(t, gh)
	for _, e := range lines {
		for _, k := range []string{"time", "hash", "prev"} {
			delete(e, k)
		}
		results, _ := e["results"].([]any) // escalation entries have none
		for _, r := range results {
			for _, k := range []string{"ttv_ms", "exec_ms", "score"} {
				delete(r.(map[string]any), k)
			}
		}
	}
	return lines
}

func TestMatrixIsTheOneJobRun(t *testing.T) {
	t.Parallel()
	oneGH := issueServer(t)
	one := job(t, oneGH, "3001", "auto")
	oneGH.ResetRequests()
	oneRes := one.run()
	if oneRes.code != 0 || oneRes.outputs["status"] != "completed" {
		t.Fatalf("one-job run: exit %d, outputs %v\n%s%s", oneRes.code, oneRes.outputs, oneRes.stdout, oneRes.stderr)
	}
	oneCounts := oneGH.Counts()

	gh := issueServer(t)
	jobs := runMatrix(t, gh, "3001", nil)
	res := jobs.gather
	if res.code != 0 {
		t.Fatalf("gather: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if diff := cmp.Diff([]string{"good", "sloppy"}, jobs.tasks); diff != "" {
		t.Errorf("matrix tasks (-want +got):\n%s", diff)
	}
	if jobs.plan.outputs["run-id"] != "3001-1" || jobs.plan.outputs["plan-dir"] != "optr-plan" {
		t.Errorf("plan outputs = %v", jobs.plan.outputs)
	}
	for _, k := range []string{"status", "run-id", "selected-agent", "result-file"} {
		if res.outputs[k] != oneRes.outputs[k] {
			t.Errorf("output %s: matrix %q, one job %q", k, res.outputs[k], oneRes.outputs[k])
		}
	}
	if diff := cmp.Diff(comparableLedger(t, oneGH), comparableLedger(t, gh)); diff != "" {
		t.Errorf("committed ledger (-one job +matrix):\n%s", diff)
	}
	if got := ledgerLines(t, gh); got[len(got)-1]["hash"] != res.outputs["ledger-hash"] {
		t.Errorf("ledger-hash output %s is not the committed head", res.outputs["ledger-hash"])
	}
	oneFiles := slices.Sorted(maps.Keys(oneGH.Files(repo, ledgerBranch)))
	files := slices.Sorted(maps.Keys(gh.Files(repo, ledgerBranch)))
	if !slices.Contains(files, ".optr/workflows/issue-7/runs/3001-1/agent-files/good-notes.md") {
		t.Errorf("the agent's file was not committed: %v", files)
	}
	if diff := cmp.Diff(oneFiles, files); diff != "" {
		t.Errorf("files on the ledger branch (-one job +matrix):\n%s", diff)
	}
	if a, b := len(oneGH.Log(repo, ledgerBranch)), len(gh.Log(repo, ledgerBranch)); a != b {
		t.Errorf("the ledger branch has %d commits after the matrix run, %d after the one-job run: want one commit each", b, a)
	}
	if head := gh.Head(repo, ledgerBranch); head != res.outputs["ledger-commit"] {
		t.Errorf("ledger-commit %s is not the ledger branch head %s", res.outputs["ledger-commit"], head)
	}
	cs, oneCs := optrComments(gh, 7), optrComments(oneGH, 7)
	if len(cs) != 1 || len(oneCs) != 1 {
		t.Fatalf("optr comments: matrix %d, one job %d; want exactly one progress comment each", len(cs), len(oneCs))
	}
	for _, want := range []string{"<!-- optr:run=3001-1 -->", res.outputs["ledger-hash"], res.outputs["ledger-commit"], "good", "sloppy"} {
		if !strings.Contains(cs[0].Body, want) {
			t.Errorf("the matrix run's final comment lacks %q:\n%s", want, cs[0].Body)
		}
	}
	counts := gh.Counts()
	t.Logf("GitHub requests: gather %v; one-job run %v", counts, oneCounts)
	if g, o := total(counts), total(oneCounts); g > o {
		t.Errorf("gather made %d GitHub requests, the one-job run %d: want no more", g, o)
	}
}

func total(counts map[string]int) int {
	n := 0
	for _, c := range counts {
		n += c
	}
	return n
}

func TestMatrixGatherRefusesTamperedResult(t *testing.T) {
	t.Parallel()
	gh := issueServer(t)
	jobs := runMatrix(t, gh, "3101", func(artifacts string) {
		// someone "fixes" sloppy's output after its checks ran
		p := filepath.Join(artifacts, "optr-task-sloppy", "optr-task-sloppy", "output.md")
		if err := os.WriteFile(p, []byte("# Answer\n\nBetter than good.\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	res := jobs.gather
	if res.code != 0 || res.outputs["selected-agent"] != "good" {
		t.Fatalf("gather: exit %d, outputs %v\n%s%s", res.code, res.outputs, res.stdout, res.stderr)
	}
	if !strings.Contains(res.stdout, "refused task sloppy") || !strings.Contains(res.stdout, "tampered: output.md hashes to") {
		t.Errorf("the log does not name the refused result:\n%s", res.stdout)
	}
	results := ledgerLines(t, gh)[0]["results"].([]any)
	sloppy := results[1].(map[string]any)
	if sloppy["agent"] != "sloppy" || sloppy["status"] != "failed" || sloppy["admissible"] != false {
		t.Errorf("sloppy's ledger result = %v, want failed and not admissible", sloppy)
	}
	if out, ok := gh.File(repo, ledgerBranch, ".optr/workflows/issue-7/runs/3101-1/agent-outputs/sloppy.json"); !ok || strings.Contains(out, "Better than good") {
		t.Errorf("the tampered output was committed (%v): %s", ok, out)
	}
}

func TestMatrixGatherCountsMissingTaskAsFailed(t *testing.T) {
	t.Parallel()
	gh := issueServer(t)
	jobs := runMatrix(t, gh, "3201", func(artifacts string) {
		// good's job died before upload-artifact
		if err := os.RemoveAll(filepath.Join(artifacts, "optr-task-good")); err != nil {
			t.Fatal(err)
		}
	})
	res := jobs.gather
	// sloppy alone breaks the hard constraint; on-no-admissible: fail
	if res.code != 1 || res.outputs["status"] != "failed" || res.outputs["selected-agent"] != "" {
		t.Fatalf("gather: exit %d, outputs %v\n%s%s", res.code, res.outputs, res.stdout, res.stderr)
	}
	if !strings.Contains(res.stdout, "task good left no result") {
		t.Errorf("the log does not name the missing task:\n%s", res.stdout)
	}
	lines := ledgerLines(t, gh)
	if len(lines) != 1 || lines[0]["status"] != "failed" {
		t.Fatalf("committed ledger = %v, want the failed run recorded", lines)
	}
	good := lines[0]["results"].([]any)[0].(map[string]any)
	if good["agent"] != "good" || good["status"] != "failed" {
		t.Errorf("good's ledger result = %v, want failed", good)
	}
	if cs := optrComments(gh, 7); len(cs) != 1 || !strings.Contains(cs[0].Body, "failed") {
		t.Errorf("progress comment = %+v", cs)
	}
}

// A plan job on an event that starts no run plans nothing: no matrix, so
// the workflow's task and gather jobs are skipped.
func TestMatrixPlanSkipsWhatIsNoRun(t *testing.T) {
	t.Parallel()
	gh := issueServer(t)
	r := job(t, gh, "3301", "plan")
	r.Event("issues", "issues.labeled.json", actiontest.Labeled(7, "bug", "maintainer"))
	res := r.run()
	if res.code != 0 || res.outputs["status"] != "skipped" || res.outputs["matrix"] != "" {
		t.Fatalf("plan: exit %d, outputs %v\n%s%s", res.code, res.outputs, res.stdout, res.stderr)
	}
	if _, err := os.Stat(filepath.Join(r.Workspace, "optr-plan")); !os.IsNotExist(err) {
		t.Errorf("a skipped plan wrote optr-plan/ (%v)", err)
	}
}

// A task or gather job without its plan is a usage error (exit 2) that
// says what is missing, and touches nothing on GitHub.
func TestMatrixJobWithoutPlan(t *testing.T) {
	t.Parallel()
	for _, command := range []string{"task", "gather"} {
		gh := issueServer(t)
		r := job(t, gh, "3401", command)
		r.Env["INPUT_TASK"] = "good"
		gh.ResetRequests()
		res := r.run()
		if res.code != 2 || res.outputs["status"] != "failed" || !strings.Contains(res.stdout, "read the plan") {
			t.Errorf("%s: exit %d, outputs %v\n%s%s", command, res.code, res.outputs, res.stdout, res.stderr)
		}
		if n := total(gh.Counts()); n != 0 {
			t.Errorf("%s without a plan made %d GitHub requests", command, n)
		}
	}
}

// The demo's research pipeline (mode: delegate) as a matrix: the
// coordinator in plan, one task per topic, gather — the same outputs,
// ledger, committed files (apart from the watcher's own) and comment as the
// one-job run.
func TestMatrixDelegateIsTheOneJobRun(t *testing.T) {
	t.Parallel()
	oneGH := issueServer(t)
	oneRes := job(t, oneGH, "3501", "auto", researchRepo).run()
	if oneRes.code != 0 || oneRes.outputs["status"] != "completed" {
		t.Fatalf("one-job run: exit %d, outputs %v\n%s%s", oneRes.code, oneRes.outputs, oneRes.stdout, oneRes.stderr)
	}
	gh := issueServer(t)
	jobs := runMatrix(t, gh, "3501", nil, researchRepo)
	res := jobs.gather
	if res.code != 0 {
		t.Fatalf("gather: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	want := []string{"001-hash-chains", "002-witnesses", "003-checkpoints", "004-verification-cost"}
	if diff := cmp.Diff(want, jobs.tasks); diff != "" {
		t.Errorf("matrix tasks (-want +got):\n%s", diff)
	}
	for _, k := range []string{"status", "run-id", "selected-agent", "result-file"} {
		if res.outputs[k] != oneRes.outputs[k] {
			t.Errorf("output %s: matrix %q, one job %q", k, res.outputs[k], oneRes.outputs[k])
		}
	}
	if diff := cmp.Diff(comparableLedger(t, oneGH), comparableLedger(t, gh)); diff != "" {
		t.Errorf("committed ledger (-one job +matrix):\n%s", diff)
	}
	committed := func(gh *githubtest.Server) map[string]string {
		files := gh.Files(repo, ledgerBranch)
		for p := range files {
			if strings.Contains(p, "/.coordination/") || strings.HasSuffix(p, "ledger.jsonl") || strings.HasSuffix(p, "workflow-optr.yaml") || strings.HasSuffix(p, "optr-selection.json") || strings.Contains(p, "/agent-outputs/") {
				delete(files, p) // the watcher's files stay in the tasks; times differ in the rest
			}
		}
		return files
	}
	if diff := cmp.Diff(committed(oneGH), committed(gh)); diff != "" {
		t.Errorf("spec folder and decision files on the ledger branch (-one job +matrix):\n%s", diff)
	}
	oneAll := slices.Sorted(maps.Keys(oneGH.Files(repo, ledgerBranch)))
	all := slices.Sorted(maps.Keys(gh.Files(repo, ledgerBranch)))
	noCoord := func(names []string) []string {
		return slices.DeleteFunc(names, func(n string) bool { return strings.Contains(n, "/.coordination/") })
	}
	if diff := cmp.Diff(noCoord(oneAll), noCoord(all)); diff != "" {
		t.Errorf("files on the ledger branch (-one job +matrix):\n%s", diff)
	}
	cs := optrComments(gh, 7)
	if len(cs) != 1 || !strings.Contains(cs[0].Body, "Research complete: 3/4 topics (75% success)") {
		t.Errorf("matrix comments = %+v", cs)
	}
}

// matrixChangesConfig: three command agents change greet.txt differently;
// only beta's change passes the command check (run in each agent's
// worktree) and touches no protected path.
const matrixChangesConfig = `agents:
  alpha: { provider: command, run: [sh, -c, "cat >/dev/null; echo hola > greet.txt; echo alpha done"] }
  beta:  { provider: command, run: [sh, -c, "cat >/dev/null; echo 'hello, world' > greet.txt; echo world > world.txt; echo beta done"] }
  gamma: { provider: command, run: [sh, -c, "cat >/dev/null; echo 'hello, world' > greet.txt; echo 'on: pull_request' > .github/workflows/ci.yml; echo gamma done"] }
constraints:
  greets-world: { check: command, run: [grep, -qx, "hello, world", greet.txt] }
changes: { mode: pull-request }
`

// changesFiles is the repository of the code-changes matrix: on the fake's
// main and in every job's checkout.
var changesFiles = map[string]string{
	"greet.txt":                "hello\n",
	".github/workflows/ci.yml": "on: push\n",
	".github/optr.yml":         matrixChangesConfig,
}

// changesRepo is a job's checkout of changesFiles.
func changesRepo(r *runner) { checkoutCommit(r, changesFiles) }

// checkoutCommit makes the job's workspace a checkout of files: the same
// commit in every job (a fixed author and date make the same commit id),
// which is GITHUB_SHA, as actions/checkout leaves it; worktrees go in
// RUNNER_TEMP.
func checkoutCommit(r *runner, files map[string]string) {
	for p, c := range files {
		r.File(p, c)
		if !strings.HasSuffix(p, ".sh") { // File makes every file executable; a checkout's data files are not
			if err := os.Chmod(filepath.Join(r.Workspace, p), 0o644); err != nil {
				r.t.Fatal(err)
			}
		}
	}
	r.sh("git init -q -b main . && git add -A && " +
		"GIT_AUTHOR_DATE=2026-11-23T09:00:00Z GIT_COMMITTER_DATE=2026-11-23T09:00:00Z " +
		"git -c user.name=ada -c user.email=ada@example.com commit -q -m base")
	r.Env["GITHUB_SHA"] = strings.TrimSpace(r.sh("git rev-parse HEAD"))
	r.Env["RUNNER_TEMP"] = filepath.Join(r.Dir, "runner-temp")
}

// Code changes over the matrix, end to end: each task job runs its agent
// in a worktree of its own checkout and uploads its change with its
// result; the gather verifies the changes, selects, and opens one pull
// request with π*'s change alone; main gets only the ledger's commit.
func TestMatrixChangesOpenOnePullRequest(t *testing.T) {
	t.Parallel()
	gh := issueServer(t)
	base := gh.Commit(repo, "main", changesFiles, "base")
	jobs := runMatrix(t, gh, "3601", func(artifacts string) {
		for _, task := range []string{"alpha", "beta", "gamma"} {
			if _, err := os.Stat(filepath.Join(artifacts, "optr-task-"+task, "optr-task-"+task, "change.patch")); err != nil {
				t.Errorf("task %s uploaded no change: %v", task, err)
			}
		}
	}, changesRepo)
	g := jobs.gather
	if g.code != 0 || g.outputs["status"] != "completed" || g.outputs["selected-agent"] != "beta" {
		t.Fatalf("gather: exit %d, outputs %v\n%s%s", g.code, g.outputs, g.stdout, g.stderr)
	}
	pulls := gh.Pulls(repo)
	if len(pulls) != 1 {
		t.Fatalf("%d pull requests, want 1", len(pulls))
	}
	pr := pulls[0]
	if g.outputs["pull-request"] != fmt.Sprint(pr.Number) || pr.Base != "main" || !strings.Contains(pr.Body, "Closes #7") {
		t.Errorf("pull request %+v, outputs %v", pr, g.outputs)
	}
	want := maps.Clone(changesFiles)
	want["greet.txt"], want["world.txt"] = "hello, world\n", "world\n"
	want["README.md"] = "# octo-repo\n" // the fake's initial commit
	if diff := cmp.Diff(want, gh.Files(repo, pr.Head)); diff != "" {
		t.Errorf("the pull request's files (-want +got):\n%s", diff)
	}
	if got := gh.Head(repo, "main"); got != base {
		t.Errorf("main moved to %s: only the ledger branch takes commits", got)
	}
}

// sh runs script in the job's workspace and returns its output.
func (r *runner) sh(script string) string {
	r.t.Helper()
	return gittest.Sh(r.t, r.Workspace, script)
}

// forgeResult rewrites task id's result.json in the uploaded artifacts
// with edit, as someone who can write the artifact before the gather
// downloads it would.
func forgeResult(t *testing.T, artifacts, id string, edit func(dir string, tr map[string]any)) {
	t.Helper()
	dir := filepath.Join(artifacts, "optr-task-"+id, "optr-task-"+id)
	data, err := os.ReadFile(filepath.Join(dir, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	var tr map[string]any
	if err := json.Unmarshal(data, &tr); err != nil {
		t.Fatal(err)
	}
	edit(dir, tr)
	if data, err = json.Marshal(tr); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "result.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// passAll sets every verdict of a task result to passed and the result
// admissible.
func passAll(tr map[string]any) {
	checks := tr["checks"].(map[string]any)
	var names []any
	for _, v := range checks["verdicts"].([]any) {
		v := v.(map[string]any)
		v["status"], v["reason"] = "passed", ""
		names = append(names, v["constraint"])
	}
	checks["invariants"], checks["admissible"] = names, true
	delete(checks, "hard_failed")
}

// TestMatrixGatherRechecksForgedResults checks issue 27 item 3: the gather
// took a task's verdicts on trust. good's output is swapped after its
// checks ran for one that breaks the hard not-regex no-todo (both hashes
// updated), and every verdict of sloppy (whose output breaks it too) is
// set to passed: the gather judges both outputs again and admits neither.
func TestMatrixGatherRechecksForgedResults(t *testing.T) {
	t.Parallel()
	gh := issueServer(t)
	const swapped = "# Answer\n\nTODO: all good.\n"
	jobs := runMatrix(t, gh, "3102", func(artifacts string) {
		forgeResult(t, artifacts, "good", func(dir string, tr map[string]any) {
			if err := os.WriteFile(filepath.Join(dir, "output.md"), []byte(swapped), 0o644); err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256([]byte(swapped))
			tr["output_sha256"] = hex.EncodeToString(sum[:])
			tr["result"].(map[string]any)["output_sha256"] = hex.EncodeToString(sum[:])
			passAll(tr)
		})
		forgeResult(t, artifacts, "sloppy", func(_ string, tr map[string]any) { passAll(tr) })
	})
	res := jobs.gather
	if res.outputs["selected-agent"] != "" {
		t.Fatalf("gather selected %q from forged results: exit %d, outputs %v\n%s%s", res.outputs["selected-agent"], res.code, res.outputs, res.stdout, res.stderr)
	}
	results := ledgerLines(t, gh)[0]["results"].([]any)
	for _, r := range results {
		r := r.(map[string]any)
		if r["admissible"] != false {
			t.Errorf("%s's forged result was recorded admissible: %v", r["agent"], r)
		}
	}
	out, ok := gh.File(repo, ledgerBranch, ".optr/workflows/issue-7/runs/3102-1/optr-selection.json")
	if !ok || !strings.Contains(out, "the task recorded passed, the gather found failed") {
		t.Errorf("the committed verdicts do not say good.s it was overruled (%v):\n%s", ok, out)
	}
}
