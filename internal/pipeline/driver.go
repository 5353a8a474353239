package pipeline

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/optr-dev/optr/internal/budget"
	"github.com/optr-dev/optr/internal/checkpoint"
	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/ledger"
	"github.com/optr-dev/optr/internal/status"
)

// Driver owns a run's lifecycle, the same for every face of optr and every
// pipeline mode:
//
//	Prepare → Execute → Conclude → Pause (checkpoint) | Record
//
// and, for a paused run answered later (answer.go), OpenCheckpoint →
// Answer → Apply → Record. What the CLI and the Action do differently
// plugs in through small interfaces: where the ledger is recorded
// (Recorder) and read back (Store), where progress is shown (Observer)
// and whether a human can answer a checkpoint at once (Asker). Nothing
// else about a run lives outside this file's callees.
type Driver struct {
	// Deps are the run's connections to the world.
	Deps Deps
	// Recorder keeps the ledger entries; nil appends to Spec.LedgerPath.
	Recorder Recorder
	// Observer is told about progress; nil shows nothing.
	Observer Observer
	// Asker answers checkpoints on the spot; nil leaves every pause saved
	// for a later answer.
	Asker Asker
	// Deliverer delivers π*'s code change when agents change code
	// (changes.go); nil delivers nothing.
	Deliverer Deliverer
	// Ledger is the ledger the day's and month's budgets are checked
	// against before a run starts (architecture §4.17); nil reads the files at
	// Spec.LedgerPath. The Action reads the ledger branch's.
	Ledger ledger.Store
	// Store reads back what earlier steps of a run recorded, for an
	// answer to its checkpoint; nil reads the datalake on disk (Disk).
	Store Store
	// Mode, when set, replaces the mode the config chose (Prepared.SetMode):
	// a matrix gather brings its tasks' results instead of running agents,
	// and everything after — selection, record, commit, comment — stays
	// the same code path.
	Mode Mode
}

// Recorder keeps a run's ledger entries: appended to a local file (the
// CLI, and the Action with commit: false), or committed compare-and-swap
// to the ledger branch together with the run's files (the Action).
type Recorder interface {
	// Record appends drafts, in order, and keeps files (absolute paths
	// the run wrote) with them. It returns the entries exactly as
	// recorded — seq, prev and hash final — and the commit holding them
	// ("" when nothing was committed).
	Record(ctx context.Context, o *Outcome, drafts []ledger.Draft, files []string) (Recorded, error)
}

// Recorded is what a Recorder kept.
type Recorded struct {
	// Entries are the appended entries as they stand in the ledger.
	Entries []ledger.Entry
	// Commit is the commit that holds them, "" when not committed.
	Commit string
	// Checkpoint is the ledger's C2SP checkpoint with them (signed, and
	// cosigned by witnesses, as far as the recorder could), "" when the
	// recorder made none (architecture §4.13).
	Checkpoint string
}

// FileRecorder appends to the ledger file at Path; it commits nothing.
type FileRecorder struct {
	Path string
	// Origin is the ledger's checkpoint origin ("": ledger.LocalOrigin);
	// Key, when set, the private key the checkpoint is signed with.
	Origin, Key string
}

// Record implements Recorder.
func (f FileRecorder) Record(_ context.Context, _ *Outcome, drafts []ledger.Draft, _ []string) (Recorded, error) {
	entries, err := ledger.Append(f.Path, drafts...)
	if err != nil {
		return Recorded{}, fmt.Errorf("append to the ledger %s: %w", f.Path, err)
	}
	origin := f.Origin
	if origin == "" {
		origin = ledger.LocalOrigin
	}
	rec := Recorded{Entries: entries}
	// The checkpoint is an extra of the record: one that cannot be made
	// (a key of another name) leaves it out, and `optr ledger checkpoint`
	// says why.
	if cp, err := ledger.HeadCheckpoint(f.Path, origin, f.Key); err == nil {
		rec.Checkpoint = string(cp)
	}
	return rec, nil
}

// Observer shows a run as it happens: the live terminal view, the
// progress comment. Event is called from agent goroutines.
type Observer interface {
	// Started announces a prepared run: its agents, all queued.
	Started(ctx context.Context, p *Prepared)
	// Event is an agent's state change.
	Event(ev executor.Event)
	// Finished shows the run's final state (completed, failed or paused),
	// after it was recorded.
	Finished(ctx context.Context, o *Outcome)
	// Stopped shows that the run could not go on (err says why).
	Stopped(ctx context.Context, err error)
}

