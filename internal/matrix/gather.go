package matrix

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/beneath"
	"github.com/optr-dev/optr/internal/check"
	"github.com/optr-dev/optr/internal/cost"
	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/ledger"
	"github.com/optr-dev/optr/internal/status"
	"github.com/optr-dev/optr/internal/worktree"
)

// Limits of what a gather reads.
const (
	// maxResultBytes bounds one result.json; maxPatchBytes one
	// change.patch. An output.md or report.md is bounded by the plan's
	// executor.max-output (outputLimit).
	maxResultBytes = 16 << 20
	maxPatchBytes  = 64 << 20
	// unsetMaxOutput bounds an output of a plan whose config has no
	// executor.max-output (written by hand): the config's default.
	unsetMaxOutput = 64 << 20
	// maxDepth is how deep below --from task folders are looked for:
	// download-artifact puts them at depth 1 (merge-multiple) or 2 (one
	// folder per artifact).
	maxDepth = 3
)

// Refusal is a task result the gather did not take, and why.
type Refusal struct {
	// Path is the result.json refused.
	Path string `json:"path"`
	// Task is the task id its folder names.
	Task string `json:"task"`
	// Reason says what was wrong.
	Reason string `json:"reason"`
}

// String implements fmt.Stringer.
func (r Refusal) String() string {
	return fmt.Sprintf("task %s (%s): %s", r.Task, r.Path, r.Reason)
}

// Gathered is what Gather found below a results folder.
type Gathered struct {
	// Results has one result per planned task, in plan order. A task
	// without a result, or whose result was refused, is a failed result
	// that says why.
	Results []*executor.Result
	// Escalations are the tasks' watcher decisions, in plan order.
	Escalations []ledger.Draft
	// Refused are the results that were not taken, each with the reason:
	// foreign (another run, intent or config), duplicate, unknown task,
	// tampered (a hash or name that does not match), unreadable; and the
	// agent files that were not (a path an earlier task left, files past
	// the run's bounds).
	Refused []Refusal
	// Missing are the planned tasks that left no result.
	Missing []string
	// Reports are the report files command specialists wrote (delegate),
	// by result name, verified.
	Reports map[string]string
	// files are the verified agent files, in plan order, for agent-files/,
	// kept to the run's bounds (datalake.MaxAgentFiles, MaxAgentBytes):
	// taken names their paths, fileBytes counts their bytes, and full is
	// set once a file was past the bounds.
	files     []agentFile
	taken     map[string]bool
	fileBytes int64
	full      bool
	// patches are the verified code changes, by result name, for
	// agent-outputs/<agent>.patch.
	patches map[string][]byte
}

// Gather reads every optr-task-*/result.json below from — both layouts
// actions/download-artifact leaves, with and without merge-multiple — and
// checks each against plan: run_id, intent_sha256 and config_sha256 must be
// the plan's, the folder must name a planned task once, the result must be
// that task's agent, its checks the plan's constraints, and output.md must
// hash to output_sha256. A change must hash to its patch_sha256, start
// from the plan's commit, and pass the plan's changes: policy again, judged
// from the patch itself (see admitted). A folder from that does not exist
// holds no results.
func Gather(ctx context.Context, plan *Plan, from string) (*Gathered, error) {
	found, err := findResults(from)
	if err != nil {
		return nil, err
	}
	g := &Gathered{}
	byTask := map[string][]string{}
	for _, path := range found {
		id := strings.TrimPrefix(filepath.Base(filepath.Dir(path)), TaskDirPrefix)
		if _, ok := plan.Task(id); !ok {
			g.Refused = append(g.Refused, Refusal{Path: path, Task: id, Reason: fmt.Sprintf("task %q is not in the plan", id)})
			continue
		}
		byTask[id] = append(byTask[id], path)
	}
	for _, t := range plan.Tasks {
		paths := byTask[t.ID]
		switch len(paths) {
		case 0:
			g.Missing = append(g.Missing, t.ID)
			g.Results = append(g.Results, failed(plan, t, "task left no result: its job failed or its artifact is missing"))
			continue
		case 1:
		default:
			reason := fmt.Sprintf("%d results for one task; none is taken", len(paths))
			for _, p := range paths {
				g.Refused = append(g.Refused, Refusal{Path: p, Task: t.ID, Reason: reason})
			}
			g.Results = append(g.Results, failed(plan, t, "result refused: "+reason))
			continue
		}
		r, esc, files, report, patch, err := load(ctx, plan, t, paths[0])
		if err != nil {
			g.Refused = append(g.Refused, Refusal{Path: paths[0], Task: t.ID, Reason: err.Error()})
			g.Results = append(g.Results, failed(plan, t, "result refused: "+err.Error()))
			continue
		}
		g.Results = append(g.Results, r)
		if patch != nil {
			if g.patches == nil {
				g.patches = map[string][]byte{}
			}
			g.patches[r.Agent] = patch
		}
		g.addEscalations(plan.RunID, r, esc)
		g.addFiles(t.ID, files)
		if report != nil {
			if g.Reports == nil {
				g.Reports = map[string]string{}
			}
			g.Reports[r.Agent] = *report
		}
	}
	return g, nil
}

