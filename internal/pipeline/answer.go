package pipeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/optr-dev/optr/internal/checkpoint"
	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/ledger"
)

// The one sequence that answers a paused run, for every face of optr: the
// CLI's `optr resume --checkpoint ID --choose N` and the Action's
// `/optr choose N` or `/optr abort` in a later job. OpenCheckpoint finds
// the checkpoint as the ledger records it — open until a `decision` entry
// closes it (architecture §4.6) — and Answer carries the decision out. What the
// faces do differently is where the recorded files are read back from
// (Driver.Store) and how they show the outcome.

// Store reads back files as a run recorded them: from the datalake itself
// (the CLI, and the Action with commit: false) or from the ledger branch
// (the Action, whose fresh checkout lacks the run's files).
type Store interface {
	// ReadFile returns the recorded content of path (a datalake path on
	// this machine); nil data and no error when nothing is recorded there.
	ReadFile(ctx context.Context, path string) ([]byte, error)
}

// Disk is the Store of a datalake whose files are where they were
// recorded.
type Disk struct{}

// ReadFile implements Store.
func (Disk) ReadFile(_ context.Context, path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return data, err
}

// ErrNoOpenCheckpoint is returned by OpenCheckpoint when the workflow has
// no run waiting at a checkpoint.
var ErrNoOpenCheckpoint = errors.New("no run is waiting at a checkpoint")

// DecidedError is an answer to a checkpoint the ledger shows decided: it
// changes nothing.
type DecidedError struct {
	Checkpoint checkpoint.Checkpoint
	Decision   checkpoint.Decision
}

// Error implements error: plain text, without a next step (the CLI and
// the Action each say their own; the Action replies on the issue with
// checkpoint.AlreadyDecidedReply).
func (e *DecidedError) Error() string {
	return checkpoint.AlreadyDecided(e.Checkpoint, e.Decision)
}

// StateError is a checkpoint the ledger holds whose saved state cannot be
// read: missing where the run was recorded (Err nil), or unreadable.
type StateError struct {
	ID  string
	Err error
}

// Error implements error.
func (e *StateError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("Checkpoint `%s` is in the ledger, but its saved state `checkpoints/%s.json` is missing from where the run was recorded.", e.ID, e.ID)
	}
	return fmt.Sprintf("optr could not read checkpoint `%s`: %v", e.ID, e.Err)
}

// Unwrap returns the cause.
func (e *StateError) Unwrap() error { return e.Err }

func (d *Driver) store() Store {
	if d.Store != nil {
		return d.Store
	}
	return Disk{}
}

// OpenCheckpoint finds the checkpoint a human answers in the ledger at
// where.LedgerPath, as recorded: checkpoint id, or with id "" the last
// open checkpoint of workflow. A checkpoint is open until a decision
// entry closes it; an answer to a decided one is a *DecidedError, a
// workflow with none open ErrNoOpenCheckpoint, and an id the ledger does
// not hold wraps checkpoint.ErrNotFound. The checkpoint's saved state
// (never a comment, which anyone can edit) is read back into the datalake
// when this checkout lacks it; a *StateError when it cannot be had.
func (d *Driver) OpenCheckpoint(ctx context.Context, where Spec, workflow, id string) (checkpoint.Checkpoint, error) {
	led, err := d.store().ReadFile(ctx, where.LedgerPath)
	if err != nil {
		return checkpoint.Checkpoint{}, err
	}
	if id == "" {
		pending, err := checkpoint.Pending(bytes.NewReader(led), workflow)
		if err != nil {
			return checkpoint.Checkpoint{}, err
		}
		if len(pending) == 0 {
			return checkpoint.Checkpoint{}, d.noneOpen(ctx, where, led, workflow)
		}
		id = pending[len(pending)-1]
	} else {
		open, dec, err := checkpoint.Status(bytes.NewReader(led), id)
		if err != nil {
			return checkpoint.Checkpoint{}, err
		}
		if !open {
			cp, _ := d.loadCheckpoint(ctx, where, id)
			cp.ID = id
			return checkpoint.Checkpoint{}, &DecidedError{Checkpoint: cp, Decision: *dec}
		}
	}
	return d.loadCheckpoint(ctx, where, id)
}

// noneOpen is why workflow has no open checkpoint: its last one was
// decided (a *DecidedError naming it), or it has none.
func (d *Driver) noneOpen(ctx context.Context, where Spec, led []byte, workflow string) error {
	last, err := checkpoint.Last(bytes.NewReader(led), workflow)
	if err != nil {
		return err
	}
	if last == "" {
		return ErrNoOpenCheckpoint
	}
	_, dec, err := checkpoint.Status(bytes.NewReader(led), last)
	if err != nil || dec == nil {
		return ErrNoOpenCheckpoint
	}
	cp, _ := d.loadCheckpoint(ctx, where, last)
	cp.ID = last
	return &DecidedError{Checkpoint: cp, Decision: *dec}
}

