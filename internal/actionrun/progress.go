package actionrun

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/optr-dev/optr/internal/action"
	"github.com/optr-dev/optr/internal/comment"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/pipeline"
	"github.com/optr-dev/optr/internal/progress"
)

// editInterval is the least time between two edits of the progress comment.
const editInterval = 2 * time.Second

// progressComment is the run's one live comment: created once with its
// marker (or found again on a retry), then edited in place, coalesced.
type progressComment struct {
	j     *Job
	issue int
	mu    sync.Mutex
	view  progress.View
	index map[string]int
	id    int64
	co    *progress.Coalescer
}

func (j *Job) newProgress(ctx context.Context, trig action.Trigger, runID string, p *pipeline.Prepared) *progressComment {
	pc := &progressComment{j: j, issue: trig.Issue, index: map[string]int{}}
	pc.view = progress.View{
		RunID: runID, Workflow: p.Spec.Workflow, Title: title(trig), Status: progress.StatusRunning,
		Started: j.Now().UTC(),
	}
	for i, name := range p.AgentNames {
		pc.view.Agents = append(pc.view.Agents, progress.AgentLine{
			Name: name, Provider: p.Spec.Config.Agents[name].Provider, State: progress.StateQueued,
		})
		pc.index[name] = i
	}
	if trig.Issue == 0 {
		return pc // a dispatch run has no issue to talk on
	}
	id, err := j.gh.UpsertComment(ctx, trig.Issue, comment.KindRun, runID, progress.Comment(pc.view))
	if err != nil {
		j.log.Warning("could not post the progress comment: " + err.Error())
		return pc
	}
	pc.attach(ctx, id)
	return pc
}

// attach makes the comment with id the one this progress edits.
func (pc *progressComment) attach(ctx context.Context, id int64) {
	pc.id = id
	pc.co = progress.NewCoalescer(ctx, editInterval, progress.SystemClock{}, func(ctx context.Context, body string) error {
		return pc.j.gh.EditComment(ctx, id, body)
	})
}

func title(trig action.Trigger) string {
	if trig.Title != "" {
		return trig.Title
	}
	first, _, _ := strings.Cut(strings.TrimSpace(trig.Intent), "\n")
	return comment.Truncate(first, 120)
}

// event folds an agent state change into the view; safe for concurrent use.
func (pc *progressComment) event(ev executor.Event) {
	pc.mu.Lock()
	i, ok := pc.index[ev.Agent]
	if !ok {
		pc.view.Agents = append(pc.view.Agents, progress.AgentLine{Name: ev.Agent})
		i = len(pc.view.Agents) - 1
		pc.index[ev.Agent] = i
	}
	line := &pc.view.Agents[i]
	line.State = progress.State(ev.Status)
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
	if pc.co != nil && ev.Status != executor.Queued {
		pc.co.Update(body)
	}
}

// finish shows the final state: table, π*, ledger hash and commit.
func (pc *progressComment) finish(ctx context.Context, rep *pipeline.Report, commit string) {
	v := rep.View()
	v.Title, v.Commit = pc.view.Title, commit
	if commit != "" {
		v.CommitURL = pc.j.commitURL(commit)
	}
	pc.publish(ctx, v)
}

// fail shows why the run stopped.
func (pc *progressComment) fail(ctx context.Context, msg string) {
	pc.mu.Lock()
	v := pc.view
	pc.mu.Unlock()
	v.Status, v.Message, v.Finished = progress.StatusFailed, msg, pc.j.Now().UTC()
	pc.publish(ctx, v)
}

func (pc *progressComment) publish(ctx context.Context, v progress.View) {
	pc.mu.Lock()
	pc.view = v
	pc.mu.Unlock()
	if pc.co == nil {
		return
	}
	pc.co.Update(progress.Comment(v))
	if err := pc.co.Flush(ctx); err != nil {
		pc.j.log.Warning("could not update the progress comment: " + err.Error())
	}
}

func (j *Job) commitURL(sha string) string {
	server := j.Getenv("GITHUB_SERVER_URL")
	if server == "" {
		server = "https://github.com"
	}
	return strings.TrimSuffix(server, "/") + "/" + j.env.Repository + "/commit/" + sha
}

func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}
