package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/optr-dev/optr/internal/check"
	"github.com/optr-dev/optr/internal/checkpoint"
	"github.com/optr-dev/optr/internal/cost"
	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/detect"
	"github.com/optr-dev/optr/internal/escalation"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/progress"
	"github.com/optr-dev/optr/internal/selection"
	"github.com/optr-dev/optr/internal/spool"
	"github.com/optr-dev/optr/internal/status"
)

// ResumeState is everything a paused run needs to continue later, in
// another process or another workflow run. It travels inside the saved
// checkpoint, but for the agents' outputs, which may be tens of MiB each:
// those are files of the run (architecture §4.4), named in Outputs by path
// and hash, read back — from the Store when this checkout lacks them —
// and verified on resume.
type ResumeState struct {
	Workflow    string                      `json:"workflow"`
	RunID       string                      `json:"run"`
	Intent      string                      `json:"intent"`
	Commit      string                      `json:"commit,omitempty"`
	Pipeline    string                      `json:"pipeline,omitempty"`
	Constraints []ConstraintInfo            `json:"constraints"`
	Results     []*executor.Result          `json:"results"`
	Checks      map[string]check.Evaluation `json:"checks"`
	Selection   selection.Result            `json:"selection"`
	Message     string                      `json:"message,omitempty"`
	Started     time.Time                   `json:"started"`
	// Mode, ModeFields, ExtraFiles and Details are the mode's part of the
	// report (a stage chain paused at a HICCUP keeps its stages member).
	Mode        string         `json:"mode,omitempty"`
	ModeFields  map[string]any `json:"mode_fields,omitempty"`
	ExtraFiles  []string       `json:"extra_files,omitempty"`
	Details     string         `json:"details,omitempty"`
	DetailsText string         `json:"details_text,omitempty"`
	// Retry is where Proceed carries the run on, when its mode does so
	// itself (a stage chain's HICCUP); nil when Proceed selects.
	Retry *Retry `json:"retry,omitempty"`
	// Checkpoints counts the checkpoints the run raised, this one
	// included (0: one, saved before runs counted them).
	Checkpoints int `json:"checkpoints,omitempty"`
	// Detection is what threat detection found before the pause.
	Detection *Detection `json:"detection,omitempty"`
	// PullRequest and Iteration are the Spec's: a paused iteration
	// delivers to its pull request once answered.
	PullRequest int `json:"pull_request,omitempty"`
	Iteration   int `json:"iteration,omitempty"`
	// Spent is what the run spent so far, per agent (the meter's account).
	Spent map[string]cost.Spend `json:"spent,omitempty"`
	// Outputs names, by result, the file that holds the output and raw
	// text left out of its entry in Results: its agent output file.
	Outputs map[string]OutputRef `json:"outputs,omitempty"`
}

// OutputRef names a result's output in the run's files.
type OutputRef struct {
	// File is the agent output file, relative to the run directory
	// (agent-outputs/<agent>.json).
	File string `json:"file"`
	// SHA256 is the output's SHA-256 (the result's output_sha256): what
	// is read back must hash to it.
	SHA256 string `json:"sha256"`
}

// resumeInMemory is the largest output a resumed run reads back into
// memory; a larger one waits in a spool file, as when the agent wrote it.
const resumeInMemory = 1 << 20

// raise builds the next checkpoint of a paused report: trigger, context,
// the standard options (or the mode's, when Proceed carries the run on:
// Retrier), a recommendation learned from the ledger (else the config's
// checkpoints.recommend, else Proceed), and the resume state.
func raise(rep *report, now time.Time) (checkpoint.Checkpoint, error) {
	if rep.Status != status.Paused || rep.Trigger == "" {
		return checkpoint.Checkpoint{}, errors.New("raise a checkpoint: the run is not paused")
	}
	v := rep.View()
	context := rep.Message + "\n\n" + progress.TextTable(v.Table, v.Selected)
	cp, err := checkpoint.New(rep.Spec.RunID, rep.Spec.Workflow, rep.raised+1, rep.Trigger, context, now)
	if err != nil {
		return cp, err
	}
	rep.retry = nil
	if m, ok := rep.concluder.(Retrier); ok && rep.aborted == nil {
		if r, options, ok := m.Retry(); ok {
			// Carrying on appends to the watcher's log and blackboard, and
			// the agents find what they left in $OPTR_OUTPUT_DIR.
			r.Files = append(r.Files, filepath.Join(datalake.DirCoord, escalation.FileBlackboard), filepath.Join(datalake.DirCoord, escalation.FileWatcherLog))
			left, err := rep.filesUnder(datalake.DirAgentFiles)
			if err != nil {
				return cp, err
			}
			r.Files = append(r.Files, left...)
			rep.retry, cp.Options = &r, options
			if err := cp.Validate(); err != nil {
				return cp, err
			}
		}
	}
	var history io.Reader // no ledger yet: no history to learn from
	if f, err := os.Open(rep.Spec.LedgerPath); err == nil {
		defer f.Close()
		history = f
	}
	fallback := rep.Spec.Config.Checkpoints.Recommend[string(rep.Trigger)]
	if fallback == 0 && rep.Trigger == checkpoint.TriggerThreat {
		fallback = 2 // Discard: a threat is not delivered unless a human says so
	}
	// A damaged ledger still yields a recommendation (from the config or
	// the default); the damage is verify's to report, not the pause's.
	n, why, err := checkpoint.RecommendWith(history, rep.Trigger, cp.Options, fallback, rep.track())
	if n == 0 {
		return cp, fmt.Errorf("recommend an option: %w", err)
	}
	cp.Recommended, cp.Recommendation = n, why
	rep.raised++
	state, err := json.Marshal(rep.resumeState())
	if err != nil {
		return cp, fmt.Errorf("save the run's state: %w", err)
	}
	cp.State = state
	rep.CheckpointID = cp.ID
	return cp, nil
}

