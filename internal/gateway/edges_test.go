package gateway_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	anthropicoption "github.com/anthropics/anthropic-sdk-go/option"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"google.golang.org/genai"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/agent/llm/llmtest"
	"github.com/optr-dev/optr/internal/cost"
	"github.com/optr-dev/optr/internal/gateway"
)

// post sends body to path at the rig's address with the headers given,
// and returns the status, the headers and the body of the answer.
func (r *rig) post(t *testing.T, path, body string, h http.Header) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, "http://"+r.addr+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = h
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, b
}

// TestNoUsageIsUnknown: a model's answer without usage — whole or
// streamed, in every wire format — is recorded as unknown (null, no
// cost), never as 0, and the meter's cost of the agent is unknown.
func TestNoUsageIsUnknown(t *testing.T) {
	t.Parallel()
	anthropicBody := `{"model":"claude-sonnet-4-5","max_tokens":10,"messages":[{"role":"user","content":"hi"}]%s}`
	chatBody := `{"model":"gpt-4.1","messages":[{"role":"user","content":"hi"}]%s}`
	for _, tc := range []struct {
		name, family string
		fake         func(testing.TB) *llmtest.Server
		path, body   string
		key          string
	}{
		{"anthropic", gateway.Anthropic, llmtest.NewAnthropic, "/v1/messages", anthropicBody, "X-Api-Key"},
		{"openai chat", gateway.OpenAI, llmtest.NewOpenAI, "/v1/chat/completions", chatBody, "Authorization"},
		{"openai responses", gateway.OpenAI, llmtest.NewOpenAI, "/v1/responses", `{"model":"gpt-4.1","input":"hi"%s}`, "Authorization"},
		{"gemini", gateway.Gemini, llmtest.NewGemini, "/v1beta/models/gemini-2.5-flash:generateContent", `{"contents":[{"parts":[{"text":"hi"}]}]%s}`, "X-Goog-Api-Key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fake := tc.fake(t)
			fake.Script(llmtest.Reply{Text: "x", NoUsage: true}, llmtest.Reply{Text: "streamed", NoUsage: true})
			r := newRig(t, tc.family, fake)
			key := r.badge.Placeholders()[0]
			if tc.key == "Authorization" {
				key = "Bearer " + key
			}
			h := header(tc.key, key, "Anthropic-Version", "2023-06-01")
			for _, extra := range []string{"", `,"stream":true`} {
				path := tc.path
				if tc.family == gateway.Gemini && extra != "" {
					path, extra = strings.Replace(path, ":generateContent", ":streamGenerateContent", 1)+"?alt=sse", ""
				}
				if status, _, b := r.post(t, path, strings.Replace(tc.body, "%s", extra, 1), h); status != 200 {
					t.Fatalf("%s: %d %s", path, status, b)
				}
			}
			rec := r.close()
			if len(rec.Calls) != 2 {
				t.Fatalf("calls = %+v", rec.Calls)
			}
			for _, c := range rec.Calls {
				if !c.Usage.IsUnknown() || c.CostUSD != nil {
					t.Errorf("%s (stream %v): usage %+v, cost %v; want unknown", c.API, c.Stream, c.Usage, c.CostUSD)
				}
				b, _ := json.Marshal(c)
				if !strings.Contains(string(b), `"usage":null`) || !strings.Contains(string(b), `"cost_usd":null`) {
					t.Errorf("recorded as %s: want usage and cost_usd null", b)
				}
			}
			if s := r.meter.Agent("a"); s.USDOrNil() != nil || s.TokensOrNil() != nil || s.Usage.Unknown != 2 {
				t.Errorf("the meter's account of a = %+v; want its use and cost unknown", s)
			}
		})
	}
}

