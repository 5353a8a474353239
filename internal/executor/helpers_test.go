package executor

import (
	"context"
	"log/slog"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/agent/agenttest"
	"github.com/optr-dev/optr/internal/agent/command"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/escalation"
	"github.com/optr-dev/optr/internal/status"
)

// sh is a command agent running script with sh -c.
func sh(t *testing.T, name, script string) Task {
	t.Helper()
	a, err := command.New(name, config.Agent{Provider: config.ProviderCommand, Run: []string{"sh", "-c", script}},
		command.Options{Logger: slog.New(slog.DiscardHandler), KillGrace: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return Task{Agent: a, Provider: config.ProviderCommand}
}

// meter measures how many of its agents run at once: each one waits
// until as many as the test expects have run together (want), so the peak
// is reached by signals, not by agents that happen to sleep long enough to
// overlap.
type meter struct {
	want    int64
	now     atomic.Int64
	peak    atomic.Int64
	once    sync.Once
	reached chan struct{}
}

func newMeter(want int) *meter { return &meter{want: int64(want), reached: make(chan struct{})} }

// gauge is an agent of the meter, answering "<name> done".
func (m *meter) gauge(name string) *agenttest.Agent {
	return agenttest.New(name, func(ctx context.Context, _ agent.Request) (agent.Response, error) {
		return m.run(ctx, name)
	})
}

func (m *meter) run(ctx context.Context, name string) (agent.Response, error) {
	n := m.now.Add(1)
	defer m.now.Add(-1)
	for {
		p := m.peak.Load()
		if n <= p || m.peak.CompareAndSwap(p, n) {
			break
		}
	}
	if m.peak.Load() >= m.want {
		m.once.Do(func() { close(m.reached) })
	}
	select {
	case <-m.reached:
		return agent.Response{Output: name + " done"}, nil
	case <-ctx.Done():
		return agent.Response{}, ctx.Err()
	}
}

// recorder collects what a run reports: sunk results and events, in order.
type recorder struct {
	mu     sync.Mutex
	sunk   []*Result
	events []Event
}

func (rc *recorder) sink(r *Result) error {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.sunk = append(rc.sunk, r)
	return nil
}

func (rc *recorder) event(ev Event) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.events = append(rc.events, ev)
}

func (rc *recorder) sunkNames() []string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var out []string
	for _, r := range rc.sunk {
		out = append(out, r.Agent)
	}
	return out
}

// watched is a real escalation.Watcher plugged into opts.
type watched struct {
	w   *escalation.Watcher
	dir string
	// stop stops the watcher, as a run's end does: it returns once a
	// decision the watcher's own goroutine made (a stall) was told.
	stop func()
	mu   sync.Mutex
	all  []escalation.Escalation
}

func watch(t *testing.T, opts *Options, wo escalation.WatcherOptions) *watched {
	t.Helper()
	wd := &watched{dir: filepath.Join(t.TempDir(), "run", ".coordination")}
	wo.Dir, wo.RunID = wd.dir, "7-1"
	for _, task := range opts.Tasks {
		wo.Agents = append(wo.Agents, task.Agent.Name())
	}
	wo.OnDecision = func(e escalation.Escalation) {
		wd.mu.Lock()
		defer wd.mu.Unlock()
		wd.all = append(wd.all, e)
	}
	w, err := escalation.NewWatcher(wo)
	if err != nil {
		t.Fatal(err)
	}
	wd.w = w
	wd.stop = w.Start(t.Context())
	t.Cleanup(wd.stop)
	opts.Supervise, opts.Failed, opts.MaxRestarts = w.Supervise, w.Failed, wo.MaxRestarts
	return wd
}

func (wd *watched) actions() []escalation.Action {
	wd.mu.Lock()
	defer wd.mu.Unlock()
	var out []escalation.Action
	for _, e := range wd.all {
		out = append(out, e.Decision.Action)
	}
	return out
}

func (wd *watched) needHuman() int {
	wd.mu.Lock()
	defer wd.mu.Unlock()
	n := 0
	for _, e := range wd.all {
		if e.NeedsHuman() {
			n++
		}
	}
	return n
}

func byName(results []*Result) map[string]*Result {
	m := map[string]*Result{}
	for _, r := range results {
		m[r.Agent] = r
	}
	return m
}

func statuses(results []*Result) map[string]status.Status {
	m := map[string]status.Status{}
	for _, r := range results {
		m[r.Agent] = r.Status
	}
	return m
}