// Asker is a human who may answer a checkpoint at once.
type Asker interface {
	// Ask asks about cp; ok is false when no answer can be had now (no
	// terminal, no input), and the run stays paused.
	Ask(ctx context.Context, cp checkpoint.Checkpoint) (d checkpoint.Decision, ok bool)
	// Paused tells the people who may answer later that the run waits at
	// cp, which is saved and recorded (a comment, a message).
	Paused(ctx context.Context, o *Outcome, cp checkpoint.Checkpoint)
}

func (d *Driver) recorder(spec Spec) Recorder {
	if d.Recorder != nil {
		return d.Recorder
	}
	return FileRecorder{Path: spec.LedgerPath}
}

func (d *Driver) now() time.Time { return d.Deps.now() }

// checkBudget refuses a run over the day's or month's budget before any
// agent starts (a *budget.RefusedError, with the figures), and gives the
// run's meter what those budgets have left. A paused run carried on
// (retry) is checked again: the day may have been spent since it paused. A gather only records what its
// tasks spent: its plan was the run's start.
func (d *Driver) checkBudget(ctx context.Context, p *Prepared) error {
	if p.mode.Traits().Gathers {
		return nil
	}
	st := d.Ledger
	if st == nil {
		st = ledger.Local(p.Spec.LedgerPath)
	}
	caps, err := budget.Check(ctx, st, p.Spec.Config.Budget, d.now(), p.Spec.RunID)
	if err != nil {
		if !Refused(err) {
			// A ledger whose spend cannot be counted refuses the run
			// too, before any agent starts.
			err = inputErr(err)
		}
		return err
	}
	p.meter.Limit(caps...)
	return nil
}

// recordStore is where the run reads what people did with each agent's
// pull requests (Prepared.loadRecords): the ledger budgets are counted
// from.
func (d *Driver) recordStore(p *Prepared) ledger.Store {
	if d.Ledger != nil {
		return d.Ledger
	}
	return ledger.Local(p.Spec.LedgerPath)
}

// Run carries a run from its spec to its end: completed, failed, or paused
// at a checkpoint (saved and recorded; answered on the spot when the Asker
// can). Bad input is an *InputError returned before anything is written or
// any agent starts. The outcome is returned whenever the run got as far as
// executing, also with an error.
func (d *Driver) Run(ctx context.Context, spec Spec) (*Outcome, error) {
	rep, err := d.run(ctx, spec)
	return rep.outcome(), err
}

func (d *Driver) run(ctx context.Context, spec Spec) (*report, error) {
	deps := d.Deps
	if d.Observer != nil {
		deps.OnEvent = d.Observer.Event
	}
	p, err := Prepare(spec, deps)
	if err != nil {
		return nil, err
	}
	if d.Mode != nil {
		p.SetMode(d.Mode)
	}
	if err := d.checkBudget(ctx, p); err != nil {
		return nil, err
	}
	p.recordsFrom = d.recordStore(p)
	defer p.Settle(ctx)
	if d.Observer != nil {
		d.Observer.Started(ctx, p)
	}
	rep, err := p.execute(ctx)
	if rep != nil {
		defer rep.run.RemoveSpools() // every file was written from them by now
	}
	if err != nil {
		d.stopped(ctx, rep, err)
		return rep, err
	}
	if err := d.end(ctx, p, rep); err != nil {
		d.stopped(ctx, rep, err)
		return rep, err
	}
	d.finished(ctx, rep)
	return rep, nil
}

// end concludes the run p executed into rep and ends it: threat
// detection, then the pause at its checkpoint, or the delivery and the
// record.
func (d *Driver) end(ctx context.Context, p *Prepared, rep *report) error {
	conclude(rep)
	d.detect(ctx, p, rep)
	if rep.Status == status.Paused {
		return d.pause(ctx, rep)
	}
	d.deliver(ctx, rep)
	return d.record(ctx, rep)
}

// stopped ends a run that could not go on because of err. A report the
// driver returns with an error is a failed run's (the commit-back was
// refused after every agent finished, say): whatever it said before, its
// status is failed and its message err, so that every face of optr that
// shows it — summary, outputs, annotations, comment — says the same.
func (d *Driver) stopped(ctx context.Context, rep *report, err error) {
	if rep != nil {
		rep.Status, rep.Message = status.Failed, err.Error()
	}
	if d.Observer != nil {
		d.Observer.Stopped(ctx, err)
	}
}

func (d *Driver) finished(ctx context.Context, rep *report) {
	if d.Observer != nil {
		d.Observer.Finished(ctx, rep.outcome())
	}
}

