package actionrun

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/optr-dev/optr/internal/action"
	"github.com/optr-dev/optr/internal/checkpoint"
	"github.com/optr-dev/optr/internal/comment"
	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/pipeline"
)

// issueAsker is the Action's side of a checkpoint: nobody can answer in
// the job itself, so the run pauses and the checkpoint comment asks the
// maintainers; a dispatched run without an issue says how to answer.
type issueAsker struct {
	j    *Job
	trig action.Trigger
}

// Ask implements pipeline.Asker: no answer can be had inside the job.
func (issueAsker) Ask(context.Context, checkpoint.Checkpoint) (checkpoint.Decision, bool) {
	return checkpoint.Decision{}, false
}

// Paused implements pipeline.Asker: the checkpoint comment.
func (a *issueAsker) Paused(ctx context.Context, rep *pipeline.Report, cp checkpoint.Checkpoint) {
	j := a.j
	if a.trig.Issue == 0 {
		j.log.Warning(fmt.Sprintf("run %s paused at checkpoint %s, and a dispatched run has no issue to ask on: answer it with `optr resume --checkpoint %s --choose N` in a checkout of the ledger branch", rep.Spec.RunID, cp.ID, cp.ID))
		return
	}
	body := checkpoint.Comment(cp, rep.Spec.Config.Escalation.Mention)
	if _, err := j.gh.UpsertComment(ctx, a.trig.Issue, comment.KindCheckpoint, cp.ID, body); err != nil {
		j.log.Warning("could not post the checkpoint comment: " + err.Error())
	}
}

// choose answers the open checkpoint of the issue's workflow with
// `/optr choose N [note]`.
func (j *Job) choose(ctx context.Context, trig action.Trigger) error {
	return j.answer(ctx, trig, func(cp checkpoint.Checkpoint) (checkpoint.Decision, error) {
		return checkpoint.Decide(cp, trig.Choice, trig.Sender, trig.Note, checkpoint.SourceComment)
	})
}

// abort ends the paused run of the issue's workflow (`/optr abort`).
func (j *Job) abort(ctx context.Context, trig action.Trigger) error {
	return j.answer(ctx, trig, func(cp checkpoint.Checkpoint) (checkpoint.Decision, error) {
		return checkpoint.AbortDecision(cp, trig.Sender, trig.Note, checkpoint.SourceComment)
	})
}

