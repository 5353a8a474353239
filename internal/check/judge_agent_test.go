package check

import (
	"context"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/optr-dev/optr/internal/agent"
)

// scriptedAgent is an in-test agent.Agent: reply decides each answer from
// the request, the way a model would read the prompt.
type scriptedAgent struct {
	name  string
	reply func(ctx context.Context, req agent.Request) (agent.Response, error)
	calls atomic.Int64

	mu   sync.Mutex
	reqs []agent.Request
}

func (a *scriptedAgent) Name() string { return a.name }

func (a *scriptedAgent) Run(ctx context.Context, req agent.Request) (agent.Response, error) {
	a.calls.Add(1)
	a.mu.Lock()
	a.reqs = append(a.reqs, req)
	a.mu.Unlock()
	return a.reply(ctx, req)
}

func (a *scriptedAgent) requests() []agent.Request {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]agent.Request(nil), a.reqs...)
}

var candidateRE = regexp.MustCompile(`(?s)\n<<<BEGIN-([A-Z2-7]+)>>>\n(.*)\n<<<END-([A-Z2-7]+)>>>\n`)

// candidate returns the delimited candidate of a judging prompt, or ok=false
// when the prompt does not hold exactly one well-formed block.
func candidate(prompt string) (string, bool) {
	m := candidateRE.FindAllStringSubmatch(prompt, -1)
	if len(m) != 1 || m[0][1] != m[0][3] {
		return "", false
	}
	return m[0][2], true
}

// ruleJudge is a judge that reads the candidate out of the prompt and passes
// it when it contains want, as a model following the prompt would.
func ruleJudge(name, want string) *scriptedAgent {
	return &scriptedAgent{name: name, reply: func(_ context.Context, req agent.Request) (agent.Response, error) {
		c, ok := candidate(req.Intent)
		switch {
		case !ok:
			return agent.Response{Output: "I cannot find the candidate."}, nil
		case strings.Contains(c, want):
			return agent.Response{Output: `{"pass": true, "reason": "it says ` + want + `"}`}, nil
		default:
			return agent.Response{Output: `{"pass": false, "reason": "it never says ` + want + `"}`}, nil
		}
	}}
}