// TestStreamCut: a stream cut in the middle of an event is metered as far
// as it went — what its events reported until then — and recorded as
// truncated; the agent sees the stream break.
func TestStreamCut(t *testing.T) {
	t.Parallel()
	fake := llmtest.NewAnthropic(t)
	fake.Script(llmtest.Reply{Text: "a long answer cut short", Usage: agent.Usage{InputTokens: 640, OutputTokens: 90}, CutStream: true})
	r := newRig(t, gateway.Anthropic, fake)
	client := anthropic.NewClient(anthropicoption.WithBaseURL(r.env["ANTHROPIC_BASE_URL"]), anthropicoption.WithAPIKey(r.env["ANTHROPIC_API_KEY"]), anthropicoption.WithMaxRetries(0))
	stream := client.Messages.NewStreaming(t.Context(), anthropic.MessageNewParams{Model: "claude-sonnet-4-5", MaxTokens: 100, Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hi"))}})
	for stream.Next() {
	}
	if stream.Err() == nil {
		t.Error("the agent did not see its stream break")
	}
	rec := r.close()
	if len(rec.Calls) != 1 {
		t.Fatalf("calls = %+v", rec.Calls)
	}
	c := rec.Calls[0]
	// message_start reported the prompt's 640 tokens and 1 of output;
	// the cut came before message_delta.
	if !c.Truncated || c.Usage != (agent.Usage{InputTokens: 640, OutputTokens: 1}) || c.CostUSD == nil {
		t.Errorf("the cut call = %+v (usage %+v); want it truncated, metered as far as it went", c, c.Usage)
	}
}

// TestGeminiArrayStream: streamGenerateContent without alt=sse answers a
// JSON array, streamed element by element; the last element's usage is
// the whole answer's.
func TestGeminiArrayStream(t *testing.T) {
	t.Parallel()
	fake := llmtest.NewGemini(t)
	u := agent.Usage{InputTokens: 333, OutputTokens: 66}
	fake.Script(llmtest.Reply{Text: "an array of chunks", Usage: u}, llmtest.Reply{Text: "an array cut short", Usage: u, CutStream: true})
	r := newRig(t, gateway.Gemini, fake)
	h := header("X-Goog-Api-Key", r.badge.Placeholders()[0])
	status, _, b := r.post(t, "/v1beta/models/gemini-2.5-flash:streamGenerateContent", `{"contents":[{"parts":[{"text":"hi"}]}]}`, h)
	var chunks []map[string]any
	if err := json.Unmarshal(b, &chunks); status != 200 || err != nil || len(chunks) != 3 {
		t.Fatalf("%d %v %s", status, err, b)
	}
	func() {
		defer func() { _ = recover() }() // the cut stream's client errors
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, "http://"+r.addr+"/v1beta/models/gemini-2.5-flash:streamGenerateContent", strings.NewReader(`{"contents":[]}`))
		req.Header = h
		if resp, err := http.DefaultClient.Do(req); err == nil {
			_, _ = io.ReadAll(resp.Body)
			resp.Body.Close()
		}
	}()
	rec := r.close()
	if len(rec.Calls) != 2 {
		t.Fatalf("calls = %+v", rec.Calls)
	}
	if c := rec.Calls[0]; c.Usage != u || c.Truncated || !c.Stream {
		t.Errorf("the array stream = %+v", c)
	}
	// Of three chunks, two arrived whole: two thirds of the output.
	if c := rec.Calls[1]; !c.Truncated || c.Usage != (agent.Usage{InputTokens: 333, OutputTokens: 44}) {
		t.Errorf("the cut array stream = %+v (usage %+v)", c, c.Usage)
	}
}

// TestRetryAfterPassedOn: a provider's 429 with Retry-After reaches the
// agent as it was sent, and is counted, with no use and no cost.
func TestRetryAfterPassedOn(t *testing.T) {
	t.Parallel()
	fake := llmtest.NewOpenAI(t)
	fake.Script(llmtest.Reply{Status: 429, Headers: map[string]string{"Retry-After": "7"}})
	r := newRig(t, gateway.OpenAI, fake)
	client := openai.NewClient(option.WithBaseURL(r.env["OPENAI_BASE_URL"]), option.WithAPIKey(r.env["OPENAI_API_KEY"]), option.WithMaxRetries(0))
	_, err := client.Chat.Completions.New(t.Context(), openai.ChatCompletionNewParams{Model: "gpt-4.1", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}})
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 429 || apiErr.Response.Header.Get("Retry-After") != "7" || apiErr.Code != "rate_limit_exceeded" {
		t.Fatalf("the agent got %v; want the provider's 429 with Retry-After: 7", err)
	}
	rec := r.close()
	if len(rec.Calls) != 1 || rec.Calls[0].Status != 429 || rec.Calls[0].RetryAfter != "7" || rec.Calls[0].Usage != (agent.Usage{}) {
		t.Errorf("calls = %+v", rec.Calls)
	}
	if s := r.meter.Total(); s.Requests != 0 || s.Tokens() != 0 {
		t.Errorf("a refused call was charged: %+v", s)
	}
}