// track is what people did with the pull requests of the agent whose
// result Proceed takes: π*, or the best-scoring result when nothing was
// selected (architecture §4.19).
func (rep *report) track() checkpoint.Track {
	agent := rep.Selected
	if agent == "" {
		agent = rep.Selection.Best
	}
	res := rep.result(agent)
	if res == nil {
		return checkpoint.Track{}
	}
	agent = res.ConfiguredAgent() // a delegation's candidate is <agent>.<NNN>
	r, ok := rep.records[agent]
	if !ok {
		return checkpoint.Track{}
	}
	return checkpoint.Track{Agent: agent, Merged: r.Merged, Closed: r.Closed}
}

// filesUnder lists the run's files in its folder dir, relative to the
// run directory.
func (rep *report) filesUnder(dir string) ([]string, error) {
	files, err := rep.run.Files()
	if err != nil {
		return nil, err
	}
	root, err := filepath.Abs(rep.run.Dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, f := range files {
		if rel, err := filepath.Rel(root, f); err == nil && strings.HasPrefix(rel, dir+string(filepath.Separator)) {
			out = append(out, rel)
		}
	}
	return out, nil
}

// applyDecision carries a human's decision on the checkpoint cp into the
// report of the paused run: Proceed selects (π*, or the best-scoring
// result when nothing was admissible); Skip selects nothing; Abort fails
// the run; Pause changes nothing. The Driver records the outcome.
func applyDecision(rep *report, cp checkpoint.Checkpoint, d checkpoint.Decision) error {
	switch d.Action {
	case checkpoint.ActionPause:
		return nil
	case checkpoint.ActionProceed:
		rep.Selected = rep.Selection.Selected
		if rep.Selected == "" {
			rep.Selected = rep.Selection.Best
		}
		if cp.Trigger == checkpoint.TriggerThreat && rep.Detection != nil {
			rep.Selected = rep.Detection.Agent // the result the human was shown
		}
		if rep.Selected == "" {
			rep.Status, rep.Message = status.Failed, fmt.Sprintf("%s chose to proceed, but no agent produced output to select", d.By)
		} else {
			rep.Status, rep.Message = status.Completed, fmt.Sprintf("%s chose to proceed at checkpoint %s", d.By, cp.ID)
		}
		if cp.Trigger == checkpoint.TriggerThreat && rep.Status == status.Completed {
			rep.Message = fmt.Sprintf("%s chose to deliver π*'s result anyway at checkpoint %s, with the threats found:\n%s",
				d.By, cp.ID, detect.Summary(rep.Detection.Findings, maxMessageFindings))
		}
	case checkpoint.ActionSkip:
		rep.Selected, rep.Status = "", status.Completed
		rep.Message = fmt.Sprintf("%s chose to skip at checkpoint %s: nothing selected", d.By, cp.ID)
		if cp.Trigger == checkpoint.TriggerThreat {
			rep.Message = fmt.Sprintf("%s chose to discard π*'s result at checkpoint %s: nothing delivered", d.By, cp.ID)
		}
	case checkpoint.ActionAbort:
		rep.Selected, rep.Status = "", status.Failed
		rep.Message = fmt.Sprintf("%s aborted the run at checkpoint %s", d.By, cp.ID)
	default:
		return fmt.Errorf("unknown checkpoint action %q", d.Action)
	}
	rep.CheckpointID = cp.ID
	return nil
}

func (rep *report) resumeState() ResumeState {
	st := ResumeState{
		Workflow: rep.Spec.Workflow, RunID: rep.Spec.RunID, Intent: rep.Spec.Intent, Commit: rep.Spec.Commit,
		Pipeline: rep.Spec.Pipeline, Constraints: rep.ConstraintInfo, Results: rep.Results,
		Checks: map[string]check.Evaluation{}, Selection: rep.Selection, Message: rep.Message, Started: rep.Started,
		Mode: rep.Mode, ModeFields: rep.ModeFields, ExtraFiles: rep.ExtraFiles, Details: rep.Details, DetailsText: rep.DetailsText,
		Retry: rep.retry, Checkpoints: rep.raised,
		Detection: rep.Detection, PullRequest: rep.Spec.PullRequest, Iteration: rep.Spec.Iteration,
		Spent: rep.meter.Agents(),
	}
	st.Results = make([]*executor.Result, len(rep.Results))
	for i, r := range rep.Results {
		st.Checks[r.Agent] = r.Checks
		st.Results[i] = r
		file := resultFile(r.Agent)
		if _, err := os.Stat(rep.run.Path(file)); err != nil {
			continue // not recorded: the output travels in the state
		}
		c := *r
		c.Output, c.OutputBase64, c.OutputFile, c.Raw, c.RawFile = "", "", nil, "", nil
		st.Results[i] = &c
		if st.Outputs == nil {
			st.Outputs = map[string]OutputRef{}
		}
		st.Outputs[r.Agent] = OutputRef{File: filepath.ToSlash(file), SHA256: r.OutputSHA256}
	}
	return st
}

// readOutputs reads the outputs the checkpoint's state names (Outputs)
// back into the results of rep: from their agent output files, brought
// from the Store first when this checkout lacks them, each verified
// against the hash the state and the result record. An output larger than
// resumeInMemory waits in a spool file of the run.
func (d *Driver) readOutputs(ctx context.Context, rep *report) error {
	if len(rep.outputs) == 0 {
		return nil
	}
	files := make([]string, 0, len(rep.outputs))
	for _, ref := range rep.outputs {
		files = append(files, filepath.FromSlash(ref.File))
	}
	slices.Sort(files)
	if err := d.restore(ctx, rep, files); err != nil {
		return err
	}
	dir, err := rep.run.SpoolDir()
	if err != nil {
		return err
	}
	for _, r := range rep.Results {
		ref, ok := rep.outputs[r.Agent]
		if !ok {
			continue
		}
		if ref.SHA256 != r.OutputSHA256 || filepath.FromSlash(ref.File) != resultFile(r.Agent) {
			return fmt.Errorf("its state names %s (sha256 %s) as the output of %s, whose result records %s", ref.File, ref.SHA256, r.Agent, r.OutputSHA256)
		}
		opts := spool.Options{Dir: dir, Prefix: r.Agent + "-", Suffix: ".out", InMemory: resumeInMemory}
		if err := r.ReadOutputs(rep.run.Path(filepath.FromSlash(ref.File)), opts); err != nil {
			return err
		}
	}
	return nil
}

// resumed rebuilds the report of a paused run from its checkpoint, with
// where's config, datalake, ledger and workspace, so that an answer can
// finish it. The run directory is reopened, or recreated when this
// checkout lacks it (its earlier files were recorded elsewhere: Store).
func resumed(cp checkpoint.Checkpoint, where Spec) (*report, error) {
	cfg, datalakeDir, ledgerPath, dir := where.Config, where.Datalake, where.LedgerPath, where.Dir
	var st ResumeState
	if err := json.Unmarshal(cp.State, &st); err != nil {
		return nil, fmt.Errorf("checkpoint %s holds no usable run state: %w", cp.ID, err)
	}
	if st.RunID != cp.Run || st.Workflow != cp.Workflow {
		return nil, fmt.Errorf("checkpoint %s: its state is for run %s of %s, not run %s of %s", cp.ID, st.RunID, st.Workflow, cp.Run, cp.Workflow)
	}
	lake := datalake.Open(datalakeDir)
	run, err := lake.OpenRun(st.Workflow, st.RunID)
	if err != nil {
		if err := os.MkdirAll(lake.RunDir(st.Workflow, st.RunID), 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("recreate the run directory: %w", err)
		}
		if run, err = lake.OpenRun(st.Workflow, st.RunID); err != nil {
			return nil, err
		}
	}
	for _, r := range st.Results {
		r.Checks = st.Checks[r.Agent]
	}
	rep := &report{
		Outcome: Outcome{
			Spec: Spec{
				Config: cfg, Workflow: st.Workflow, RunID: st.RunID, Intent: st.Intent, Commit: st.Commit,
				Pipeline: st.Pipeline, Datalake: filepath.Clean(datalakeDir), LedgerPath: ledgerPath, Dir: dir,
				PullRequest: st.PullRequest, Iteration: st.Iteration,
			},
			ConstraintInfo: st.Constraints, Results: st.Results, Selection: st.Selection,
			Status: status.Paused, Trigger: cp.Trigger, Message: st.Message, CheckpointID: cp.ID, Started: st.Started,
			Mode: st.Mode, ModeFields: st.ModeFields, ExtraFiles: st.ExtraFiles, Details: st.Details, DetailsText: st.DetailsText,
			Detection: st.Detection,
		},
		retry: st.Retry, raised: max(st.Checkpoints, 1), outputs: st.Outputs,
	}
	rep.setRun(run)
	rep.setMeter(cost.NewMeter(cost.NewPricer(cfg.Prices, cost.Builtin)))
	rep.meter.Restore(st.Spent)
	return rep, nil
}
