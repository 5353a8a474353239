package escalation

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/optr-dev/optr/internal/datalake"
)

// coord writes the records of an escalation into a .coordination directory.
// Both the standalone handler and the in-run Watcher use it.
type coord struct {
	dir   string
	inbox string
	log   *logger
}

func (c *coord) path(name string) string { return filepath.Join(c.dir, name) }

// inboxDir is the default ceo-inbox: beside the .coordination directory, as
// in the seed.
func inboxDir(coordDir string) string {
	return filepath.Join(filepath.Dir(filepath.Clean(coordDir)), DirCEOInbox)
}

// writeTrigger writes escalate.md for e (tier 1).
func (c *coord) writeTrigger(e *Escalation) error {
	if err := datalake.Replace(c.path(FileEscalate), []byte(renderEscalationFile(e))); err != nil {
		return fmt.Errorf("write %s: %w", FileEscalate, err)
	}
	return nil
}

// conclude records a decided escalation: the ceo-inbox file when a person
// must hear of it, decision.md, the blackboard (when not nil), a
// watcher-log entry, and, only when all of those were written, the trigger
// moved to the archive. It writes as much as it can and reports every step
// that failed.
func (c *coord) conclude(e *Escalation, board *Blackboard) error {
	var errs []error
	fail := func(what string, err error) {
		err = fmt.Errorf("%s: %w", what, err)
		c.log.errorf("escalation %s: %v", e.ID, err)
		errs = append(errs, err)
	}
	if e.NeedsHuman() {
		base := filepath.Join(c.inbox, e.Time.Format("2006-01-02")+"-watcher-escalation-"+e.ID)
		path, err := writeNew(base, ".md", []byte(renderInbox(e, c.dir)))
		if err != nil {
			fail("write the ceo-inbox file", err)
		} else {
			e.InboxFile = path
			c.log.printf("escalation %s: wrote %s", e.ID, path)
		}
	}
	if err := datalake.Replace(c.path(FileDecision), []byte(renderDecision(e))); err != nil {
		fail("write "+FileDecision, err)
	}
	if board != nil {
		if err := board.Save(c.path(FileBlackboard), e.Time); err != nil {
			fail("update "+FileBlackboard, err)
		}
	}
	if err := appendLogEntry(c.path(FileWatcherLog), renderLogEntry(e)); err != nil {
		fail("append to "+FileWatcherLog, err)
	}
	c.log.printf("escalation %s: decision %s (%s)", e.ID, e.Decision.Action, e.Decision.Reason)
	if len(errs) > 0 {
		// The trigger is consumed only once its decision is on record;
		// otherwise it stays for the next attempt.
		c.log.errorf("escalation %s: %s left in place: not every record was written", e.ID, FileEscalate)
		return errors.Join(errs...)
	}
	base := filepath.Join(c.dir, filepath.FromSlash(DirArchive), "escalate-"+e.Time.Format("20060102-150405"))
	path, err := moveNew(c.path(FileEscalate), base, ".md")
	if err != nil {
		fail("archive "+FileEscalate, err)
		return errors.Join(errs...)
	}
	c.log.printf("escalation %s: archived the trigger to %s", e.ID, path)
	return nil
}

// applyToBoard carries a decision out on the blackboard and adds what was
// done to e.Actions: the task queue tells whoever runs the agents (the
// executor in a run, the seed's conductor outside one) what to do next.
// sources names the partial outputs a synthesis would gather.
func applyToBoard(b *Blackboard, e *Escalation, sources []string) {
	ts := e.Time.UTC().Format(time.RFC3339)
	var agent *AgentState
	var task *Task
	if e.Agent != "" {
		agent = b.Agent(e.Agent)
		agent.UpdatedAt = ts
		if task = b.TaskFor(e.Agent); task == nil && agent.Task != "" {
			task = b.AddTask("task-"+e.Agent, agent.Task, TaskActive, e.Agent)
		}
	}
	switch e.Decision.Action {
	case Restart:
		if agent != nil {
			agent.Error = ""
		}
		if task != nil {
			task.Status, task.AssignedTo = TaskPending, e.Agent
			task.Attempts++
			e.Actions = append(e.Actions, fmt.Sprintf("task %s queued again for %s with fresh state", task.ID, e.Agent))
		}
	case Reassign:
		if agent != nil {
			agent.Status = StatusFailed
		}
		if task != nil {
			task.Status, task.AssignedTo = TaskPending, ""
			task.Attempts++
			e.Actions = append(e.Actions, fmt.Sprintf("task %s put back in the queue for another agent", task.ID))
		}
		if agent != nil {
			e.Actions = append(e.Actions, fmt.Sprintf("agent %s marked failed", e.Agent))
		}
	case Synthesize:
		if agent != nil && e.Situation.Error {
			agent.Status = StatusFailed
		}
		what := "the partial outputs"
		if len(sources) > 0 {
			what += " of " + strings.Join(sources, ", ")
		}
		desc := "Synthesize " + what + " into one result"
		if task != nil && task.Description != "" {
			desc += " for: " + task.Description
		}
		t := b.AddTask("synthesize-"+e.ID, desc, TaskPending, "")
		e.Actions = append(e.Actions, fmt.Sprintf("synthesis task %s queued for %s", t.ID, what))
	case Abort:
		n := 0
		for _, t := range b.TaskQueue {
			if t.Status != TaskCompleted && t.Status != TaskAborted && t.Status != TaskFailed {
				t.Status = TaskAborted
				n++
			}
		}
		for _, id := range b.AgentIDs() {
			if a := b.Agents[id]; a.Status == StatusActive || a.Status == StatusStuck || a.Status == "" {
				a.Status, a.UpdatedAt = StatusFailed, ts
			}
		}
		e.Actions = append(e.Actions, fmt.Sprintf("%d unfinished task(s) marked aborted; running agents marked failed", n))
	case EscalateCEO:
		e.Actions = append(e.Actions, "handed to a person through the ceo-inbox")
	}
	if err := b.AddMessage(boardMessage{
		Time: ts, From: "optr", Type: "decision", Escalation: e.ID,
		Action: string(e.Decision.Action), Agent: e.Agent, Text: e.Decision.Reason,
	}); err != nil {
		e.Actions = append(e.Actions, err.Error())
	}
}

// boardMessage is the message a decision leaves on the blackboard.
type boardMessage struct {
	Time       string `json:"time"`
	From       string `json:"from"`
	Type       string `json:"type"`
	Escalation string `json:"escalation"`
	Action     string `json:"action"`
	Agent      string `json:"agent,omitempty"`
	Text       string `json:"text"`
}
