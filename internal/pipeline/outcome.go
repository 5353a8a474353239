package pipeline

import (
	"maps"
	"path/filepath"
	"slices"
	"time"

	"github.com/optr-dev/optr/internal/checkpoint"
	"github.com/optr-dev/optr/internal/cost"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/ledger"
	"github.com/optr-dev/optr/internal/sandbox"
	"github.com/optr-dev/optr/internal/selection"
	"github.com/optr-dev/optr/internal/status"
)

// Outcome is what a run did, as everything outside the driver sees it:
// the CLI and the Action, the progress comment and the step summary, a
// Recorder, a Deliverer, an Asker, a matrix task. The driver hands out a
// fresh Outcome wherever it hands the run to one of them — a snapshot of
// the run at that point: nothing a reader does to it changes the run, and
// nothing the run does afterwards changes it. Only the driver changes a
// run (report).
type Outcome struct {
	Spec Spec
	// RunDir is the run's directory, "" when the run never got one.
	RunDir string
	// ConstraintInfo lists the run's constraints (kept across a pause).
	ConstraintInfo []ConstraintInfo
	// Results are the mode's results, in the order to show them.
	Results []*executor.Result
	// Selection is the score table and the choice (π*, or the best score).
	Selection selection.Result
	// Status is completed, paused, failed; "" for a run executed but not
	// concluded (a matrix task's).
	Status status.Status
	// Trigger says why a paused run waits for a human.
	Trigger checkpoint.Trigger
	// Selected is π*'s agent, empty when nothing was selected.
	Selected string
	// ResultPath is the result's path relative to the workspace, when
	// written (result.md, or a mode's own such as OVERVIEW.md).
	ResultPath string
	// Message says why a run failed or paused.
	Message string
	// CheckpointID names the checkpoint a paused run waits on.
	CheckpointID string
	// Escalations are the watcher's decisions not yet in the ledger: the
	// next ledger append (record or pause) writes them first, so a
	// recorded run has none left. A matrix task hands its own to the
	// gather.
	Escalations []ledger.Draft
	// LedgerHash is the hash of the last ledger entry this run recorded.
	LedgerHash string
	// LedgerCheckpoint is the ledger's checkpoint once the run was
	// recorded, as the recorder made it ("" when it made none).
	LedgerCheckpoint string
	// Commit is the commit that holds the run's entries ("" when the
	// recorder commits nothing).
	Commit string
	// Mode is the pipeline mode that ran (config.ModeSelect, …).
	Mode string
	// ModeFields are the mode's own members of the `run` ledger entry
	// (delegate: spec, success_rate, reports; stages: stages).
	ModeFields map[string]any
	// ExtraFiles are files outside the run directory that the run wrote
	// and that are recorded with it (a delegation's spec folder).
	ExtraFiles []string
	// Details is the mode's own account of the run as Markdown, escaped by
	// the mode (a delegation's four-section summary, a stage checklist),
	// shown under the agents in the progress comment and the job summary;
	// DetailsText is the same for a terminal.
	Details, DetailsText string
	// Delivery is how π*'s code change was delivered (changes.mode,
	// architecture §4.12): the pull request, or applied; zero when not.
	Delivery Delivery
	// Detection is what threat detection found in the result the run
	// delivers or would deliver (architecture §4.15); nil when nothing was
	// scanned.
	Detection *Detection
	// Sandbox is what the run's sandbox enforced (architecture §4.14).
	Sandbox      sandbox.Layers
	SandboxNotes []string
	// Entries are the ledger entries this run appended, in order.
	Entries  []ledger.Entry
	Started  time.Time
	Finished time.Time
	// spend is what the run spent, per agent and in total: the run's meter
	// in the driver's report, frozen in a snapshot; nil in an Outcome made
	// from results alone, whose results' Spent is then summed.
	spend spender
}

// spender is what an Outcome reads its spend from: a cost.Meter, or what
// one had counted (frozenSpend).
type spender interface {
	Agent(name string) cost.Spend
	Total() cost.Spend
}

// frozenSpend is a meter's counts at one moment.
type frozenSpend struct {
	agents map[string]cost.Spend
	total  cost.Spend
}

func (f frozenSpend) Agent(name string) cost.Spend { return f.agents[name] }
func (f frozenSpend) Total() cost.Spend            { return f.total }

// outcome is a snapshot of the run for its readers: what it did so far,
// which the run's later steps do not change, and which changes nothing of
// the run. The results are the run's own (each is final once its mode
// ran); every list and map around them is a copy.
func (rep *report) outcome() *Outcome {
	if rep == nil {
		return nil
	}
	o := rep.Outcome
	rep.escMu.Lock()
	o.Escalations = slices.Clone(rep.Escalations)
	rep.escMu.Unlock()
	o.ConstraintInfo = slices.Clone(o.ConstraintInfo)
	o.Results = slices.Clone(o.Results)
	o.Selection.Rows = slices.Clone(o.Selection.Rows)
	o.ModeFields = maps.Clone(o.ModeFields)
	o.ExtraFiles = slices.Clone(o.ExtraFiles)
	o.SandboxNotes = slices.Clone(o.SandboxNotes)
	o.Entries = slices.Clone(o.Entries)
	if d := o.Detection; d != nil {
		c := *d
		c.Findings = slices.Clone(d.Findings)
		o.Detection = &c
	}
	if rep.meter != nil {
		o.spend = frozenSpend{agents: rep.meter.Agents(), total: rep.meter.Total()}
	}
	return &o
}

// Path is the path of rel, a file of the run's directory.
func (o *Outcome) Path(rel string) string { return filepath.Join(o.RunDir, rel) }

// AgentOutputPath is the path of the result file of the agent named
// agentName: agent-outputs/<agent>.json.
func (o *Outcome) AgentOutputPath(agentName string) string { return o.Path(resultFile(agentName)) }

// Result returns the result of the named agent, nil when there is none.
func (o *Outcome) Result(agentName string) *executor.Result { return o.result(agentName) }

func (o *Outcome) result(agent string) *executor.Result {
	for _, r := range o.Results {
		if r.Agent == agent && agent != "" {
			return r
		}
	}
	return nil
}
