package matrix

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/check"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/pipeline"
	"github.com/optr-dev/optr/internal/status"
	"github.com/optr-dev/optr/internal/testkit/gittest"
	"github.com/optr-dev/optr/internal/worktree"
)

// changesMatrixConfig has three command agents that change greet.txt
// differently; only beta's change passes the command check, which runs in
// each agent's worktree.
const changesMatrixConfig = `agents:
  alpha: { provider: command, run: [sh, -c, "cat >/dev/null; echo hola > greet.txt; echo alpha done"] }
  beta:  { provider: command, run: [sh, -c, "cat >/dev/null; echo 'hello, world' > greet.txt; echo world > world.txt; echo beta done"] }
  gamma: { provider: command, run: [sh, -c, "cat >/dev/null; echo 'hello, world' > greet.txt; echo 'on: pull_request' > .github/workflows/ci.yml; echo gamma done"] }
constraints:
  greets-world: { check: command, run: [grep, -qx, "hello, world", greet.txt] }
changes: { mode: apply }
`

var greetRepo = map[string]string{"greet.txt": "hello\n", ".github/workflows/ci.yml": "on: push\n"}

// changesDeps are testDeps with worktrees under root.
func changesDeps(root string) pipeline.Deps {
	d := testDeps()
	d.WorktreeRoot = root
	return d
}

// clone is a task job's checkout of ws: another directory, the same commit.
func clone(t *testing.T, ws string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "checkout")
	gittest.Sh(t, ws, "git clone -q . "+dir)
	return dir
}

// planChanges plans the changes run on a fresh repository and returns the
// plan and the repository.
func planChanges(t *testing.T) (*Plan, string) {
	t.Helper()
	ws := gittest.Repo(t, greetRepo)
	spec := pipeline.Spec{Config: parseConfig(t, changesMatrixConfig), Workflow: "greet", RunID: "r1", Intent: "greet the world", Dir: ws}
	plan, _, err := MakePlan(t.Context(), spec, changesDeps(t.TempDir()), 0, "")
	if err != nil {
		t.Fatal(err)
	}
	return plan, ws
}

// runChangeTasks runs every task of plan as its own job would: in a
// checkout of ws of its own, with worktrees under a root of its own, which
// it must leave empty. It returns the folder the tasks wrote and what
// each did.
func runChangeTasks(t *testing.T, plan *Plan, ws string) (string, []*TaskRun) {
	t.Helper()
	out := t.TempDir()
	var runs []*TaskRun
	for _, task := range plan.Tasks {
		root := t.TempDir()
		run, err := RunTask(t.Context(), plan, task.ID, changesDeps(root), clone(t, ws), out)
		if err != nil {
			t.Fatal(err)
		}
		if left, _ := os.ReadDir(root); len(left) != 0 {
			t.Errorf("task %s left worktrees: %v", task.ID, left)
		}
		runs = append(runs, run)
	}
	return out, runs
}

// Code changes over the matrix: each task job runs its agent in a worktree
// of its own checkout and leaves its change beside its result; the gather
// takes the changes back, verified, selects, and delivers π*'s change
// alone — without starting a worktree itself.
func TestChangesOverTheMatrix(t *testing.T) {
	t.Parallel()
	plan, ws := planChanges(t)
	if head := strings.TrimSpace(gittest.Sh(t, ws, "git rev-parse HEAD")); plan.Commit != head {
		t.Errorf("the plan's commit is %q, the workspace's %s", plan.Commit, head)
	}
	if !slices.Contains(plan.Constraints, worktree.VerdictName) {
		t.Errorf("the plan's constraints %v lack %q", plan.Constraints, worktree.VerdictName)
	}
	out, runs := runChangeTasks(t, plan, ws)
	for _, run := range runs {
		if ch := run.Result.Change; ch == nil || len(ch.Files) == 0 {
			t.Fatalf("task %s: no change captured: %+v", run.Task.ID, ch)
		}
		if patch, err := os.ReadFile(filepath.Join(run.Dir, PatchFile)); err != nil || worktree.SHA256Hex(patch) != run.Result.Change.PatchSHA256 {
			t.Errorf("task %s: %s: %v, or it does not hash to the result's patch_sha256", run.Task.ID, PatchFile, err)
		}
	}

	rep := gatherChanges(t, plan, ws, out)
	if rep.Status != status.Completed || rep.Selected != "beta" || !rep.Delivery.Applied {
		t.Fatalf("status %s, selected %q, delivery %+v: %s", rep.Status, rep.Selected, rep.Delivery, rep.Message)
	}
	for _, name := range []string{"alpha", "gamma"} {
		if v := rep.Result(name).Checks; v.Admissible {
			t.Errorf("%s's change is admissible: %+v", name, v)
		}
	}
	if got := gittest.Sh(t, ws, "cat greet.txt world.txt .github/workflows/ci.yml"); got != "hello, world\nworld\non: push" {
		t.Errorf("the workspace after the gather applied π*'s change:\n%s", got)
	}
	if patch, err := os.ReadFile(rep.Path(pipeline.PatchFile("beta"))); err != nil || !strings.Contains(string(patch), "+hello, world") {
		t.Errorf("beta's patch is not in the gather's run: %v %q", err, patch)
	}
}

