package matrix

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/check"
	"github.com/optr-dev/optr/internal/checkpoint"
	"github.com/optr-dev/optr/internal/cost"
	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/pipeline"
	"github.com/optr-dev/optr/internal/secretscan/tokentest"
	"github.com/optr-dev/optr/internal/status"
)

// TestGatherIsTheOneJobRun runs the same config once in one job and once
// as plan → tasks → gather: the ledger entry (apart from times and the
// scores made of them), the run's files and π* must be the same.
func TestGatherIsTheOneJobRun(t *testing.T) {
	t.Parallel()
	cfg := parseConfig(t, demoConfig)
	plan, ws := newPlan(t, cfg)

	one := filepath.Join(t.TempDir(), ".optr")
	oneSpec, err := plan.Spec(one, filepath.Join(one, "ledger.jsonl"), ws)
	if err != nil {
		t.Fatal(err)
	}
	oneRep, err := (&pipeline.Driver{Deps: testDeps()}).Run(t.Context(), oneSpec)
	if err != nil {
		t.Fatal(err)
	}

	out := filepath.Join(ws, "optr-tasks")
	runTasks(t, plan, ws, out)
	g, err := Gather(t.Context(), plan, downloaded(t, out, false))
	if err != nil {
		t.Fatal(err)
	}
	mx := filepath.Join(t.TempDir(), ".optr")
	mxSpec, err := plan.Spec(mx, filepath.Join(mx, "ledger.jsonl"), ws)
	if err != nil {
		t.Fatal(err)
	}
	mxRep, err := (&pipeline.Driver{Deps: testDeps(), Mode: GatherMode{Mode: plan.Mode, Gathered: g}}).Run(t.Context(), mxSpec)
	if err != nil {
		t.Fatal(err)
	}

	if mxRep.Status != status.Completed || mxRep.Selected != "good" || oneRep.Selected != mxRep.Selected {
		t.Fatalf("matrix run %s π*=%q, one-job run π*=%q", mxRep.Status, mxRep.Selected, oneRep.Selected)
	}
	oneLedger := comparable(t, one)
	if last := oneLedger[len(oneLedger)-1]; last["kind"] != "run" || len(last["results"].([]any)) != 3 {
		t.Fatalf("one-job ledger = %v, want a run entry with three results", oneLedger)
	}
	if diff := cmp.Diff(oneLedger, comparable(t, mx)); diff != "" {
		t.Errorf("ledger (-one job +matrix):\n%s", diff)
	}
	if diff := cmp.Diff(runFiles(t, oneRep), runFiles(t, mxRep)); diff != "" {
		t.Errorf("run files (-one job +matrix):\n%s", diff)
	}
	oneResult, _ := os.ReadFile(oneRep.Path("result.md"))
	mxResult, _ := os.ReadFile(mxRep.Path("result.md"))
	if string(oneResult) != string(mxResult) || len(mxResult) == 0 {
		t.Errorf("result.md: one job %q, matrix %q", oneResult, mxResult)
	}
}

// comparable reads the ledger of lake without what measured time makes
// differ between two runs: timestamps, durations, scores and the hashes
// over them.
func comparable(t *testing.T, lake string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(lake, "ledger.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	for dec.More() {
		var e map[string]any
		if err := dec.Decode(&e); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"time", "hash", "prev"} {
			delete(e, k)
		}
		results, _ := e["results"].([]any)
		for _, r := range results {
			for _, k := range []string{"ttv_ms", "exec_ms", "score"} {
				delete(r.(map[string]any), k)
			}
		}
		out = append(out, e)
	}
	return out
}

func runFiles(t *testing.T, rep *pipeline.Outcome) []string {
	t.Helper()
	run, err := datalake.Open(rep.Spec.Datalake).OpenRun(rep.Spec.Workflow, rep.Spec.RunID)
	if err != nil {
		t.Fatal(err)
	}
	files, err := run.Files()
	if err != nil {
		t.Fatal(err)
	}
	var rel []string
	for _, f := range files {
		r, _ := filepath.Rel(rep.RunDir, f)
		if r = filepath.ToSlash(r); !strings.HasPrefix(r, ".coordination/") { // the watcher's own files stay with the task whose agent failed
			rel = append(rel, r)
		}
	}
	slices.Sort(rel)
	return rel
}

// signedConfig has two command agents that answer in text; the hard
// command check reads the answer on its stdin, and only second's passes.
const signedConfig = `agents:
  first:  { provider: command, run: [sh, -c, "cat >/dev/null; printf 'draft\n'"] }
  second: { provider: command, run: [sh, -c, "cat >/dev/null; printf 'signed off\n'"] }
constraints:
  signed: { check: command, run: [grep, -q, "signed off"] }
selection: { on-no-admissible: fail }
`