// TestKeys: only a key the gateway gave this agent opens the gateway —
// not none, not a made-up one, not another agent's, not another run's,
// not one of an attempt that is over — each refused in the provider's own
// error shape, before anything reaches the provider.
func TestKeys(t *testing.T) {
	t.Parallel()
	fake := llmtest.NewAnthropic(t)
	r := newRig(t, gateway.Anthropic, fake)
	other, err := r.g.Enroll("b", gateway.Wiring{Providers: []string{gateway.Anthropic}})
	if err != nil {
		t.Fatal(err)
	}
	env := fake.Env()
	otherRun := gateway.New(gateway.Options{Getenv: func(k string) string { return env[k] }})
	otherRunBadge, err := otherRun.Enroll("a", gateway.Wiring{Providers: []string{gateway.Anthropic}})
	if err != nil {
		t.Fatal(err)
	}
	body := `{"model":"claude-sonnet-4-5","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`
	for _, tc := range []struct {
		name   string
		h      http.Header
		status int
		typ    string
	}{
		{"no key", header(), 401, "authentication_error"},
		{"a made-up key", header("X-Api-Key", "sk-ant-made-up"), 401, "authentication_error"},
		{"the real key", header("X-Api-Key", fake.Key), 401, "authentication_error"},
		{"another agent's", header("X-Api-Key", other.Placeholders()[0]), 403, "permission_error"},
		{"another run's", header("X-Api-Key", otherRunBadge.Placeholders()[0]), 401, "authentication_error"},
	} {
		status, h, b := r.post(t, "/v1/messages", body, tc.h)
		var e struct {
			Type  string
			Error struct{ Type, Message string }
		}
		if err := json.Unmarshal(b, &e); err != nil || status != tc.status || e.Type != "error" || e.Error.Type != tc.typ || h.Get("X-Should-Retry") != "false" {
			t.Errorf("%s: %d %s; want %d with Anthropic's %s", tc.name, status, b, tc.status, tc.typ)
		}
		if strings.Contains(string(b), fake.Key) {
			t.Errorf("%s: the answer holds the real key", tc.name)
		}
	}
	if n := len(fake.Requests()); n != 0 {
		t.Errorf("%d refused requests reached the provider", n)
	}
	placeholder := r.badge.Placeholders()[0]
	r.close()
	if status, _, b := r.post(t, "/v1/messages", body, header("X-Api-Key", placeholder)); status != 403 {
		t.Errorf("a call after the attempt ended: %d %s", status, b)
	}
}

// TestBodyLimit: a body over the gateway's bound is refused in the
// provider's shape (413), recorded, and never forwarded.
func TestBodyLimit(t *testing.T) {
	t.Parallel()
	fake := llmtest.NewOpenAI(t)
	env := fake.Env()
	g := gateway.New(gateway.Options{Getenv: func(k string) string { return env[k] }, MaxBody: 1024})
	b, err := g.Enroll("a", gateway.Wiring{Providers: []string{gateway.OpenAI}})
	if err != nil {
		t.Fatal(err)
	}
	tab := b.Open(t.Context(), nil)
	srv := httptest.NewServer(tab)
	t.Cleanup(srv.Close)
	client := openai.NewClient(option.WithBaseURL(srv.URL+"/v1"), option.WithAPIKey(b.Placeholders()[0]), option.WithMaxRetries(0))
	_, err = client.Chat.Completions.New(t.Context(), openai.ChatCompletionNewParams{Model: "gpt-4.1", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(strings.Repeat("x", 4096))}})
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 413 || !strings.Contains(apiErr.Message, "1024 bytes") {
		t.Fatalf("got %v; want a 413 naming the limit", err)
	}
	rec := tab.Close()
	if len(rec.Calls) != 1 || rec.Calls[0].Status != 413 || rec.Calls[0].Refused == "" || len(fake.Requests()) != 0 {
		t.Errorf("calls %+v, upstream %d", rec.Calls, len(fake.Requests()))
	}
}

