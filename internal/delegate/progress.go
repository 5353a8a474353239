package delegate

import (
	"fmt"
	"strings"
	"sync"

	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/markdown"
	"github.com/optr-dev/optr/internal/status"
)

// TopicState is one topic as the progress comment shows it.
type TopicState struct {
	N     int
	Topic string
	// Agents are the result names of its specialists.
	Agents []string
	State  State
	// Findings is the valid report's findings_count.
	Findings int
	// Reason says why the topic failed.
	Reason string
}

// State is a topic's state while the run goes on.
type State string

// The topic states.
const (
	StateQueued  State = "queued"
	StateRunning State = "running"
	// StateWritten: every specialist of the topic finished; the barrier
	// has not yet judged the topic.
	StateWritten State = "written"
	StateValid   State = "valid"
	StateFailed  State = "failed"
)

// Progress is the run's topics as they stand.
type Progress struct {
	// Spec is the spec folder, datalake-relative.
	Spec   string
	Topics []TopicState
}

// Checklist renders the topics as a Markdown task list, one line a topic:
// checked when its report is valid. Topic text is untrusted and rendered
// inert.
func (p Progress) Checklist() string {
	var b strings.Builder
	for _, t := range p.Topics {
		box := " "
		if t.State == StateValid {
			box = "x"
		}
		fmt.Fprintf(&b, "- [%s] %03d %s — %s", box, t.N, markdown.Inline(t.Topic, 120), t.State)
		switch {
		case t.State == StateValid:
			fmt.Fprintf(&b, ", %d findings", t.Findings)
		case t.State == StateFailed && t.Reason != "":
			b.WriteString(": " + markdown.Inline(t.Reason, 200))
		}
		if len(t.Agents) > 0 {
			b.WriteString(" (" + markdown.Inline(strings.Join(t.Agents, ", "), 120) + ")")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// tracker keeps the topics' states from the executor's events.
type tracker struct {
	mu     sync.Mutex
	p      Progress
	topic  map[string]int // result name → index in p.Topics
	done   []int          // finished specialists per topic
	notify func(Progress)
}

func newTracker(spec string, plan []planned, notify func(Progress)) *tracker {
	t := &tracker{p: Progress{Spec: spec}, topic: map[string]int{}, done: make([]int, len(plan)), notify: notify}
	for i, pl := range plan {
		t.p.Topics = append(t.p.Topics, TopicState{N: pl.n, Topic: pl.topic.Topic, Agents: pl.names(), State: StateQueued})
		for _, c := range pl.cands {
			t.topic[c.name] = i
		}
	}
	return t
}

// event notes a specialist's state change.
func (t *tracker) event(ev executor.Event) {
	t.mu.Lock()
	i, ok := t.topic[ev.Agent]
	if !ok {
		t.mu.Unlock()
		return
	}
	st := &t.p.Topics[i]
	changed := false
	switch {
	case ev.Result != nil:
		t.done[i]++
		if t.done[i] == len(st.Agents) {
			st.State, changed = StateWritten, true
		}
	case st.State == StateQueued && (ev.Status == status.Running || ev.Status == status.Retrying):
		st.State, changed = StateRunning, true
	}
	if changed {
		t.publish()
	}
	t.mu.Unlock()
}

// final sets every topic's verdict from the outcome.
func (t *tracker) final(o *Outcome) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.p = o.progress()
	t.publish()
}

// publish hands a copy of the states to notify; t.mu is held, so the
// listener hears the changes in order.
func (t *tracker) publish() {
	if t.notify == nil {
		return
	}
	p := Progress{Spec: t.p.Spec, Topics: make([]TopicState, len(t.p.Topics))}
	copy(p.Topics, t.p.Topics)
	t.notify(p)
}

// start publishes the plan, every topic queued.
func (t *tracker) start() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.publish()
}