// addEscalations takes a task's escalation entries, numbered on from the
// tasks before it as one watcher would have numbered them (<run>-e<N>);
// r's decision follows its escalation's new id.
func (g *Gathered) addEscalations(runID string, r *executor.Result, esc []ledger.Draft) {
	for _, d := range esc {
		id := fmt.Sprintf("%s-e%d", runID, len(g.Escalations)+1)
		if old, ok := d.Fields["escalation"].(string); ok && old != id {
			fields := make(map[string]any, len(d.Fields))
			for k, v := range d.Fields {
				fields[k] = v
			}
			fields["escalation"] = id
			d.Fields = fields
			if r.DecisionID == old {
				r.DecisionID = id
			}
		}
		g.Escalations = append(g.Escalations, d)
	}
}

// addFiles takes task's agent files, in path order; a path an earlier
// task already left is refused (in one job the two agents would have
// raced for it), and so is every file from the first that would take the
// run's past datalake.MaxAgentFiles or MaxAgentBytes on, as one job's
// run keeps its agents' files, with one refusal for the task.
func (g *Gathered) addFiles(task string, files []agentFile) {
	slices.SortFunc(files, func(a, b agentFile) int { return strings.Compare(a.rel, b.rel) })
	if g.taken == nil {
		g.taken = map[string]bool{}
	}
	var over []agentFile
	for _, f := range files {
		if g.taken[f.rel] {
			g.Refused = append(g.Refused, Refusal{Path: f.path(), Task: task,
				Reason: fmt.Sprintf("agent file %s was left by an earlier task too; the first is kept", f.rel)})
			continue
		}
		if g.full = g.full || len(g.files) == datalake.MaxAgentFiles || g.fileBytes+f.size > datalake.MaxAgentBytes; g.full {
			over = append(over, f)
			continue
		}
		g.taken[f.rel] = true
		g.files, g.fileBytes = append(g.files, f), g.fileBytes+f.size
	}
	if len(over) > 0 {
		g.Refused = append(g.Refused, Refusal{Path: over[0].path(), Task: task,
			Reason: fmt.Sprintf("%d agent files of the task, this one and those after it in path order, are past what the agents of a run may leave: %d files and %d MiB in all",
				len(over), datalake.MaxAgentFiles, datalake.MaxAgentBytes>>20)})
	}
}

// findResults lists the result.json files of task folders below from, at
// most maxDepth levels down, sorted. Symbolic links are not followed.
func findResults(from string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == from && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return err
		}
		rel, _ := filepath.Rel(from, path)
		depth := 0
		if rel != "." {
			depth = strings.Count(rel, string(filepath.Separator)) + 1
		}
		if d.IsDir() {
			if depth >= maxDepth {
				return fs.SkipDir
			}
			return nil
		}
		if d.Name() == ResultFile && strings.HasPrefix(filepath.Base(filepath.Dir(path)), TaskDirPrefix) {
			out = append(out, path)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the task results in %s: %w", from, err)
	}
	slices.Sort(out)
	return out, nil
}