// TestBudgetRefusal: a call that would pass a cap is answered in each
// provider's own error shape, with the figures and a status its clients
// do not retry; it is recorded, never forwarded, and the attempt's record
// says why. A spend the meter could not know is named in the message.
func TestBudgetRefusal(t *testing.T) {
	t.Parallel()
	spent := cost.Cap{Key: "budget.max-usd-per-day", Window: "today (UTC)", Limit: 5, Before: 5.25, UnknownBefore: 1}
	t.Run("anthropic", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, gateway.Anthropic, llmtest.NewAnthropic(t), spent)
		client := anthropic.NewClient(anthropicoption.WithBaseURL(r.env["ANTHROPIC_BASE_URL"]), anthropicoption.WithAPIKey(r.env["ANTHROPIC_API_KEY"]))
		_, err := client.Messages.New(t.Context(), anthropic.MessageNewParams{Model: "claude-sonnet-4-5", MaxTokens: 10, Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hi"))}})
		var apiErr *anthropic.Error
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || !strings.Contains(apiErr.Error(), "invalid_request_error") ||
			!strings.Contains(apiErr.Error(), "budget.max-usd-per-day: $5.25 of $5.00 spent today (UTC)") || !strings.Contains(apiErr.Error(), "1 earlier run") {
			t.Fatalf("got %v", err)
		}
		r.checkRefused(t)
	})
	t.Run("openai", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, gateway.OpenAI, llmtest.NewOpenAI(t), spent)
		// The SDK's own retries are on: the refusal says not to retry.
		client := openai.NewClient(option.WithBaseURL(r.env["OPENAI_BASE_URL"]), option.WithAPIKey(r.env["OPENAI_API_KEY"]))
		_, err := client.Chat.Completions.New(t.Context(), openai.ChatCompletionNewParams{Model: "gpt-4.1", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}})
		var apiErr *openai.Error
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 429 || apiErr.Code != "insufficient_quota" || apiErr.Type != "insufficient_quota" || !strings.Contains(apiErr.Message, "$5.25 of $5.00") {
			t.Fatalf("got %v", err)
		}
		r.checkRefused(t)
	})
	t.Run("gemini", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, gateway.Gemini, llmtest.NewGemini(t), spent)
		client, err := genai.NewClient(t.Context(), &genai.ClientConfig{APIKey: r.env["GEMINI_API_KEY"], Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: r.env["GOOGLE_GEMINI_BASE_URL"]}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = client.Models.GenerateContent(t.Context(), "gemini-2.5-flash", genai.Text("hi"), nil)
		var apiErr genai.APIError
		if !errors.As(err, &apiErr) || apiErr.Code != 400 || apiErr.Status != "FAILED_PRECONDITION" || !strings.Contains(apiErr.Message, "$5.25 of $5.00") {
			t.Fatalf("got %v", err)
		}
		r.checkRefused(t)
	})
}

// checkRefused fails the test unless the attempt's one call was refused
// by the budget, recorded so, and never reached the provider.
func (r *rig) checkRefused(t *testing.T) {
	t.Helper()
	rec := r.close()
	var capErr *cost.CapError
	if len(rec.Calls) != 1 || rec.Calls[0].Refused == "" || !errors.As(rec.Refused, &capErr) || !errors.Is(rec.Refused, agent.ErrBudgetSpent) {
		t.Errorf("record = %+v", rec)
	}
	if n := len(r.fake.Requests()); n != 0 {
		t.Errorf("%d refused calls reached the provider", n)
	}
}

