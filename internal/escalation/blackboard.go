package escalation

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"time"

	"github.com/optr-dev/optr/internal/datalake"
)

// Agent states on the blackboard (the seed's vocabulary).
const (
	StatusActive    = "active"
	StatusCompleted = "completed"
	StatusFailed    = "failed"
	StatusStuck     = "stuck"
)

// Task states in the task queue.
const (
	TaskPending   = "pending"
	TaskActive    = "active"
	TaskCompleted = "completed"
	TaskFailed    = "failed"
	TaskAborted   = "aborted"
)

// Blackboard is .coordination/blackboard.json, the seed's shape:
//
//	{"agents": {"<id>": {"status", "task", "outputs", "error", "updated_at"}},
//	 "task_queue": [{"id", "description", "status", "assigned_to", "attempts"}],
//	 "findings": [...], "messages": [...]}
//
// Every member optr does not model, at every level it reads, is written
// back unchanged, and so is every modelled member nobody changed.
type Blackboard struct {
	// Agents by id.
	Agents map[string]*AgentState
	// TaskQueue in order.
	TaskQueue []*Task
	// Findings and Messages are kept as JSON values.
	Findings []json.RawMessage
	Messages []json.RawMessage
	// Problems lists what could not be read. A blackboard with problems is
	// copied aside (blackboard.json.bak-<timestamp>) before it is rewritten.
	Problems []string

	rec        record
	agentOrder []string
	agentsRaw  json.RawMessage // "agents" when it was not an object
	queueRaw   json.RawMessage // "task_queue" when it was not an array
	original   []byte          // the file as read, for the backup
	backedUp   bool
}

// AgentState is one agent on the blackboard.
type AgentState struct {
	Status    string
	Task      string
	Outputs   []json.RawMessage
	Error     string
	UpdatedAt string
	rec       record
}

func (a *AgentState) fields() []field {
	return []field{bind("status", &a.Status), bind("task", &a.Task), bind("outputs", &a.Outputs),
		bind("error", &a.Error), bind("updated_at", &a.UpdatedAt)}
}

// Task is one entry of the task queue.
type Task struct {
	ID          string
	Description string
	Status      string
	AssignedTo  string
	Attempts    int
	rec         record
}

func (t *Task) fields() []field {
	return []field{bind("id", &t.ID), bind("description", &t.Description), bind("status", &t.Status),
		bind("assigned_to", &t.AssignedTo), bind("attempts", &t.Attempts)}
}

func (b *Blackboard) fields() []field {
	return []field{bind("findings", &b.Findings), bind("messages", &b.Messages)}
}

// NewBlackboard returns an empty blackboard.
func NewBlackboard() *Blackboard {
	return &Blackboard{Agents: map[string]*AgentState{}, Findings: []json.RawMessage{}, Messages: []json.RawMessage{}}
}

// ParseBlackboard reads a blackboard. It never fails: empty input is an
// empty blackboard, and anything it cannot read is listed in Problems and
// kept (or, when the whole file is not JSON, copied aside on Save).
func ParseBlackboard(data []byte) *Blackboard {
	b := NewBlackboard()
	if len(bytes.TrimSpace(data)) == 0 {
		return b
	}
	b.original = bytes.Clone(data)
	if _, err := decodeObject(data); err != nil {
		b.Problems = append(b.Problems, fmt.Sprintf("blackboard.json is not a JSON object (%v); a fresh one is started and the old one is kept beside it", err))
		return b
	}
	b.Findings, b.Messages = nil, nil
	b.Problems = append(b.Problems, b.rec.load("blackboard.json", data, b.fields())...)
	// Absent lists start empty (the seed's shape); lists of the wrong type
	// stay nil so that they are kept as read unless something is added.
	if _, ok := b.rec.doc.vals["findings"]; !ok {
		b.Findings = []json.RawMessage{}
	}
	if _, ok := b.rec.doc.vals["messages"]; !ok {
		b.Messages = []json.RawMessage{}
	}
	if raw, ok := b.rec.doc.vals["agents"]; ok {
		b.loadAgents(raw)
	}
	if raw, ok := b.rec.doc.vals["task_queue"]; ok {
		b.loadQueue(raw)
	}
	return b
}

func (b *Blackboard) loadAgents(raw json.RawMessage) {
	o, err := decodeObject(raw)
	if err != nil {
		b.agentsRaw = raw
		b.Problems = append(b.Problems, fmt.Sprintf("blackboard.json agents is not an object (%v); it is kept as it is", err))
		return
	}
	for _, id := range o.keys {
		a := &AgentState{}
		b.Problems = append(b.Problems, a.rec.load("agents."+id, o.vals[id], a.fields())...)
		b.Agents[id] = a
		b.agentOrder = append(b.agentOrder, id)
	}
}

func (b *Blackboard) loadQueue(raw json.RawMessage) {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		b.queueRaw = raw
		b.Problems = append(b.Problems, fmt.Sprintf("blackboard.json task_queue is not an array (%v); it is kept as it is", err))
		return
	}
	for i, it := range items {
		t := &Task{}
		b.Problems = append(b.Problems, t.rec.load(fmt.Sprintf("task_queue[%d]", i), it, t.fields())...)
		b.TaskQueue = append(b.TaskQueue, t)
	}
}

