package actionrun

import (
	"context"
	"errors"
	"fmt"

	"github.com/optr-dev/optr/internal/action"
	"github.com/optr-dev/optr/internal/checkpoint"
	"github.com/optr-dev/optr/internal/comment"
	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/pipeline"
	"github.com/optr-dev/optr/internal/status"
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
func (a *issueAsker) Paused(ctx context.Context, rep *pipeline.Outcome, cp checkpoint.Checkpoint) {
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
// `/optr choose N [note]`; it is the iteration whose checkpoint it is
// (nil on an issue).
func (j *Job) choose(ctx context.Context, trig action.Trigger, it *iteration) error {
	return j.answer(ctx, trig, it, func(cp checkpoint.Checkpoint) (checkpoint.Decision, error) {
		return checkpoint.Decide(cp, trig.Choice, trig.Sender, trig.Note, checkpoint.SourceComment)
	})
}

// abort ends the paused run of the issue's workflow (`/optr abort`).
func (j *Job) abort(ctx context.Context, trig action.Trigger, it *iteration) error {
	return j.answer(ctx, trig, it, func(cp checkpoint.Checkpoint) (checkpoint.Decision, error) {
		return checkpoint.AbortDecision(cp, trig.Sender, trig.Note, checkpoint.SourceComment)
	})
}

// answer resumes a paused run from the committed checkpoint (never from
// a comment body, which anyone can edit) and carries the decision out,
// through the same sequence as `optr resume` (pipeline.Driver.Answer),
// under the config of a run (configOf).
func (j *Job) answer(ctx context.Context, trig action.Trigger, it *iteration, decide func(checkpoint.Checkpoint) (checkpoint.Decision, error)) error {
	cfg, err := j.configOf(ctx, it)
	if err != nil {
		return j.reply(ctx, trig, "optr could not read its config: "+err.Error(), err)
	}
	lakeDir := j.datalake()
	where := pipeline.Spec{Config: cfg, Datalake: lakeDir, LedgerPath: datalake.Open(lakeDir).LedgerPath(), Dir: j.workspace()}
	pr := &progressComment{j: j, issue: trig.Issue, title: trig.Title}
	drv := j.driver(ctx, trig, cfg, where.LedgerPath, pr)
	cp, err := drv.OpenCheckpoint(ctx, where, trig.Workflow, "")
	var decided *pipeline.DecidedError
	var state *pipeline.StateError
	switch {
	case errors.As(err, &decided):
		return j.reply(ctx, trig, checkpoint.AlreadyDecidedReply(decided.Checkpoint, decided.Decision), nil)
	case errors.Is(err, pipeline.ErrNoOpenCheckpoint):
		return j.reply(ctx, trig, "No run of this issue is waiting at a checkpoint, so there is nothing to answer.", nil)
	case errors.As(err, &state):
		return j.reply(ctx, trig, state.Error(), err)
	case err != nil:
		return err
	}
	d, err := decide(cp)
	if err != nil {
		return j.reply(ctx, trig, err.Error(), nil)
	}
	if d.Action == checkpoint.ActionPause {
		j.post(ctx, trig, fmt.Sprintf("Checkpoint `%s` stays open, as @%s chose. Answer with `/optr choose N` when ready.", cp.ID, trig.Sender))
		j.setOutputs(outcome{status: status.Paused, runID: cp.Run, checkpointID: cp.ID})
		return nil
	}
	if _, err := j.gh.UpsertComment(ctx, trig.Issue, comment.KindCheckpoint, cp.ID, checkpoint.DecidedComment(cp, d)); err != nil {
		j.log.Warning("could not update the checkpoint comment: " + err.Error())
	}
	if c, err := j.gh.FindComment(ctx, trig.Issue, comment.KindRun, cp.Run); err == nil && c != nil {
		pr.attach(ctx, c.ID) // the paused run's progress comment follows the decision
	}
	rep, err := drv.Answer(ctx, cp, d, where)
	if err != nil && rep == nil {
		j.log.Error(fmt.Sprintf("the decision on checkpoint %s could not be carried out: %v", cp.ID, err))
		j.setOutputs(outcome{status: status.Failed, runID: cp.Run, checkpointID: cp.ID, message: err.Error()})
		return &FailedError{Err: err}
	}
	return j.conclude(ctx, rep) // a report returned with an error is a failed run's
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
		j.setOutputs(outcome{status: status.Failed, runID: j.env.RunID(), message: text})
		return err
	}
	return j.skip(text)
}

// store reads back what the Action recorded: the files committed on the
// ledger branch, or (commit: false) the workspace's own.
func (j *Job) store(branch string) pipeline.Store {
	if !j.in.Commit {
		return pipeline.Disk{}
	}
	return branchStore{j: j, branch: branch}
}

// branchStore is the pipeline.Store of the ledger branch.
type branchStore struct {
	j      *Job
	branch string
}

// ReadFile implements pipeline.Store: path, a workspace file, as the
// ledger branch holds it; nil when absent.
func (s branchStore) ReadFile(ctx context.Context, path string) ([]byte, error) {
	rel, err := pipeline.Spec{Dir: s.j.workspace()}.WorkspacePath(path)
	if err != nil {
		return nil, err
	}
	data, err := s.j.gh.ReadFile(ctx, s.branch, rel)
	if err != nil {
		return nil, fmt.Errorf("read %s from the ledger branch: %w", rel, err)
	}
	return data, nil
}
