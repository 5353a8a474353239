package gateway

import (
	"context"
	"net/http"
	"strings"
	"sync"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/cost"
	"github.com/optr-dev/optr/internal/provider"
	"github.com/optr-dev/optr/internal/sandbox/proxy"
)

// MaxCalls bounds the calls one attempt's record lists one by one; the
// use of those past it still counts (Record.Usage, and the meter).
const MaxCalls = 1000

// Badge is one agent's place at the gateway for a run: a placeholder key
// per provider it was given. Each attempt of the agent opens a Tab.
type Badge struct {
	g      *Gateway
	agent  string
	grants []*grant

	mu  sync.Mutex
	tab *Tab // the attempt running, nil between attempts
}

// Agent is the agent the badge was given to.
func (b *Badge) Agent() string { return b.agent }

// Placeholders are the agent's keys, one per provider.
func (b *Badge) Placeholders() []string {
	out := make([]string, len(b.grants))
	for i, gr := range b.grants {
		out[i] = gr.placeholder
	}
	return out
}

// Open starts the record of one attempt of the agent: its calls are
// charged to ctx's agent (cost.ForAgent, else the badge's), and every
// byte they bring is a sign of life told to progress (nil: nobody is
// told). Close the Tab when the attempt is over; a new Open replaces a Tab
// left open.
func (b *Badge) Open(ctx context.Context, progress func(agent.Progress)) *Tab {
	if cost.AgentOf(ctx) == "" {
		ctx = cost.ForAgent(ctx, b.agent)
	}
	t := &Tab{b: b, ctx: context.WithoutCancel(ctx), progress: progress}
	b.mu.Lock()
	b.tab = t
	b.mu.Unlock()
	return t
}

// running is the attempt's Tab that is open, nil when none is.
func (b *Badge) running() *Tab {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.tab
}

// Tab is the record of one attempt's calls.
type Tab struct {
	b        *Badge
	ctx      context.Context
	progress func(agent.Progress)
	flight   sync.WaitGroup

	mu      sync.Mutex
	closed  bool
	calls   []agent.Call
	omitted int
	usage   agent.Usage
	refused error
}

// Record is what an attempt's calls came to.
type Record struct {
	// Calls are its calls in the order they ended; Omitted counts those
	// past MaxCalls.
	Calls   []agent.Call
	Omitted int
	// Usage is their use, all of them: what the meter was charged.
	Usage agent.Usage
	// Refused is the first call the gateway refused because of the
	// budget (it wraps a *cost.CapError, with the figures), nil when
	// none was.
	Refused error
}

// Env is what the agent's environment needs to use the gateway at addr
// (host:port, where the agent reaches it): each provider's base-URL
// variable and, in its key variables, the placeholder.
func (t *Tab) Env(addr string) []string {
	var env []string
	for _, gr := range t.b.grants {
		p, _ := provider.Lookup(gr.fam.provider)
		if p.BaseURLEnv != "" {
			env = append(env, p.BaseURLEnv+"=http://"+addr+gr.fam.basePath)
		}
		for _, k := range p.KeyEnv {
			env = append(env, k+"="+gr.placeholder)
		}
	}
	return env
}

// ServeHTTP serves the attempt's own connection to optr (its proxy
// session's address): the key must be one of this agent's.
func (t *Tab) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	gr := t.b.g.lookup(credential(r))
	switch {
	case gr == nil:
		fam := t.defaultFamily(r)
		if !t.b.given(fam) {
			fam.writeError(w, failUnknownKey, "agent "+t.b.agent+" was given no "+fam.name+" through the gateway (its gateway: list names "+strings.Join(t.b.names(), ", ")+")")
			return
		}
		fam.writeError(w, failUnknownKey, "this request carries no key optr gave this agent; use the key in its environment")
	case gr.badge != t.b:
		gr.fam.writeError(w, failOtherAgent, "this key belongs to another agent of the run")
	default:
		t.serve(w, r, gr)
	}
}

// defaultFamily is the family to refuse r in: the one r's path is an API
// of, else the agent's own, when it has one.
func (t *Tab) defaultFamily(r *http.Request) *family {
	if f, ok := pathFamily(r.URL.Path); ok {
		return f
	}
	if len(t.b.grants) == 1 {
		return t.b.grants[0].fam
	}
	return guessFamily(r)
}

// given reports whether the agent was given fam.
func (b *Badge) given(fam *family) bool {
	for _, gr := range b.grants {
		if gr.fam == fam {
			return true
		}
	}
	return false
}

// names are the providers the agent was given, by their gateway names.
func (b *Badge) names() []string {
	out := make([]string, len(b.grants))
	for i, gr := range b.grants {
		out[i] = gr.fam.name
	}
	return out
}

// guessFamily is the family whose API r's path looks like, for a refusal
// of a request that says nothing else: OpenAI's when it looks like none.
func guessFamily(r *http.Request) *family {
	if f, ok := pathFamily(r.URL.Path); ok {
		return f
	}
	f, _ := familyOf(OpenAI)
	return f
}

// pathFamily is the family p is an API path of; false when p is none's.
func pathFamily(p string) (*family, bool) {
	var name string
	switch {
	case strings.HasPrefix(p, "/openai/"):
		name = Azure
	case strings.HasSuffix(p, "/messages"), strings.Contains(p, "/messages/"):
		name = Anthropic
	case strings.Contains(p, ":generateContent"), strings.Contains(p, ":streamGenerateContent"), strings.HasPrefix(p, "/v1beta/"):
		name = Gemini
	case strings.HasSuffix(p, "/chat/completions"), strings.HasSuffix(p, "/responses"), strings.Contains(p, "/responses/"):
		name = OpenAI
	default:
		return nil, false
	}
	return familyOf(name)
}

// alive tells the attempt's watcher that n bytes passed.
func (t *Tab) alive(n int) {
	if t.progress != nil {
		t.progress(agent.Progress{Bytes: n})
	}
}

// begin counts a call in flight; false when the tab is closed.
func (t *Tab) begin() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return false
	}
	t.flight.Add(1)
	return true
}

// record adds one ended call.
func (t *Tab) record(c agent.Call) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.usage = t.usage.Add(c.Usage)
	if len(t.calls) < MaxCalls {
		t.calls = append(t.calls, c)
	} else {
		t.omitted++
	}
}

// Close ends the attempt's record: calls still in flight are waited for
// (the attempt's processes are gone, so they end), later ones are
// refused. It returns the record.
func (t *Tab) Close() Record {
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	t.flight.Wait()
	t.b.mu.Lock()
	if t.b.tab == t {
		t.b.tab = nil
	}
	t.b.mu.Unlock()
	t.mu.Lock()
	defer t.mu.Unlock()
	return Record{Calls: t.calls, Omitted: t.omitted, Usage: t.usage, Refused: t.refused}
}

// Listen is the address of the gateway's own listener (Gateway.Listen),
// for an attempt that runs without the sandbox.
func (b *Badge) Listen() (string, error) { return b.g.Listen() }

// Direct counts the requests in an attempt's egress record that went to a
// model API past the gateway (Gateway.Direct).
func (b *Badge) Direct(hosts []proxy.Host) int64 { return b.g.Direct(hosts) }