// Agent returns agent id, adding it (in the seed's shape) when it is new.
func (b *Blackboard) Agent(id string) *AgentState {
	if a, ok := b.Agents[id]; ok {
		return a
	}
	a := &AgentState{Outputs: []json.RawMessage{}}
	b.Agents[id] = a
	b.agentOrder = append(b.agentOrder, id)
	return a
}

// AgentIDs returns the agents' ids in the file's order, new ones last.
func (b *Blackboard) AgentIDs() []string {
	var ids []string
	for _, id := range b.agentOrder {
		if _, ok := b.Agents[id]; ok && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	var extra []string
	for id := range b.Agents {
		if !slices.Contains(ids, id) {
			extra = append(extra, id)
		}
	}
	slices.Sort(extra)
	return append(ids, extra...)
}

// AddTask appends a task to the queue and returns it.
func (b *Blackboard) AddTask(id, description, status, assignedTo string) *Task {
	t := &Task{ID: id, Description: description, Status: status, AssignedTo: assignedTo}
	b.TaskQueue = append(b.TaskQueue, t)
	return t
}

// TaskFor returns the latest task assigned to agent that is not finished,
// or else the latest task assigned to it, or nil.
func (b *Blackboard) TaskFor(agent string) *Task {
	var any *Task
	for i := len(b.TaskQueue) - 1; i >= 0; i-- {
		t := b.TaskQueue[i]
		if t.AssignedTo != agent {
			continue
		}
		if t.Status != TaskCompleted && t.Status != TaskAborted {
			return t
		}
		if any == nil {
			any = t
		}
	}
	return any
}

// AddMessage appends v, encoded as JSON, to the messages.
func (b *Blackboard) AddMessage(v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode blackboard message: %w", err)
	}
	b.Messages = append(b.Messages, raw)
	return nil
}

// MarshalJSON writes the blackboard, unknown members included.
func (b *Blackboard) MarshalJSON() ([]byte, error) {
	if b.agentsRaw == nil || len(b.Agents) > 0 {
		agents := object{}
		for _, id := range b.AgentIDs() {
			raw, err := b.Agents[id].rec.store(b.Agents[id].fields())
			if err != nil {
				return nil, fmt.Errorf("agents.%s: %w", id, err)
			}
			agents.setRaw(id, raw)
		}
		raw, err := json.Marshal(agents)
		if err != nil {
			return nil, err
		}
		b.rec.doc.setRaw("agents", raw)
	}
	if b.queueRaw == nil || len(b.TaskQueue) > 0 {
		items := make([]json.RawMessage, 0, len(b.TaskQueue))
		for i, t := range b.TaskQueue {
			raw, err := t.rec.store(t.fields())
			if err != nil {
				return nil, fmt.Errorf("task_queue[%d]: %w", i, err)
			}
			items = append(items, raw)
		}
		raw, err := json.Marshal(items)
		if err != nil {
			return nil, err
		}
		b.rec.doc.setRaw("task_queue", raw)
	}
	if b.rec.orig == nil { // a new blackboard: the seed's member order
		b.rec.orig = map[string]json.RawMessage{}
		for _, f := range b.fields() {
			b.rec.orig[f.key()] = nil
		}
	}
	return b.rec.store(b.fields())
}

// LoadBlackboard reads the blackboard at path; a missing file is an empty
// blackboard. Only a file that exists but cannot be read is an error.
func LoadBlackboard(path string) (*Blackboard, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return NewBlackboard(), nil
	}
	if err != nil {
		return nil, fmt.Errorf("read blackboard: %w", err)
	}
	return ParseBlackboard(data), nil
}

// Save writes the blackboard to path atomically (temporary file + rename).
// When it was read with problems, the file as read is first copied to
// <path>.bak-<timestamp>, once, so no one's data is lost.
func (b *Blackboard) Save(path string, now time.Time) error {
	data, err := b.Encode(path, now)
	if err != nil {
		return err
	}
	if err := datalake.Replace(path, data); err != nil {
		return fmt.Errorf("write blackboard: %w", err)
	}
	return nil
}

// Encode returns the blackboard's file content for path. It first keeps
// the copy Save promises of a blackboard that was read with problems.
func (b *Blackboard) Encode(path string, now time.Time) ([]byte, error) {
	if len(b.Problems) > 0 && b.original != nil && !b.backedUp {
		if _, err := writeNew(path+".bak-"+now.UTC().Format("20060102-150405"), "", b.original); err != nil {
			return nil, fmt.Errorf("keep a copy of the unreadable blackboard before rewriting it: %w", err)
		}
		b.backedUp = true
	}
	raw, err := json.Marshal(b)
	if err != nil {
		return nil, fmt.Errorf("encode blackboard: %w", err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, raw, "", "  "); err != nil {
		return nil, fmt.Errorf("encode blackboard: %w", err)
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}
