package pipeline

import (
	"io"
	"path/filepath"

	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/escalation"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/ledger"
)

// watcher builds the run's watcher: its blackboard and log live in the
// run's .coordination directory, and each decision becomes an escalation
// entry for the ledger and, when a human is needed, an escalation comment.
// Its blackboard is first written once hold is closed.
func (p *Prepared) watcher(run *datalake.Run, rep *report, hold <-chan struct{}) (*escalation.Watcher, error) {
	wc := p.Spec.Config.Watcher
	stderr := p.deps.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	return escalation.NewWatcher(escalation.WatcherOptions{
		Dir:         filepath.Join(run.Dir, datalake.DirCoord),
		RunID:       p.Spec.RunID,
		Task:        p.Spec.Intent,
		Agents:      p.AgentNames,
		StuckAfter:  wc.StuckAfter.D(),
		MaxFailures: wc.MaxFailures,
		MaxRestarts: wc.MaxRestarts,
		Now:         p.deps.Now,
		Stderr:      stderr,
		OnDecision:  func(e escalation.Escalation) { p.escalated(rep, e) },
		Hold:        hold,
	})
}

// escalated keeps escalation e for the ledger (recorded before the run's
// entry) and tells deps.OnEscalation, which posts it when a human is
// needed. The watcher's decisions and a failed stage come here alike.
func (p *Prepared) escalated(rep *report, e escalation.Escalation) {
	rep.escMu.Lock()
	rep.Escalations = append(rep.Escalations, ledger.Draft{
		Kind: ledger.KindEscalation, Run: p.Spec.RunID, Workflow: p.Spec.Workflow,
		Time: e.Time.UTC(), Fields: e.LedgerFields(),
	})
	rep.escMu.Unlock()
	if p.deps.OnEscalation != nil {
		p.deps.OnEscalation(e)
	}
}

// reinforcements are the agents the watcher may call on, as declared:
// watcher.spares (less those this run already uses) take over failed
// agents' tasks, and watcher.synthesizer merges partial outputs. Nothing is
// inferred, so the analyzer and judges are never recruited as workers.
func (p *Prepared) reinforcements() ([]executor.Task, *executor.Task) {
	w := p.Spec.Config.Watcher
	inRun := map[string]bool{}
	for _, n := range p.AgentNames {
		inRun[n] = true
	}
	var spareNames []string
	for _, n := range w.Spares {
		if !inRun[n] {
			spareNames = append(spareNames, n)
		}
	}
	spares, err := p.agents.tasks(spareNames)
	if err != nil {
		p.deps.logf("spare agents unavailable: %v", err)
		spares = nil
	}
	var synth *executor.Task
	if w.Synthesizer != "" {
		ts, err := p.agents.tasks([]string{w.Synthesizer})
		if err != nil {
			p.deps.logf("synthesizer unavailable: %v", err)
		} else {
			synth = &ts[0]
		}
	}
	return spares, synth
}

// takeEscalations returns the pending escalation drafts and forgets them.
func (rep *report) takeEscalations() []ledger.Draft {
	rep.escMu.Lock()
	defer rep.escMu.Unlock()
	out := rep.Escalations
	rep.Escalations = nil
	return out
}