// TestBudgetMidRun: calls pass until the run's cap is reached; the next
// is refused. The meter is charged as each call ends, and a call is
// judged by what its prompt alone would spend: its answer's length is
// not known before it comes.
func TestBudgetMidRun(t *testing.T) {
	t.Parallel()
	fake := llmtest.NewOpenAI(t)
	u := agent.Usage{InputTokens: 1000, OutputTokens: 1000}
	fake.SetDefault(llmtest.Reply{Text: "x", Usage: u}) // $0.01 a call at gpt-4.1's prices
	r := newRig(t, gateway.OpenAI, fake, cost.Cap{Key: "budget.max-usd-per-run", Window: "this run", Limit: 0.025})
	client := openai.NewClient(option.WithBaseURL(r.env["OPENAI_BASE_URL"]), option.WithAPIKey(r.env["OPENAI_API_KEY"]), option.WithMaxRetries(0))
	chat := openai.ChatCompletionNewParams{Model: "gpt-4.1", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}}
	var refused int
	for range 4 {
		if _, err := client.Chat.Completions.New(t.Context(), chat); err != nil {
			refused++
		}
	}
	rec := r.close()
	// $0.01, $0.02: the third call's prompt fits under $0.025, its answer
	// takes the run to $0.03; the fourth is refused.
	if refused != 1 || len(fake.Requests()) != 3 || rec.Refused == nil || !strings.Contains(rec.Refused.Error(), "$0.03 of $0.025 spent this run") {
		t.Errorf("refused %d, forwarded %d, record %v", refused, len(fake.Requests()), rec.Refused)
	}
}

// TestListen: with the sandbox off, agents reach the gateway's own
// loopback listener and are known by their key: a call is charged to the
// attempt of the agent whose key it carries.
func TestListen(t *testing.T) {
	t.Parallel()
	fake := llmtest.NewAnthropic(t)
	env := fake.Env()
	g := gateway.New(gateway.Options{Getenv: func(k string) string { return env[k] }})
	t.Cleanup(func() { _ = g.Close() })
	addr, err := g.Listen()
	if err != nil {
		t.Fatal(err)
	}
	a, _ := g.Enroll("a", gateway.Wiring{Providers: []string{gateway.Anthropic}})
	b, _ := g.Enroll("b", gateway.Wiring{Providers: []string{gateway.Anthropic}})
	ta, tb := a.Open(t.Context(), nil), b.Open(t.Context(), nil)
	for _, badge := range []*gateway.Badge{b, b, a} {
		client := anthropic.NewClient(anthropicoption.WithBaseURL("http://"+addr), anthropicoption.WithAPIKey(badge.Placeholders()[0]), anthropicoption.WithMaxRetries(0))
		if _, err := client.Messages.New(t.Context(), anthropic.MessageNewParams{Model: "claude-sonnet-4-5", MaxTokens: 10, Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hi"))}}); err != nil {
			t.Fatal(err)
		}
	}
	if ra, rb := ta.Close(), tb.Close(); len(ra.Calls) != 1 || len(rb.Calls) != 2 {
		t.Errorf("a's calls %d, b's %d; want 1 and 2", len(ra.Calls), len(rb.Calls))
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := http.Get("http://" + addr); err == nil {
		t.Error("the listener still answers after Close")
	}
}

// TestProviderNotGiven: an agent given Anthropic that calls OpenAI's or
// Gemini's API through the gateway holds no key for it: the call is
// refused in that provider's own error shape, and nothing reaches any
// provider.
func TestProviderNotGiven(t *testing.T) {
	t.Parallel()
	fake := llmtest.NewAnthropic(t)
	r := newRig(t, gateway.Anthropic, fake)
	for _, tc := range []struct {
		name, path string
		h          http.Header
		check      func([]byte) bool
	}{
		{"OpenAI's Chat Completions", "/v1/chat/completions", header("Authorization", "Bearer sk-proj-made-up"), func(b []byte) bool {
			var e struct{ Error struct{ Type, Code string } }
			return json.Unmarshal(b, &e) == nil && e.Error.Code == "invalid_api_key"
		}},
		{"Gemini's generateContent", "/v1beta/models/gemini-2.5-flash:generateContent", header("X-Goog-Api-Key", "AIza-made-up"), func(b []byte) bool {
			var e struct{ Error struct{ Status string } }
			return json.Unmarshal(b, &e) == nil && e.Error.Status == "UNAUTHENTICATED"
		}},
	} {
		status, _, b := r.post(t, tc.path, `{"model":"gpt-4.1","messages":[{"role":"user","content":"hi"}]}`, tc.h)
		if status != http.StatusUnauthorized || !tc.check(b) || !strings.Contains(string(b), "agent a was given no ") {
			t.Errorf("%s: %d %s; want 401 in that provider's shape", tc.name, status, b)
		}
	}
	if n := len(fake.Requests()); n != 0 {
		t.Errorf("%d refused requests reached the provider", n)
	}
}