// answer resumes a paused run from the committed checkpoint (never from
// a comment body, which anyone can edit) and carries the decision out.
func (j *Job) answer(ctx context.Context, trig action.Trigger, decide func(checkpoint.Checkpoint) (checkpoint.Decision, error)) error {
	cfg, err := j.loadConfig()
	if err != nil {
		return j.reply(ctx, trig, "optr could not read its config: "+err.Error(), &UsageError{Err: err})
	}
	lakeDir := j.datalake()
	ledgerPath := datalake.Open(lakeDir).LedgerPath()
	branch := j.ledgerBranch(cfg.Ledger.Branch)
	ledgerData, err := j.readCommitted(ctx, branch, ledgerPath)
	if err != nil {
		return err
	}
	pending, err := checkpoint.Pending(bytes.NewReader(ledgerData), trig.Workflow)
	if err != nil {
		return err
	}
	if len(pending) == 0 {
		return j.noOpenCheckpoint(ctx, trig, ledgerData)
	}
	id := pending[len(pending)-1]
	cpPath := datalake.Open(lakeDir).CheckpointPath(id)
	if _, err := os.Stat(cpPath); errors.Is(err, os.ErrNotExist) {
		data, err := j.readCommitted(ctx, branch, cpPath)
		if err != nil {
			return err
		}
		if data == nil {
			return j.reply(ctx, trig, fmt.Sprintf("Checkpoint `%s` is in the ledger, but its saved state `checkpoints/%s.json` is missing from the ledger branch.", id, id), errors.New("checkpoint file missing"))
		}
		if err := datalake.WriteOnce(cpPath, data); err != nil {
			return err
		}
	}
	cp, err := checkpoint.Load(cpPath)
	if err != nil {
		return j.reply(ctx, trig, "optr could not read checkpoint `"+id+"`: "+err.Error(), err)
	}
	d, err := decide(cp)
	if err != nil {
		return j.reply(ctx, trig, err.Error(), nil)
	}
	if d.Action == checkpoint.ActionPause {
		j.post(ctx, trig, fmt.Sprintf("Checkpoint `%s` stays open, as @%s chose. Answer with `/optr choose N` when ready.", cp.ID, trig.Sender))
		j.setOutputs(outcome{status: pipeline.Paused, runID: cp.Run, checkpointID: cp.ID})
		return nil
	}
	rep, err := pipeline.Resume(cp, cfg, lakeDir, ledgerPath, j.workspace())
	if err != nil {
		return err
	}
	if _, err := j.gh.UpsertComment(ctx, trig.Issue, comment.KindCheckpoint, cp.ID, checkpoint.DecidedComment(cp, d)); err != nil {
		j.log.Warning("could not update the checkpoint comment: " + err.Error())
	}
	pr := &progressComment{j: j, issue: trig.Issue, title: trig.Title}
	if c, err := j.gh.FindComment(ctx, trig.Issue, comment.KindRun, rep.Spec.RunID); err == nil && c != nil {
		pr.attach(ctx, c.ID) // the paused run's progress comment follows the decision
	}
	j.restorePatches(ctx, branch, rep)
	drv := &pipeline.Driver{
		Deps:      j.deps(),
		Recorder:  j.recorder(branch, ledgerPath),
		Observer:  pr,
		Deliverer: &deliverer{j: j, trig: trig, branch: branch},
	}
	if err := drv.Resume(ctx, rep, cp, d); err != nil {
		j.report(ctx, rep, pipeline.Failed)
		return fmt.Errorf("the decision on checkpoint %s could not be recorded: %w", cp.ID, err)
	}
	return j.conclude(ctx, rep)
}

// noOpenCheckpoint answers a /optr choose or abort that has nothing to answer.
func (j *Job) noOpenCheckpoint(ctx context.Context, trig action.Trigger, ledgerData []byte) error {
	last, err := checkpoint.Last(bytes.NewReader(ledgerData), trig.Workflow)
	if err != nil {
		return err
	}
	if last != "" {
		if _, d, err := checkpoint.Status(bytes.NewReader(ledgerData), last); err == nil && d != nil {
			cp := checkpoint.Checkpoint{ID: last}
			if loaded, err := checkpoint.Load(datalake.Open(j.datalake()).CheckpointPath(last)); err == nil {
				cp = loaded
			}
			return j.reply(ctx, trig, checkpoint.AlreadyDecidedReply(cp, *d), nil)
		}
	}
	return j.reply(ctx, trig, "No run of this issue is waiting at a checkpoint, so there is nothing to answer.", nil)
}

// post logs text and posts it as a short answer on the issue.
func (j *Job) post(ctx context.Context, trig action.Trigger, text string) {
	j.log.Infof("%s", text)
	if trig.Issue != 0 {
		if _, err := j.gh.UpsertComment(ctx, trig.Issue, comment.KindReply, j.env.RunID(), text); err != nil {
			j.log.Warning("could not reply on the issue: " + err.Error())
		}
	}
}

// reply posts a short answer on the issue and ends the job skipped (err
// nil) or with err.
func (j *Job) reply(ctx context.Context, trig action.Trigger, text string, err error) error {
	j.post(ctx, trig, text)
	if err != nil {
		j.setOutputs(outcome{status: pipeline.Failed, runID: j.env.RunID(), message: text})
		return err
	}
	return j.skip(text)
}

// readCommitted reads a workspace file as committed on the ledger branch
// (or, with commit: false, from the workspace itself); nil when absent.
func (j *Job) readCommitted(ctx context.Context, branch, path string) ([]byte, error) {
	if !j.in.Commit {
		data, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return data, err
	}
	rel, err := pipeline.Spec{Dir: j.workspace()}.WorkspacePath(path)
	if err != nil {
		return nil, err
	}
	data, err := j.gh.ReadFile(ctx, branch, rel)
	if err != nil {
		return nil, fmt.Errorf("read %s from the ledger branch: %w", rel, err)
	}
	return data, nil
}