// A gather whose checkout does not hold the plan's commit cannot make the
// fresh tree π*'s command checks run in again: they fail closed, with the
// reason, and nothing is delivered.
func TestGatherFailsClosedWithoutThePlansCommit(t *testing.T) {
	t.Parallel()
	plan, ws := planChanges(t)
	out, _ := runChangeTasks(t, plan, ws)
	other := gittest.Repo(t, map[string]string{"greet.txt": "another history\n"})
	rep := gatherChanges(t, plan, other, out)
	if rep.Selected != "" || rep.Delivery.Applied {
		t.Fatalf("status %s, selected %q, delivery %+v: %s", rep.Status, rep.Selected, rep.Delivery, rep.Message)
	}
	beta := rep.Result("beta").Checks
	i := slices.IndexFunc(beta.Verdicts, func(v check.Verdict) bool { return v.Constraint == "greets-world" })
	if beta.Admissible || i < 0 || !strings.Contains(beta.Verdicts[i].Reason, "the gather found failed: failed closed, the check could not run: the gather could not make a fresh tree to run it again: worktrees: the workspace") {
		t.Errorf("beta's command check without a fresh tree: %+v", beta)
	}
	if got := gittest.Sh(t, other, "cat greet.txt"); got != "another history" {
		t.Errorf("the gather's workspace was changed: %q", got)
	}
}