// loadCheckpoint loads the saved state of checkpoint id, read back from
// the store first when the datalake lacks it.
func (d *Driver) loadCheckpoint(ctx context.Context, where Spec, id string) (checkpoint.Checkpoint, error) {
	path := datalake.Open(where.Datalake).CheckpointPath(id)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		data, err := d.store().ReadFile(ctx, path)
		if err != nil {
			return checkpoint.Checkpoint{}, err
		}
		if data == nil {
			return checkpoint.Checkpoint{}, &StateError{ID: id}
		}
		if err := datalake.WriteOnce(path, data); err != nil {
			return checkpoint.Checkpoint{}, err
		}
	}
	cp, err := checkpoint.Load(path)
	if err != nil {
		return cp, &StateError{ID: id, Err: err}
	}
	return cp, nil
}

// Answer carries out dec on checkpoint cp of a paused run (found with
// OpenCheckpoint) and records the outcome. The paused run is rebuilt from
// the checkpoint's saved state in where's datalake, with where's config
// and workspace; the files an answer delivers that this checkout lacks
// (π*'s patch) are read back from the Store. Proceed selects (π*, or the
// best-scoring result when nothing was admissible) and records; Skip
// records with nothing selected; Abort records the run as failed; Pause
// records nothing and leaves the run paused. The outcome is returned
// whenever the run was rebuilt, also with an error.
func (d *Driver) Answer(ctx context.Context, cp checkpoint.Checkpoint, dec checkpoint.Decision, where Spec) (*Outcome, error) {
	rep, err := d.answer(ctx, cp, dec, where)
	return rep.outcome(), err
}

func (d *Driver) answer(ctx context.Context, cp checkpoint.Checkpoint, dec checkpoint.Decision, where Spec) (*report, error) {
	rep, err := resumed(cp, where)
	if err != nil {
		d.stopped(ctx, nil, err)
		return nil, err
	}
	defer rep.run.RemoveSpools() // the outputs read back wait there until the run's files are written
	if err := d.readOutputs(ctx, rep); err != nil {
		err = &StateError{ID: cp.ID, Err: err}
		d.stopped(ctx, nil, err)
		return nil, err
	}
	d.restorePatches(ctx, rep)
	if dec.Action == checkpoint.ActionProceed && rep.retry != nil {
		err = d.retry(ctx, rep, cp, dec)
	} else {
		err = d.apply(ctx, rep, cp, dec)
	}
	if err != nil {
		d.stopped(ctx, rep, err)
		return rep, err
	}
	d.finished(ctx, rep)
	return rep, nil
}

// retry carries the paused run rep on after Proceed at checkpoint cp,
// when its mode does so itself (Retrier: a stage chain retries its failed
// stage): the files that carrying on reads are read back from the Store
// when this checkout lacks them, the mode runs again from where it
// stopped in the run's own directory, and the run ends as any run does —
// recorded, or paused at its next checkpoint — its decision entry first.
func (d *Driver) retry(ctx context.Context, rep *report, cp checkpoint.Checkpoint, dec checkpoint.Decision) error {
	r := *rep.retry
	if err := d.restore(ctx, rep, r.Files); err != nil {
		return err
	}
	deps := d.Deps
	if d.Observer != nil {
		deps.OnEvent = d.Observer.Event
	}
	p, err := Prepare(rep.Spec, deps)
	if err != nil {
		return err
	}
	m, ok := p.mode.(Retrier)
	if !ok {
		return fmt.Errorf("checkpoint %s: pipeline %q no longer runs a %s pipeline, which Proceed would carry on; choose Skip or Abort", cp.ID, rep.Spec.Pipeline, rep.Mode)
	}
	p.SetMode(m.Retried(r))
	if err := d.checkBudget(ctx, p); err != nil {
		return err // nothing recorded: the run stays paused at cp
	}
	defer p.Settle(ctx)
	if d.Observer != nil {
		d.Observer.Started(ctx, p)
	}
	rep.escMu.Lock()
	rep.Escalations = append([]ledger.Draft{checkpoint.DecisionDraft(cp, dec, d.now())}, rep.Escalations...)
	rep.escMu.Unlock()
	if err := p.carryOn(ctx, rep); err != nil {
		return err
	}
	return d.end(ctx, p, rep)
}

// restore reads the run's files rel (relative to its directory) back
// from the Store when this checkout lacks them; one the Store lacks too
// is left for whoever reads it to report.
func (d *Driver) restore(ctx context.Context, rep *report, rel []string) error {
	for _, f := range rel {
		path := rep.run.Path(f)
		if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
			continue
		}
		data, err := d.store().ReadFile(ctx, path)
		if err != nil {
			return fmt.Errorf("read back %s: %w", f, err)
		}
		if data == nil {
			continue
		}
		if err := rep.run.WriteFile(f, data); err != nil {
			return fmt.Errorf("read back %s: %w", f, err)
		}
	}
	return nil
}

// restorePatches brings the patches an answer may deliver (π*'s, or the
// best-scoring result's) back from the Store when this checkout lacks
// them: a paused run's files were recorded there.
func (d *Driver) restorePatches(ctx context.Context, rep *report) {
	if !rep.Spec.Config.Changes.On() {
		return
	}
	for _, name := range []string{rep.Selection.Selected, rep.Selection.Best} {
		if name == "" {
			continue
		}
		path := rep.run.Path(PatchFile(name))
		if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
			continue
		}
		data, err := d.store().ReadFile(ctx, path)
		if err != nil || data == nil {
			continue // Deliver reports the missing patch
		}
		if err := rep.run.WriteFile(PatchFile(name), data); err != nil {
			d.Deps.logf("could not restore %s: %v", PatchFile(name), err)
		}
	}
}