// Without code changes the gather runs π*'s command checks again on its
// output (issue 27 item 3): first's result.json was rewritten to say its
// answer passed the hard command check, and to look fastest; the gather
// finds it failed and selects second, which it checked the same way.
func TestGatherRerunsCommandChecksOnText(t *testing.T) {
	t.Parallel()
	rep := gatherForged(t, signedConfig, "first", func(tr *TaskResult) {
		forgePassed(tr, "signed")
		tr.Result.TTVms, tr.Result.ExecMS = 0, 0 // the fastest, and first by name on a tie
	})
	if rep.Status != status.Completed || rep.Selected != "second" {
		t.Fatalf("status %s, selected %q: %s", rep.Status, rep.Selected, rep.Message)
	}
	first := rep.Result("first").Checks
	if first.Admissible || len(first.Verdicts) != 1 || !strings.HasPrefix(first.Verdicts[0].Reason, "the task recorded passed, the gather found failed: command grep exited with status 1") {
		t.Errorf("first's forged verdicts were not overruled: %+v", first)
	}
	if second := rep.Result("second").Checks; !second.Admissible {
		t.Errorf("second's honest result is not admissible: %+v", second)
	}
}

// proceedConfig has two command agents whose answers both fail the hard
// command check; second's passes one soft command check of two, first's
// none. Only the checks score: nothing is admissible, second scores best.
const proceedConfig = `agents:
  first:  { provider: command, run: [sh, -c, "cat >/dev/null; printf 'draft\n'"] }
  second: { provider: command, run: [sh, -c, "cat >/dev/null; printf 'please\n'"] }
constraints:
  signed: { check: command, run: [grep, -q, "signed off"] }
  polite: { check: command, run: [grep, -q, "please"], hard: false }
  thanks: { check: command, run: [grep, -q, "thank you"], hard: false }
selection:
  on-no-admissible: checkpoint
  weights: { invariants: 100, ttv: 0, exec: 0, preference: 0 }
`

// When nothing is admissible the gather runs the command checks of the
// result Proceed at the NO_ADMISSIBLE checkpoint would deliver, the
// best-scoring one (issue 27 item 3): first's result.json was rewritten to
// say it passed both soft checks, so that it scored best; the gather finds
// it passed none, and second, which it checked the same way, is what the
// checkpoint offers.
func TestGatherRerunsCommandChecksOfWhatProceedDelivers(t *testing.T) {
	t.Parallel()
	rep := gatherForged(t, proceedConfig, "first", func(tr *TaskResult) {
		forgePassed(tr, "polite")
		forgePassed(tr, "thanks")
	})
	if rep.Status != status.Paused || rep.Trigger != checkpoint.TriggerNoAdmissible || rep.Selection.Best != "second" {
		t.Fatalf("status %s, trigger %s, best %q, want paused at NO_ADMISSIBLE with second best: %s", rep.Status, rep.Trigger, rep.Selection.Best, rep.Message)
	}
	for _, v := range rep.Result("first").Checks.Verdicts {
		if v.Constraint != "signed" && !strings.HasPrefix(v.Reason, "the task recorded passed, the gather found failed: ") {
			t.Errorf("first's forged %s verdict was not overruled: %+v", v.Constraint, v)
		}
	}
	second := rep.Result("second").Checks.Verdicts
	if i := slices.IndexFunc(second, func(v check.Verdict) bool { return v.Constraint == "polite" }); i < 0 || second[i].Status != status.Passed {
		t.Errorf("second's verdicts = %+v, want polite passed", second)
	}
}

// cheaperConfig has two command agents that answer in text; only
// alpha's answer passes the hard command check. Only the checks score, and
// equal scores go to the cheaper result.
const cheaperConfig = `agents:
  alpha: { provider: command, run: [sh, -c, "cat >/dev/null; printf 'signed off\n'"] }
  beta:  { provider: command, run: [sh, -c, "cat >/dev/null; printf 'draft\n'"] }
constraints:
  signed: { check: command, run: [grep, -q, "signed off"] }
selection:
  on-no-admissible: fail
  prefer: cheaper
  weights: { invariants: 100, ttv: 0, exec: 0, preference: 0 }
`

