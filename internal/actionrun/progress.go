package actionrun

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/optr-dev/optr/internal/action"
	"github.com/optr-dev/optr/internal/comment"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/markdown"
	"github.com/optr-dev/optr/internal/pipeline"
	"github.com/optr-dev/optr/internal/progress"
	"github.com/optr-dev/optr/internal/status"
)

// progressComment is the run's one live comment, the Action's
// pipeline.Observer: created once with its marker (or found again on a
// retry), then edited in place, coalesced. A run without an issue (a
// dispatch) has nothing to edit.
type progressComment struct {
	j     *Job
	issue int
	title string
	mu    sync.Mutex
	view  progress.View
	index map[string]int
	id    int64
	co    *progress.Coalescer
}

// Started implements pipeline.Observer: the comment with every agent queued.
func (pc *progressComment) Started(ctx context.Context, p *pipeline.Prepared) {
	j := pc.j
	pc.mu.Lock()
	pc.index = map[string]int{}
	pc.view = progress.View{
		RunID: p.Spec.RunID, Workflow: p.Spec.Workflow, Title: pc.title, Status: status.Running,
		Started: j.Now().UTC(), RunURL: j.runURL(),
	}
	for i, name := range p.AgentNames {
		pc.view.Agents = append(pc.view.Agents, progress.AgentLine{
			Name: name, Provider: p.Spec.Config.Agents[name].Provider, State: status.Queued,
		})
		pc.index[name] = i
	}
	body := progress.Comment(pc.view)
	pc.mu.Unlock()
	if pc.issue == 0 {
		return
	}
	// The comment is created by the first publish, about a second in, so
	// that it shows the agents already running and a run costs one request
	// per burst of changes (progress.NewRunCoalescer), not per change.
	pc.co = progress.NewRunCoalescer(ctx, progress.SystemClock{}, func(ctx context.Context, body string) error {
		if pc.id != 0 {
			return j.gh.EditComment(ctx, pc.id, body)
		}
		id, err := j.gh.UpsertComment(ctx, pc.issue, comment.KindRun, p.Spec.RunID, body)
		if err != nil {
			return fmt.Errorf("post the progress comment: %w", err)
		}
		pc.id = id
		return nil
	})
	pc.co.Update(body)
}

// attach makes the comment with id the one this progress edits.
func (pc *progressComment) attach(ctx context.Context, id int64) {
	pc.id = id
	pc.co = progress.NewRunCoalescer(ctx, progress.SystemClock{}, func(ctx context.Context, body string) error {
		return pc.j.gh.EditComment(ctx, id, body)
	})
}

func title(trig action.Trigger) string {
	if trig.Title != "" {
		return trig.Title
	}
	first, _, _ := strings.Cut(strings.TrimSpace(trig.Intent), "\n")
	return markdown.Truncate(first, 120)
}

// Event implements pipeline.Observer: it folds an agent state change into
// the view; safe for concurrent use.
func (pc *progressComment) Event(ev executor.Event) {
	pc.mu.Lock()
	if pc.index == nil {
		pc.index = map[string]int{}
	}
	i, ok := pc.index[ev.Agent]
	if !ok {
		pc.view.Agents = append(pc.view.Agents, progress.AgentLine{Name: ev.Agent})
		i = len(pc.view.Agents) - 1
		pc.index[ev.Agent] = i
	}
	line := &pc.view.Agents[i]
	line.State = ev.Status
	line.Elapsed = ev.Elapsed
	line.Attempts = max(line.Attempts, ev.Attempt)
	if ev.Result != nil {
		line.Attempts = len(ev.Result.Attempts)
		if ev.Result.Error != "" {
			line.Note = firstLine(ev.Result.Error)
		}
	}
	body := progress.Comment(pc.view)
	pc.mu.Unlock()
	if pc.co != nil && ev.Status != status.Queued {
		pc.co.Update(body)
	}
}

// Finished implements pipeline.Observer: the final state — table, π*,
// ledger hash and commit; or, when no agent could work at all (Copilot
// refused the token and there was no key), what to add instead.
func (pc *progressComment) Finished(ctx context.Context, rep *pipeline.Outcome) {
	if nothing := rep.NothingUsable(); rep.Status == status.Failed && nothing != nil {
		pc.publishBody(ctx, comment.Marker(comment.KindRun, rep.Spec.RunID)+"\n"+nothing.Comment())
		return
	}
	v := rep.View()
	v.Title, v.Commit, v.RunURL = pc.title, rep.Commit, pc.j.runURL()
	v.LedgerCheckpoint = pc.j.checkpointOf(rep)
	if rep.Commit != "" {
		v.CommitURL = pc.j.commitURL(rep.Commit)
		if !filepath.IsAbs(rep.ResultPath) {
			v.ResultURL = progress.BlobURL(pc.j.serverURL(), pc.j.env.Repository, rep.Commit, filepath.ToSlash(rep.ResultPath))
		}
	}
	pc.publish(ctx, v)
}

// Stopped implements pipeline.Observer: why the run could not go on.
func (pc *progressComment) Stopped(ctx context.Context, err error) {
	pc.mu.Lock()
	v := pc.view
	pc.mu.Unlock()
	v.Status, v.Message, v.Finished = status.Failed, err.Error(), pc.j.Now().UTC()
	pc.publish(ctx, v)
}

func (pc *progressComment) publish(ctx context.Context, v progress.View) {
	pc.mu.Lock()
	pc.view = v
	pc.mu.Unlock()
	pc.publishBody(ctx, progress.Comment(v))
}

// publishBody makes the comment say body now.
func (pc *progressComment) publishBody(ctx context.Context, body string) {
	if pc.co == nil {
		return
	}
	pc.co.Update(body)
	if err := pc.co.Flush(ctx); err != nil {
		pc.j.log.Warning("could not update the progress comment: " + err.Error())
	}
}

func (j *Job) commitURL(sha string) string {
	return strings.TrimSuffix(j.serverURL(), "/") + "/" + j.env.Repository + "/commit/" + sha
}

// runURL is the page of the Actions run that runs this job.
func (j *Job) runURL() string {
	return progress.ActionsRunURL(j.serverURL(), j.env.Repository, j.env.WorkflowRunID)
}

// serverURL is GITHUB_SERVER_URL, github.com when unset.
func (j *Job) serverURL() string {
	if s := j.Getenv("GITHUB_SERVER_URL"); s != "" {
		return s
	}
	return "https://github.com"
}

func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}
