package llm

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"time"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/provider"
	"github.com/optr-dev/optr/internal/sandbox"
)

// base is what every provider's agent shares.
type base struct {
	name     string
	provider string
	// model is what the request names: the model id, or for azure-openai
	// the deployment.
	model     string
	role      string
	maxTokens int64
	timeout   time.Duration
	// wire is the wire format the agent's requests use ("" for copilot,
	// whose CLI speaks for it).
	wire provider.Wire
	// secret is the API key, redacted from every error message; keyVar names
	// the variable it came from, for advice in errors.
	secret string
	keyVar string
	// copilotAuth is set for copilot agents on Copilot's own models, whose
	// 401 and 403 mean the token may not use Copilot (see copilotRefused).
	copilotAuth bool
	// unusable, when set, is why the agent cannot work here at all (no
	// Copilot CLI, no token): every attempt fails with it at once, and
	// Preflight reports it before any run starts.
	unusable *agent.Error
	client   *http.Client
	log      *slog.Logger
	// sandbox confines the programs the agent starts (the Copilot CLI).
	sandbox *sandbox.Run
}

// completion is a provider's answer, reduced to what optr uses.
type completion struct {
	// text is the model's answer text.
	text string
	// refusal is set when the model declined the task.
	refusal string
	// stop is the provider's reason for stopping; cut is true when that
	// reason is the output token limit.
	stop string
	cut  bool
	// model is the model the API reports.
	model string
	usage agent.Usage
	// structured is true when the request held the model to the answer
	// schema (a json_schema response format): then only JSON is an
	// answer. Otherwise the prompt alone asked for it, and a model may
	// answer the question in plain text instead.
	structured bool
}

// caller sends one request. raw receives the HTTP response when there was
// one, even on error, so failures can be classified by status and headers.
type caller func(ctx context.Context, p prompt, raw **http.Response) (completion, error)

// llmAgent is an agent.Agent backed by one provider.
type llmAgent struct {
	base
	call caller
}

// Name implements agent.Agent.
func (a *llmAgent) Name() string { return a.name }

// Preflight implements agent.Preflighter.
func (a *llmAgent) Preflight() error {
	if a.unusable == nil {
		return nil
	}
	return a.unusable
}

// Run implements agent.Agent: one prompt, one request, one classified result.
func (a *llmAgent) Run(ctx context.Context, req agent.Request) (agent.Response, error) {
	p := buildPrompt(req, a.role)
	attemptCtx, cancel := context.WithTimeout(ctx, a.timeout)
	defer cancel()
	attemptCtx = tellSent(attemptCtx, req.Sent)

	var raw *http.Response
	start := time.Now()
	c, err := a.call(attemptCtx, p, &raw)
	elapsed := time.Since(start)
	if err != nil {
		e := a.classify(ctx, attemptCtx, raw, err)
		a.log.LogAttrs(ctx, slog.LevelDebug, "llm request failed",
			slog.String("agent", a.name), slog.String("provider", a.provider), slog.String("model", a.model),
			slog.Duration("elapsed", elapsed), slog.String("class", string(e.Class)), slog.String("reason", e.Reason),
			slog.Int("status", e.Status))
		return agent.Response{}, e
	}
	a.log.LogAttrs(ctx, slog.LevelDebug, "llm request",
		slog.String("agent", a.name), slog.String("provider", a.provider), slog.String("model", c.model),
		slog.Duration("elapsed", elapsed), slog.Int64("input_tokens", c.usage.InputTokens),
		slog.Int64("output_tokens", c.usage.OutputTokens), slog.String("stop", c.stop))

	resp := agent.Response{Model: c.model, Usage: c.usage, FirstOutput: elapsed}
	if req.Progress != nil {
		req.Progress(agent.Progress{Bytes: len(c.text), Tokens: c.usage.OutputTokens})
	}
	return a.finish(resp, c)
}

// tellSent returns ctx carrying a trace that calls sent once a request
// made with it is written to its connection (the SDKs make their requests
// with the context they are given); ctx itself when sent is nil.
func tellSent(ctx context.Context, sent func()) context.Context {
	if sent == nil {
		return ctx
	}
	var once sync.Once
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		WroteRequest: func(info httptrace.WroteRequestInfo) {
			if info.Err == nil {
				once.Do(sent)
			}
		},
	})
}

// finish turns the model's text into the Response, or a Systematic error
// when it holds nothing usable.
func (a *llmAgent) finish(resp agent.Response, c completion) (agent.Response, error) {
	if c.refusal != "" {
		resp.Raw = c.refusal
		return resp, agent.Errorf(agent.Systematic, "refusal", "model %s declined the task: %s", c.model, a.redact(c.refusal))
	}
	ans, err := parseAnswer(c.text)
	if err != nil {
		resp.Raw = c.text
		if c.cut {
			return resp, agent.Errorf(agent.Systematic, "unparseable_output",
				"the answer stopped at the output limit of %d tokens before its JSON was complete; raise max-tokens or ask for a shorter output: %w", a.maxTokens, err)
		}
		if c.structured || strings.TrimSpace(c.text) == "" || wrapped(c.text) {
			return resp, agent.Errorf(agent.Systematic, "unparseable_output", "%w", err)
		}
		// A model asked for JSON by the prompt alone that answered the
		// question in plain text (the Copilot CLI has no structured-output
		// switch): its answer is the output, with no TTV estimate.
		ans, resp.Raw = answer{Output: c.text}, ""
	}
	resp.Output = ans.Output
	resp.TTV = ans.TTV
	return resp, nil
}