// The gather confirms what the driver will deliver, and so weighs what
// each result cost before it chooses, as the driver does: beta's
// result.json was rewritten to say its answer passed the hard command
// check, which ties it with alpha, and it cost less than alpha. The gather
// runs beta's check again first, finds it failed, and delivers alpha,
// checked the same way; the run's total is the tasks' spend. A gather that
// chose before charging the tasks' spend would see no cost, confirm alpha
// alone and leave beta's forged verdict standing.
func TestGatherConfirmsTheCheaperOfATie(t *testing.T) {
	t.Parallel()
	spent := func(usd float64) *cost.Spend {
		return &cost.Spend{Usage: agent.Usage{InputTokens: 100, OutputTokens: 10}, Requests: 1, USD: usd}
	}
	rep := gatherEdited(t, cheaperConfig, map[string]func(*TaskResult){
		"alpha": func(tr *TaskResult) { tr.Result.Spent = spent(0.25) },
		"beta": func(tr *TaskResult) {
			tr.Result.Spent = spent(0.01)
			forgePassed(tr, "signed")
		},
	})
	if rep.Status != status.Completed || rep.Selected != "alpha" {
		t.Fatalf("status %s, selected %q: %s", rep.Status, rep.Selected, rep.Message)
	}
	beta := rep.Result("beta").Checks
	if beta.Admissible || len(beta.Verdicts) != 1 || !strings.HasPrefix(beta.Verdicts[0].Reason, "the task recorded passed, the gather found failed: ") {
		t.Errorf("beta's forged verdict was not overruled: %+v", beta)
	}
	if usd, ok := rep.Total().Cost(); !ok || math.Abs(usd-0.26) > 1e-12 {
		t.Errorf("run total %+v, want the tasks' $0.26", rep.Total())
	}
}

// The gather judges every result with the threat scan of detection.all
// before it chooses what to confirm, as the driver does before it
// chooses π*: alpha's answer passes the hard command check but carries a
// token, so it is blocked; beta's result.json was rewritten to say its
// answer passed. The gather confirms beta, finds its check failed, and
// delivers nothing. A gather that scanned only after it confirmed would
// confirm alpha, and the driver would then deliver beta's forged answer.
func TestGatherScansBeforeItConfirms(t *testing.T) {
	t.Parallel()
	config := fmt.Sprintf(`agents:
  alpha: { provider: command, run: [sh, -c, "cat >/dev/null; printf 'signed off: _authToken=%s\n'"] }
  beta:  { provider: command, run: [sh, -c, "cat >/dev/null; printf 'draft\n'"] }
constraints:
  signed: { check: command, run: [grep, -q, "signed off"] }
selection: { on-no-admissible: fail }
detection: { all: true, on-finding: block }
`, tokentest.NPMToken(4))
	rep := gatherForged(t, config, "beta", func(tr *TaskResult) { forgePassed(tr, "signed") })
	if rep.Status != status.Failed || rep.Selected != "" {
		t.Fatalf("status %s, selected %q, want nothing delivered: %s", rep.Status, rep.Selected, rep.Message)
	}
	alpha := rep.Result("alpha").Checks
	if alpha.Admissible || !slices.Contains(alpha.HardFailed, pipeline.DetectionConstraint) {
		t.Errorf("alpha's token was not found: %+v", alpha)
	}
	beta := rep.Result("beta").Checks
	if i := slices.IndexFunc(beta.Verdicts, func(v check.Verdict) bool { return v.Constraint == "signed" }); beta.Admissible || i < 0 ||
		!strings.HasPrefix(beta.Verdicts[i].Reason, "the task recorded passed, the gather found failed: ") {
		t.Errorf("beta's forged verdict was not overruled: %+v", beta)
	}
}

// gatherForged runs the tasks of a text run of config, rewrites agent's
// result.json with forge, gathers them (nothing may be refused) and
// drives the gathered run to its report.
func gatherForged(t *testing.T, config, agent string, forge func(*TaskResult)) *pipeline.Outcome {
	t.Helper()
	return gatherEdited(t, config, map[string]func(*TaskResult){agent: forge})
}

// gatherEdited runs the tasks of a text run of config, rewrites the
// result.json of each agent edits names with its edit, gathers them
// (nothing may be refused) and drives the gathered run to its report.
func gatherEdited(t *testing.T, config string, edits map[string]func(*TaskResult)) *pipeline.Outcome {
	t.Helper()
	ws := t.TempDir()
	plan, err := makePlan(t, parseConfig(t, config), ws, "")
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	runTasks(t, plan, ws, out)
	for agent, edit := range edits {
		editResult(t, out, agent, edit)
	}
	g, err := Gather(t.Context(), plan, out)
	if err != nil || len(g.Refused) > 0 {
		t.Fatalf("Gather = %v, refused %v", err, g.Refused)
	}
	lake := filepath.Join(t.TempDir(), ".optr")
	spec, err := plan.Spec(lake, filepath.Join(lake, "ledger.jsonl"), ws)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := (&pipeline.Driver{Deps: testDeps(), Mode: GatherMode{Mode: plan.Mode, Gathered: g}}).Run(t.Context(), spec)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}