// load reads and verifies one task result; the error says why it is refused.
func load(ctx context.Context, plan *Plan, t Task, path string) (*executor.Result, []ledger.Draft, []agentFile, *string, []byte, error) {
	dir := filepath.Dir(path)
	data, err := beneath.Read(dir, ResultFile, maxResultBytes)
	if err != nil {
		return nil, nil, nil, nil, nil, fmt.Errorf("unreadable: %w", err)
	}
	var tr TaskResult
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&tr); err != nil {
		return nil, nil, nil, nil, nil, fmt.Errorf("not a task result: %w", err)
	}
	switch {
	case tr.RunID != plan.RunID:
		return nil, nil, nil, nil, nil, fmt.Errorf("foreign: run_id %q is not the plan's %q", tr.RunID, plan.RunID)
	case tr.IntentSHA256 != plan.IntentSHA256:
		return nil, nil, nil, nil, nil, fmt.Errorf("foreign: intent_sha256 %s is not the plan's %s", tr.IntentSHA256, plan.IntentSHA256)
	case tr.ConfigSHA256 != plan.ConfigSHA256:
		return nil, nil, nil, nil, nil, fmt.Errorf("foreign: config_sha256 %s is not the plan's %s", tr.ConfigSHA256, plan.ConfigSHA256)
	case tr.Task != t.ID:
		return nil, nil, nil, nil, nil, fmt.Errorf("tampered: the result is task %q's, in task %q's folder", tr.Task, t.ID)
	case tr.Result == nil:
		return nil, nil, nil, nil, nil, errors.New("not a task result: no result")
	case tr.Agent != t.Agent || tr.Result.Agent != t.ResultName():
		return nil, nil, nil, nil, nil, fmt.Errorf("tampered: the result is %q's, but task %q is %q's", tr.Result.Agent, t.ID, t.ResultName())
	}
	if got := verdictNames(tr.Checks.Verdicts); !slices.Equal(got, plan.Constraints) && !unchecked(tr) {
		return nil, nil, nil, nil, nil, fmt.Errorf("tampered: checked constraints %v, but the plan's are %v", got, plan.Constraints)
	}
	output, err := beneath.Read(dir, OutputFile, outputLimit(plan))
	if err != nil {
		return nil, nil, nil, nil, nil, fmt.Errorf("unreadable output: %w", err)
	}
	if sum := executor.SHA256Hex(string(output)); sum != tr.OutputSHA256 || sum != tr.Result.OutputSHA256 {
		return nil, nil, nil, nil, nil, fmt.Errorf("tampered: %s hashes to %s, but the result says %s", OutputFile, sum, tr.OutputSHA256)
	}
	for _, e := range tr.Escalations {
		if e.Run != plan.RunID || e.Kind != ledger.KindEscalation {
			return nil, nil, nil, nil, nil, fmt.Errorf("tampered: an escalation of run %q, kind %q", e.Run, e.Kind)
		}
	}
	files, err := verifyFiles(dir, tr.Files)
	if err != nil {
		return nil, nil, nil, nil, nil, err
	}
	var report *string
	if tr.ReportSHA256 != "" {
		data, err := beneath.Read(dir, ReportFile, outputLimit(plan))
		if err != nil {
			return nil, nil, nil, nil, nil, fmt.Errorf("unreadable report: %w", err)
		}
		if sum := executor.SHA256Hex(string(data)); sum != tr.ReportSHA256 {
			return nil, nil, nil, nil, nil, fmt.Errorf("tampered: %s hashes to %s, but the result says %s", ReportFile, sum, tr.ReportSHA256)
		}
		text := string(data)
		report = &text
	}
	patch, err := loadPatch(plan, dir, tr.Result)
	if err != nil {
		return nil, nil, nil, nil, nil, err
	}
	if err := admitted(ctx, plan, tr.Result, tr.Checks, patch); err != nil {
		return nil, nil, nil, nil, nil, err
	}
	r := tr.Result
	r.Output = string(output)
	r.Checks = tr.Checks
	if r.Checks.Invariants == nil {
		r.Checks.Invariants = []string{}
	}
	return r, tr.Escalations, files, report, patch, nil
}