// pause raises the checkpoint of a paused run, asks the Asker, saves and
// records the checkpoint, and carries an answer out at once when one came.
func (d *Driver) pause(ctx context.Context, rep *report) error {
	cp, err := raise(rep, d.now())
	if err != nil {
		return err
	}
	var answer checkpoint.Decision
	answered := false
	if d.Asker != nil {
		answer, answered = d.Asker.Ask(ctx, cp)
	}
	path := datalake.Open(rep.Spec.Datalake).CheckpointPath(cp.ID)
	if err := checkpoint.Save(path, cp); err != nil {
		return fmt.Errorf("save checkpoint %s: %w", cp.ID, err)
	}
	files, err := d.runFiles(rep)
	if err != nil {
		return err
	}
	cpDraft := checkpoint.CheckpointDraft(cp, d.now())
	rep.addTotals(cpDraft.Fields) // a paused run's spend counts toward the day's budget at once
	if det := rep.Detection; det != nil {
		// Why nothing was delivered, in the chain before anyone answers.
		cpDraft.Fields["detection"] = det.pausedDetection()
	}
	drafts := append(rep.takeEscalations(), cpDraft)
	if err := d.keep(ctx, rep, drafts, append(files, path)); err != nil {
		return fmt.Errorf("record checkpoint %s: %w", cp.ID, err)
	}
	rep.Status, rep.CheckpointID = status.Paused, cp.ID
	if answered && answer.Action != checkpoint.ActionPause {
		return d.apply(ctx, rep, cp, answer)
	}
	if d.Asker != nil {
		d.Asker.Paused(ctx, rep.outcome(), cp)
	}
	return nil
}

// apply carries out a human's decision on the checkpoint of a paused run:
// Proceed selects (π*, or the best-scoring result when nothing was
// admissible) and records; Skip records with nothing selected; Abort
// records the run as failed; Pause changes nothing. Proceed, Skip and
// Abort record the `decision` entry just before the run's `run` entry.
func (d *Driver) apply(ctx context.Context, rep *report, cp checkpoint.Checkpoint, dec checkpoint.Decision) error {
	if err := applyDecision(rep, cp, dec); err != nil {
		return err
	}
	afterDecision(rep, cp)
	if dec.Action == checkpoint.ActionPause {
		return nil
	}
	d.deliver(ctx, rep)
	return d.record(ctx, rep, checkpoint.DecisionDraft(cp, dec, d.now()))
}

// record writes what the run decided (optr-selection.json, result.md)
// and records the run's entries — pending escalations, extra (a
// decision), then the `run` entry — with the run's files.
func (d *Driver) record(ctx context.Context, rep *report, extra ...ledger.Draft) error {
	now := d.now()
	rep.settleVerdict()
	if err := rep.writeDecision(); err != nil {
		return err
	}
	files, err := d.runFiles(rep)
	if err != nil {
		return err
	}
	drafts := append(rep.takeEscalations(), extra...)
	drafts = append(drafts, rep.LedgerDraft(now))
	if err := d.keep(ctx, rep, drafts, append(files, rep.ExtraFiles...)); err != nil {
		return err
	}
	rep.Finished = now.UTC()
	if err := rep.attest(); err != nil {
		d.Deps.logf("optr-attestation.json: %v", err) // the run is recorded; the attestation is an extra
	}
	return nil
}

// runFiles lists the run's files to record (datalake.Run.Committable) and
// names in the log each file it leaves out, with the reason.
func (d *Driver) runFiles(rep *report) ([]string, error) {
	files, refused, err := rep.run.Committable()
	if err != nil {
		return nil, fmt.Errorf("list the run's files: %w", err)
	}
	earlier := 0
	for _, f := range refused {
		if f.Earlier {
			earlier++
			continue
		}
		d.Deps.logf("not committed: %s: %s", rep.Spec.DisplayPath(rep.run.Path(f.Path)), f.Reason)
	}
	if earlier > 0 {
		d.Deps.logf("left as they were: %d files of %s that this job found there (the job that paused the run recorded them)", earlier, rep.Spec.DisplayPath(rep.run.Dir))
	}
	return files, nil
}

// keep hands drafts to the recorder and takes the entries it recorded as
// the run's: the hash a run reports is the one recorded, computed once.
// A recorded run is done (datalake.Run.Done).
func (d *Driver) keep(ctx context.Context, rep *report, drafts []ledger.Draft, files []string) error {
	got, err := d.recorder(rep.Spec).Record(ctx, rep.outcome(), drafts, files)
	if err != nil {
		return err
	}
	if len(got.Entries) == 0 {
		return errors.New("the ledger recorded no entry")
	}
	rep.Entries = append(rep.Entries, got.Entries...)
	rep.LedgerHash = got.Entries[len(got.Entries)-1].Hash
	rep.LedgerCheckpoint = got.Checkpoint
	if got.Commit != "" {
		rep.Commit = got.Commit
	}
	// Recorded (finished or paused): the run no longer needs its owner
	// marker, so a later run's CleanStale leaves it alone.
	return rep.run.Done()
}
