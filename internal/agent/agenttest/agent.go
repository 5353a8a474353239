package agenttest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/optr-dev/optr/internal/agent"
)

// Reply decides one attempt of an Agent, as the agent would: from the
// request, until ctx ends.
type Reply func(ctx context.Context, req agent.Request) (agent.Response, error)

// Call is one attempt an Agent was asked for.
type Call struct {
	// Req is the attempt's request.
	Req agent.Request
	// At is when the attempt started, by time.Now (a synctest bubble's
	// clock inside one).
	At time.Time
}

// Agent is an agent.Agent whose attempts are its Reply's. It is safe for
// concurrent use as long as its Reply is.
type Agent struct {
	name  string
	reply Reply

	mu    sync.Mutex
	calls []Call
}

// New returns the agent name whose attempts reply decides.
func New(name string, reply Reply) *Agent { return &Agent{name: name, reply: reply} }

// Name is the agent's name.
func (a *Agent) Name() string { return a.name }

// Run records the attempt, then lets the Reply decide it.
func (a *Agent) Run(ctx context.Context, req agent.Request) (agent.Response, error) {
	a.mu.Lock()
	a.calls = append(a.calls, Call{Req: req, At: time.Now()})
	a.mu.Unlock()
	return a.reply(ctx, req)
}

// Calls are the attempts the agent was asked for, in order.
func (a *Agent) Calls() []Call {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]Call(nil), a.calls...)
}

// Requests are the requests of the agent's attempts, in order.
func (a *Agent) Requests() []agent.Request {
	var out []agent.Request
	for _, c := range a.Calls() {
		out = append(out, c.Req)
	}
	return out
}

// Count is how many attempts the agent was asked for.
func (a *Agent) Count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.calls)
}

// Answer is a Reply that answers output.
func Answer(output string) Reply {
	return func(context.Context, agent.Request) (agent.Response, error) {
		return agent.Response{Output: output}, nil
	}
}

// Hang is a Reply that never answers: it waits, showing no sign of life,
// until its context ends, and returns the context's cause.
func Hang(ctx context.Context, _ agent.Request) (agent.Response, error) {
	<-ctx.Done()
	return agent.Response{}, context.Cause(ctx)
}

// Steps is a Reply that plays replies in order, one per attempt. An
// attempt beyond the last fails the test, and the attempt with a fatal
// agent error.
func Steps(tb testing.TB, replies ...Reply) Reply {
	var mu sync.Mutex
	n := 0
	return func(ctx context.Context, req agent.Request) (agent.Response, error) {
		mu.Lock()
		i := n
		n++
		mu.Unlock()
		if i >= len(replies) {
			tb.Errorf("unexpected attempt %d (the script has %d)", i+1, len(replies))
			return agent.Response{}, agent.Errorf(agent.Fatal, "script_exhausted", "no step %d", i+1)
		}
		return replies[i](ctx, req)
	}
}