// gatherChanges gathers the task results in out and runs the gather's
// driver on them, delivering π*'s change to ws; the fresh trees it runs
// π*'s command checks in must be gone when it returns.
func gatherChanges(t *testing.T, plan *Plan, ws, out string) *pipeline.Outcome {
	t.Helper()
	g, err := Gather(t.Context(), plan, out)
	if err != nil || len(g.Refused)+len(g.Missing) > 0 {
		t.Fatalf("Gather = %v, refused %v, missing %v", err, g.Refused, g.Missing)
	}
	gm, err := NewGatherMode(plan, g)
	if err != nil {
		t.Fatal(err)
	}
	lake := filepath.Join(t.TempDir(), "lake")
	spec, err := plan.Spec(lake, filepath.Join(lake, "ledger.jsonl"), ws)
	if err != nil {
		t.Fatal(err)
	}
	gatherRoot := filepath.Join(t.TempDir(), "wt")
	rep, err := (&pipeline.Driver{Deps: changesDeps(gatherRoot), Deliverer: pipeline.ApplyChange{}, Mode: gm}).Run(t.Context(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if left, err := os.ReadDir(gatherRoot); len(left) != 0 || (err != nil && !errors.Is(err, os.ErrNotExist)) {
		t.Errorf("the gather left worktrees in %s: %v %v", gatherRoot, left, err)
	}
	return rep
}

// The gather does not take a task's word for its command checks either
// (issue 27 item 3): alpha's change fails the hard command check
// greets-world, but its result.json was rewritten to say it passed, and
// to look faster than beta, so that it would be π*. The gather runs π*'s
// command checks again in a fresh tree at the plan's commit with its
// patch, finds greets-world failed, selects again, checks beta the same
// way, and delivers beta's change.
func TestGatherRerunsCommandChecksOfPiStar(t *testing.T) {
	t.Parallel()
	plan, ws := planChanges(t)
	out, _ := runChangeTasks(t, plan, ws)
	editResult(t, out, "alpha", func(tr *TaskResult) {
		forgePassed(tr, "greets-world")
		tr.Result.TTVms, tr.Result.ExecMS = 0, 0 // the fastest, and first by name on a tie
	})
	rep := gatherChanges(t, plan, ws, out)
	if rep.Status != status.Completed || rep.Selected != "beta" || !rep.Delivery.Applied {
		t.Fatalf("status %s, selected %q, delivery %+v: %s", rep.Status, rep.Selected, rep.Delivery, rep.Message)
	}
	alpha := rep.Result("alpha").Checks
	if alpha.Admissible {
		t.Errorf("alpha's forged result is admissible: %+v", alpha)
	}
	i := slices.IndexFunc(alpha.Verdicts, func(v check.Verdict) bool { return v.Constraint == "greets-world" })
	if i < 0 || !strings.HasPrefix(alpha.Verdicts[i].Reason, "the task recorded passed, the gather found failed: command grep exited with status 1") {
		t.Errorf("alpha's greets-world verdict does not say it was overruled: %+v", alpha.Verdicts)
	}
	if got := gittest.Sh(t, ws, "cat greet.txt world.txt"); got != "hello, world\nworld" {
		t.Errorf("the workspace after the gather applied π*'s change:\n%s", got)
	}
}

// A change that does not come from the plan's commit, or whose patch was
// altered on the way, is refused and named; a task whose checkout is at
// another commit than the plan's refuses to run before its agent starts.
func TestChangesOverTheMatrixRefusals(t *testing.T) {
	t.Parallel()
	plan, ws := planChanges(t)
	out, _ := runChangeTasks(t, plan, ws)
	// beta's patch altered after its task: add a line to it.
	betaPatch := filepath.Join(out, TaskDirName("beta"), PatchFile)
	data, err := os.ReadFile(betaPatch)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(betaPatch, append(data, []byte("+sneaked in\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	// alpha's result moved to another base.
	editResult(t, out, "alpha", func(tr *TaskResult) { tr.Result.Change.Base = strings.Repeat("0", 40) })
	g, err := Gather(t.Context(), plan, out)
	if err != nil {
		t.Fatal(err)
	}
	reasons := map[string]string{}
	for _, r := range g.Refused {
		reasons[r.Task] = r.Reason
	}
	if !strings.Contains(reasons["beta"], "tampered: change.patch hashes to") {
		t.Errorf("beta's altered patch: refused for %q", reasons["beta"])
	}
	if !strings.Contains(reasons["alpha"], "foreign: the change starts from commit 0000000000000000000000000000000000000000") {
		t.Errorf("alpha's change from another commit: refused for %q", reasons["alpha"])
	}
	if len(g.Refused) != 2 {
		t.Errorf("refused %v, want alpha and beta only", g.Refused)
	}

	// A task job that checked out a later commit.
	moved := clone(t, ws)
	gittest.Sh(t, moved, "echo moved > greet.txt && git -c user.name=a -c user.email=a@example.com commit -qam moved")
	marker := filepath.Join(t.TempDir(), "ran")
	plan.Config.Settings.Agents["beta"] = config.Agent{Provider: config.ProviderCommand, Run: []string{"sh", "-c", "touch " + marker}}
	_, err = RunTask(t.Context(), plan, "beta", changesDeps(t.TempDir()), moved, t.TempDir())
	if !pipeline.IsInputError(err) || !strings.Contains(err.Error(), "but the plan's changes start from "+plan.Commit) {
		t.Fatalf("RunTask at another commit = %v, want an input error naming the plan's commit", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the agent ran")
	}
}

// The gather does not take a task's word that its change is admissible: a
// result whose "changes" verdict was forged to pass (gamma's change touches
// the protected .github/workflows/), or whose list of files leaves out one
// its patch touches (beta's), is refused, naming why; alpha's honest
// result, whose change failed only the command check, is taken.
func TestGatherRejudgesChanges(t *testing.T) {
	t.Parallel()
	plan, ws := planChanges(t)
	out, _ := runChangeTasks(t, plan, ws)
	editResult(t, out, "gamma", func(tr *TaskResult) { forgePassed(tr, worktree.VerdictName) })
	editResult(t, out, "beta", func(tr *TaskResult) {
		files := tr.Result.Change.Files
		tr.Result.Change.Files = slices.DeleteFunc(files, func(f worktree.FileStat) bool { return f.Path == "world.txt" })
	})
	g, err := Gather(t.Context(), plan, out)
	if err != nil {
		t.Fatal(err)
	}
	reasons := map[string]string{}
	for _, r := range g.Refused {
		reasons[r.Task] = r.Reason
	}
	want := map[string]string{
		"gamma": `tampered: the "changes" constraint passed in the task, but the change is not admissible: protected by ".github/workflows/**" (changes.protect): the change touches .github/workflows/ci.yml`,
		"beta":  "tampered: change.patch touches [greet.txt world.txt], but the result lists [greet.txt]",
	}
	if diff := cmp.Diff(want, reasons); diff != "" {
		t.Errorf("refusals (-want +got):\n%s", diff)
	}
}

// optr's own files in the repository are protected over the matrix as in
// one job, although each task records in a scratch datalake: the plan
// names them from its job's datalake, ledger and config file, each task
// judges its change by them, and the gather refuses a result whose
// verdict was forged to pass a change that touches one.
func TestChangesOverTheMatrixNeverTouchOptrsOwnFiles(t *testing.T) {
	t.Parallel()
	ws := gittest.Repo(t, map[string]string{"greet.txt": "hello\n", "ops/lake/notes.md": "kept\n", "ops/optr.yml": "agents: {}\n"})
	cfg, err := config.Parse(filepath.Join(ws, "ops", "optr.yml"), []byte(`agents:
  forger: { provider: command, run: [sh, -c, "cat >/dev/null; echo 'hello, world' > greet.txt; echo forged >> ops/lake/notes.md; echo forger done"] }
  honest: { provider: command, run: [sh, -c, "cat >/dev/null; echo 'hello, world' > greet.txt; echo honest done"] }
changes: { mode: apply, protect: ["secrets/**"] }
`))
	if err != nil {
		t.Fatal(err)
	}
	lake := filepath.Join(ws, "ops", "lake")
	spec := pipeline.Spec{Config: cfg, Workflow: "greet", RunID: "r1", Intent: "greet the world", Dir: ws,
		Datalake: lake, LedgerPath: filepath.Join(lake, "ledger.jsonl")}
	plan, _, err := MakePlan(t.Context(), spec, changesDeps(t.TempDir()), 0, "")
	if err != nil {
		t.Fatal(err)
	}
	want := []worktree.Own{
		{Path: "ops/lake/ledger.jsonl", What: "optr's ledger"},
		{Path: "ops/lake/ledger.d", What: "optr's sealed ledger segments"},
		{Path: "ops/lake", What: "optr's datalake"},
		{Path: "ops/optr.yml", What: "optr's config file"},
	}
	if diff := cmp.Diff(want, plan.Own); diff != "" {
		t.Errorf("the plan's own files (-want +got):\n%s", diff)
	}
	out, runs := runChangeTasks(t, plan, ws)
	const refusal = "touches optr's datalake ops/lake: ops/lake/notes.md, which no change may touch"
	for _, run := range runs {
		if run.Task.Agent != "forger" {
			continue
		}
		i := slices.IndexFunc(run.Result.Checks.Verdicts, func(v check.Verdict) bool { return v.Constraint == worktree.VerdictName })
		if i < 0 || !strings.Contains(run.Result.Checks.Verdicts[i].Reason, refusal) {
			t.Errorf("the forger's task judged its change: %+v", run.Result.Checks.Verdicts)
		}
	}
	editResult(t, out, "forger", func(tr *TaskResult) { forgePassed(tr, worktree.VerdictName) })
	g, err := Gather(t.Context(), plan, out)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Refused) != 1 || g.Refused[0].Task != "forger" || !strings.Contains(g.Refused[0].Reason, refusal) {
		t.Errorf("the gather refused %+v, want the forger's forged result, for %q", g.Refused, refusal)
	}
}
