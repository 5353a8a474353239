package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/optr-dev/optr/internal/checkpoint"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/escalation"
	"github.com/optr-dev/optr/internal/ledger"
	"github.com/optr-dev/optr/internal/status"
)

// demoSpec is a run of pipeline from the offline demo config file, with the
// repository root as the workspace (the demo's scripts are relative to it)
// and the datalake in a temporary folder.
func demoSpec(t *testing.T, file, pipeline, runID string) Spec {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(filepath.Join(root, "testdata/demo", file))
	if err != nil {
		t.Fatal(err)
	}
	lake := filepath.Join(t.TempDir(), ".optr")
	return Spec{
		Config: cfg, Workflow: "demo", RunID: runID, Intent: "How do ledgers stay honest?", Pipeline: pipeline,
		Datalake: lake, LedgerPath: filepath.Join(lake, "ledger.jsonl"), Dir: root,
	}
}

func demoDeps() Deps {
	return Deps{Environ: []string{"PATH=" + os.Getenv("PATH")}, Getenv: func(string) string { return "" }}
}

func ledgerEntries(t *testing.T, path string) []ledger.Entry {
	t.Helper()
	var out []ledger.Entry
	if err := ledger.ScanFile(path, func(e ledger.Entry) error { out = append(out, e); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

// The demo's delegation runs through the driver: the barrier decides the
// status, OVERVIEW.md is the result, the spec folder is recorded with the
// run, and the run entry carries the §4.9 members.
func TestDelegateModeThroughTheDriver(t *testing.T) {
	t.Parallel()
	spec := demoSpec(t, "optr.yml", "research", "delegate-1")
	var recorded []string
	rec := recorderFunc(func(rep *Outcome, drafts []ledger.Draft, files []string) (Recorded, error) {
		recorded = files
		return FileRecorder{Path: rep.Spec.LedgerPath}.Record(t.Context(), rep, drafts, files)
	})
	rep, err := (&Driver{Deps: demoDeps(), Recorder: rec}).Run(t.Context(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Status != status.Completed || rep.Selected != "" || !strings.Contains(rep.Message, "warning") {
		t.Fatalf("status %s, selected %q, message %q", rep.Status, rep.Selected, rep.Message)
	}
	overview := filepath.Join(spec.Datalake, "specs", "001_demo", "OVERVIEW.md")
	if rep.ResultPath != spec.DisplayPath(overview) {
		t.Errorf("result path %q, want %q", rep.ResultPath, spec.DisplayPath(overview))
	}
	if !slices.Contains(recorded, overview) {
		t.Errorf("OVERVIEW.md is not among the recorded files: %v", recorded)
	}
	if !strings.Contains(rep.Details, "Research complete: 3/4 topics (75% success)") {
		t.Errorf("details:\n%s", rep.Details)
	}
	es := ledgerEntries(t, spec.LedgerPath)
	run := es[len(es)-1]
	if run.Kind != ledger.KindRun || run.Fields["mode"] != config.ModeDelegate || run.Fields["spec"] != "specs/001_demo" ||
		fmt.Sprint(run.Fields["success_rate"]) != "0.75" || run.Fields["status"] != "completed" {
		t.Fatalf("run entry %+v", run.Fields)
	}
	if reports, _ := run.Fields["reports"].([]any); len(reports) != 4 {
		t.Errorf("reports %v", run.Fields["reports"])
	}
	errs, err := os.ReadFile(filepath.Join(spec.Datalake, "errors.jsonl"))
	if err != nil || strings.Count(string(errs), "\n") != 1 || !strings.Contains(string(errs), `"command":"delegate"`) {
		t.Errorf("errors.jsonl holds not exactly the one delegate failure (%v):\n%s", err, errs)
	}
}

// The demo's stage chain runs through the driver: the last stage is π*,
// its output result.md, and the run entry lists every stage.
func TestStagesModeThroughTheDriver(t *testing.T) {
	t.Parallel()
	spec := demoSpec(t, "stages.yml", "decide", "stages-1")
	rep, err := (&Driver{Deps: demoDeps()}).Run(t.Context(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Status != status.Completed || rep.Selected != "mind" {
		t.Fatalf("status %s, selected %q: %s", rep.Status, rep.Selected, rep.Message)
	}
	result, err := os.ReadFile(filepath.Join(rep.RunDir, "result.md"))
	if err != nil || string(result) != rep.Results[len(rep.Results)-1].Output {
		t.Errorf("result.md (%v) is not the last stage's output", err)
	}
	es := ledgerEntries(t, spec.LedgerPath)
	run := es[len(es)-1]
	list, _ := run.Fields["stages"].([]any)
	if run.Fields["mode"] != config.ModeStages || run.Fields["pipeline"] != "decide" || len(list) != 4 {
		t.Fatalf("run entry %+v", run.Fields)
	}
	if !strings.Contains(rep.Details, "restarted 1×") {
		t.Errorf("the stage checklist does not show execute's restart:\n%s", rep.Details)
	}
}

// A stage that keeps crashing escalates and, with on-no-admissible:
// checkpoint, pauses the run at a HICCUP checkpoint; the escalation is in
// the ledger before the checkpoint, and no later stage ran.
func TestStagesModeEscalatesAndPauses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg, err := config.Parse("optr.yml", []byte(`agents:
  first: { provider: command, run: [sh, -c, "cat >/dev/null; echo '<<<OPTR:HANDOFF:second>>>'"] }
  second: { provider: command, run: [sh, -c, "exit 3"] }
  third: { provider: command, run: [sh, -c, "touch $OPTR_OUTPUT_DIR/ran"] }
selection: { on-no-admissible: checkpoint }
pipelines:
  chain: { mode: stages, agents: [first, second, third], restarts: 1, restart-backoff: 1ms }
`))
	if err != nil {
		t.Fatal(err)
	}
	lake := filepath.Join(dir, ".optr")
	spec := Spec{Config: cfg, Workflow: "w", RunID: "s-2", Intent: "go", Pipeline: "chain",
		Datalake: lake, LedgerPath: filepath.Join(lake, "ledger.jsonl"), Dir: dir}
	rep, err := (&Driver{Deps: demoDeps()}).Run(t.Context(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Status != status.Paused || rep.Trigger != checkpoint.TriggerHiccup {
		t.Fatalf("status %s trigger %s: %s", rep.Status, rep.Trigger, rep.Message)
	}
	var kinds []string
	for _, e := range ledgerEntries(t, spec.LedgerPath) {
		kinds = append(kinds, e.Kind)
	}
	if got := strings.Join(kinds, ","); got != "escalation,checkpoint" {
		t.Errorf("ledger kinds %s", got)
	}
	if _, err := os.Stat(filepath.Join(rep.RunDir, datalake.DirAgentFiles, "ran")); err == nil {
		t.Error("the third stage ran after the second failed")
	}
	// The escalation is recorded as a select run's are: the crashed stage
	// failed on the blackboard with its error and attempts, decision.md,
	// watcher-log.md and a ceo-inbox file.
	coord := filepath.Join(rep.RunDir, datalake.DirCoord)
	board, err := escalation.LoadBlackboard(filepath.Join(coord, escalation.FileBlackboard))
	if err != nil {
		t.Fatal(err)
	}
	if a := board.Agent("second"); a.Status != escalation.StatusFailed || !strings.Contains(a.Error, "exit") {
		t.Errorf("blackboard: stage second is %q, error %q", a.Status, a.Error)
	}
	if tk := board.TaskFor("second"); tk == nil || tk.Status != escalation.TaskFailed || tk.Attempts != 2 {
		t.Errorf("blackboard: the task of stage second is %+v", tk)
	}
	for _, f := range []string{escalation.FileDecision, escalation.FileWatcherLog} {
		data, err := os.ReadFile(filepath.Join(coord, f))
		if err != nil || !strings.Contains(string(data), "escalate_ceo") {
			t.Errorf("%s: %v\n%s", f, err, data)
		}
	}
	if inbox, _ := os.ReadDir(filepath.Join(rep.RunDir, escalation.DirCEOInbox)); len(inbox) != 1 {
		t.Errorf("ceo-inbox holds %d files, want 1", len(inbox))
	}

	// Resumed with Skip, the run is recorded as a stages run still.
	cp, err := checkpoint.Load(datalake.Open(lake).CheckpointPath(rep.CheckpointID))
	if err != nil {
		t.Fatal(err)
	}
	dec, err := checkpoint.Decide(cp, 2, "ada", "", checkpoint.SourceCLI)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (&Driver{Deps: demoDeps()}).Answer(t.Context(), cp, dec, spec); err != nil {
		t.Fatal(err)
	}
	es := ledgerEntries(t, spec.LedgerPath)
	run := es[len(es)-1]
	if list, _ := run.Fields["stages"].([]any); run.Kind != ledger.KindRun || run.Fields["mode"] != config.ModeStages || len(list) != 3 {
		t.Fatalf("resumed run entry %s %v", run.Kind, run.Fields)
	}
}

// recorderFunc is a Recorder that is a function (for tests that watch what
// is recorded).
type recorderFunc func(rep *Outcome, drafts []ledger.Draft, files []string) (Recorded, error)

func (f recorderFunc) Record(_ context.Context, rep *Outcome, drafts []ledger.Draft, files []string) (Recorded, error) {
	return f(rep, drafts, files)
}

// A select run and a delegate run append errors.jsonl lines of one shape
// (§4.9 step 8's: timestamp, workflow_id, command, error_type, message,
// details with recovery_hint), each failed agent's line naming the agent
// and its error class (issue 22 item 8: select wrote a shape of its own).
func TestErrorLinesHaveOneShape(t *testing.T) {
	t.Parallel()
	sel := demoSpec(t, "optr.yml", "", "select-1")
	if _, err := (&Driver{Deps: demoDeps()}).Run(t.Context(), sel); err != nil {
		t.Fatal(err)
	}
	del := demoSpec(t, "optr.yml", "research", "delegate-1")
	del.Datalake, del.LedgerPath = sel.Datalake, sel.LedgerPath
	if _, err := (&Driver{Deps: demoDeps()}).Run(t.Context(), del); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(sel.Datalake, "errors.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	required := []string{"timestamp", "workflow_id", "command", "error_type", "message", "details"}
	allowed := append([]string{"agent", "class"}, required...)
	commands := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		for _, k := range required {
			if _, ok := m[k]; !ok {
				t.Errorf("line lacks %q: %s", k, line)
			}
		}
		for k := range m {
			if !slices.Contains(allowed, k) {
				t.Errorf("line has %q, which §4.9's shape does not: %s", k, line)
			}
		}
		if d, _ := m["details"].(map[string]any); d["recovery_hint"] == "" || d["recovery_hint"] == nil {
			t.Errorf("line has no recovery hint: %s", line)
		}
		if _, err := time.Parse(time.RFC3339, fmt.Sprint(m["timestamp"])); err != nil {
			t.Errorf("timestamp: %v", err)
		}
		cmd := fmt.Sprint(m["command"])
		commands[cmd] = true
		if cmd == config.ModeSelect && (m["workflow_id"] != "select-1" || m["agent"] != "broken" || m["class"] == nil) {
			t.Errorf("the select line does not name the run, the agent and its class: %s", line)
		}
	}
	if !commands[config.ModeSelect] || !commands[config.ModeDelegate] {
		t.Errorf("errors.jsonl has lines of %v, want select and delegate:\n%s", commands, data)
	}
}