// loadPatch reads and verifies the change.patch of a result with a code
// change (nil when it has none): it must hash to the change's
// patch_sha256, and the change must start from the plan's commit.
func loadPatch(plan *Plan, dir string, r *executor.Result) ([]byte, error) {
	ch := r.Change
	if ch == nil || ch.Refused != "" || len(ch.Files) == 0 {
		return nil, nil
	}
	if ch.Base != plan.Commit {
		return nil, fmt.Errorf("foreign: the change starts from commit %s, but the plan's changes start from %q", ch.Base, plan.Commit)
	}
	data, err := beneath.Read(dir, PatchFile, maxPatchBytes)
	if err != nil {
		return nil, fmt.Errorf("unreadable change: %w", err)
	}
	if sum := executor.SHA256Hex(string(data)); sum != ch.PatchSHA256 {
		return nil, fmt.Errorf("tampered: %s hashes to %s, but the result says %s", PatchFile, sum, ch.PatchSHA256)
	}
	return data, nil
}

// admitted re-judges a change whose "changes" verdict passed in its task
// by the plan's changes: policy, from the paths the patch itself touches
// rather than the result's own list of files, which must agree. The task
// judged it after its agent had stopped, but the command checks that ran
// there afterwards run code the agent wrote, and whatever they leave
// running can rewrite the task folder before its upload: a forged
// verdict is refused here, never delivered.
func admitted(ctx context.Context, plan *Plan, r *executor.Result, checks check.Evaluation, patch []byte) error {
	passed := false
	for _, v := range checks.Verdicts {
		if v.Constraint == worktree.VerdictName && v.Status == status.Passed {
			passed = true
		}
	}
	if !passed {
		return nil
	}
	if patch == nil {
		return fmt.Errorf("tampered: the %q constraint passed, but the result has no change", worktree.VerdictName)
	}
	paths, err := worktree.PatchPaths(ctx, "", patch)
	if err != nil {
		return fmt.Errorf("tampered: %s: %w", PatchFile, err)
	}
	listed := make([]string, len(r.Change.Files))
	for i, f := range r.Change.Files {
		listed[i] = f.Path
	}
	slices.Sort(paths)
	slices.Sort(listed)
	if !slices.Equal(paths, listed) {
		return fmt.Errorf("tampered: %s touches %v, but the result lists %v", PatchFile, paths, listed)
	}
	ch := *r.Change
	ch.Patch = patch
	policy := worktree.PolicyOf(plan.Config.Settings.Changes)
	policy.Own = plan.Own
	if v := policy.Admit(ch); !v.Admissible {
		return fmt.Errorf("tampered: the %q constraint passed in the task, but the change is not admissible: %s", worktree.VerdictName, v.Reason)
	}
	return nil
}

// outputLimit is the most an output.md (or report.md) may hold: the
// plan's executor.max-output, which bounded the agent's output in its task
// as it bounds it in a one-job run.
func outputLimit(plan *Plan) int64 {
	if s := plan.Config.Settings; s != nil && s.Executor.MaxOutput > 0 {
		return int64(s.Executor.MaxOutput)
	}
	return unsetMaxOutput
}

// unchecked reports whether tr is a result no check ran on: an agent
// that failed leaves no output to check, so nothing may pass.
func unchecked(tr TaskResult) bool {
	c := tr.Checks
	return len(c.Verdicts) == 0 && len(c.Invariants) == 0 && !c.Admissible && tr.Result.Status != status.Succeeded
}

func verdictNames(vs []check.Verdict) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Constraint
	}
	return out
}

// failed is the result of a planned task that has no usable result.
func failed(plan *Plan, t Task, why string) *executor.Result {
	r := &executor.Result{
		Agent: t.ResultName(), Status: status.Failed, OutputSHA256: executor.SHA256Hex(""),
		Error: why, Class: "fatal", Reason: "matrix_task",
		Attempts: nil, Checks: check.Evaluation{Invariants: []string{}},
		// What its job spent is not known here (it may have run and
		// spent before it failed, or left a result not taken): unknown,
		// never 0, and charged as such (charge).
		Usage: agent.UnknownUsage,
		Spent: &cost.Spend{Usage: agent.UnknownUsage},
	}
	if plan.Config.Settings != nil {
		ac := plan.Config.Settings.Agents[t.Agent]
		r.Provider, r.Model = ac.Provider, ac.Model
	}
	return r
}
