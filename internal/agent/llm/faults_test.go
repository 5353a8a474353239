package llm_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/agent/llm/llmtest"
	"github.com/optr-dev/optr/internal/config"
)

// classified is the part of an *agent.Error a fault decides.
type classified struct {
	Class      agent.Class
	Reason     string
	Status     int
	RetryAfter time.Duration
}

// fault is one way an attempt can fail, with the classification it must get.
type fault struct {
	name string
	// only limits the fault to one provider; empty means all.
	only string
	// structured limits the fault to the providers that hold the model to
	// the answer schema: a text-answering one takes plain text as the
	// output (TestTextAnswerIsTheOutput).
	structured bool
	reply      llmtest.Reply
	want       classified
	// raw is the Response.Raw the failure must keep.
	raw string
}

func faults() []fault {
	return []fault{
		{name: "429 Retry-After seconds", reply: llmtest.Reply{Status: 429, Headers: map[string]string{"Retry-After": "7"}},
			want: classified{agent.Transient, "rate_limited", 429, 7 * time.Second}},
		{name: "429 Retry-After date", reply: llmtest.Reply{Status: 429, Headers: map[string]string{"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}},
			want: classified{agent.Transient, "rate_limited", 429, 0}},
		{name: "429 retry-after-ms", reply: llmtest.Reply{Status: 429, Headers: map[string]string{"retry-after-ms": "1500"}},
			want: classified{agent.Transient, "rate_limited", 429, 1500 * time.Millisecond}},
		{name: "429 openai reset headers", only: config.ProviderOpenAI,
			reply: llmtest.Reply{Status: 429, Headers: map[string]string{
				"x-ratelimit-reset-requests": "6m0s", "x-ratelimit-remaining-requests": "0",
				"x-ratelimit-reset-tokens": "20ms", "x-ratelimit-remaining-tokens": "1000",
			}},
			want: classified{agent.Transient, "rate_limited", 429, 6 * time.Minute}},
		{name: "429 insufficient quota", only: config.ProviderOpenAI, reply: llmtest.Reply{Status: 429, Code: "insufficient_quota"},
			want: classified{agent.Fatal, "quota_exceeded", 429, 0}},
		{name: "500", reply: llmtest.Reply{Status: 500},
			want: classified{agent.Transient, "server_error", 500, 0}},
		{name: "503 with Retry-After", reply: llmtest.Reply{Status: 503, Headers: map[string]string{"Retry-After": "2"}},
			want: classified{agent.Transient, "server_error", 503, 2 * time.Second}},
		{name: "502 from a proxy, not JSON", reply: llmtest.Reply{Status: 502, Body: "<html>502 Bad Gateway</html>"},
			want: classified{agent.Transient, "server_error", 502, 0}},
		{name: "529 overloaded", only: config.ProviderAnthropic, reply: llmtest.Reply{Status: 529},
			want: classified{agent.Transient, "overloaded", 529, 0}},
		{name: "408", reply: llmtest.Reply{Status: 408},
			want: classified{agent.Transient, "timeout", 408, 0}},
		{name: "401", reply: llmtest.Reply{Status: 401},
			want: classified{agent.Fatal, "unauthorized", 401, 0}},
		{name: "403", reply: llmtest.Reply{Status: 403},
			want: classified{agent.Fatal, "forbidden", 403, 0}},
		{name: "404 unknown model", reply: llmtest.Reply{Status: 404},
			want: classified{agent.Fatal, "unknown_model", 404, 0}},
		{name: "400", reply: llmtest.Reply{Status: 400, Text: "max_tokens is too large"},
			want: classified{agent.Fatal, "bad_request", 400, 0}},
		{name: "400 content filter", only: config.ProviderAzureOpenAI, reply: llmtest.Reply{Status: 400, Code: "content_filter"},
			want: classified{agent.Systematic, "content_filter", 400, 0}},
		{name: "413 prompt too large", reply: llmtest.Reply{Status: 413},
			want: classified{agent.Fatal, "bad_request", 413, 0}},
		{name: "410 gone", reply: llmtest.Reply{Status: 410, Text: "The GitHub Models API was retired on 2026-07-30."},
			want: classified{agent.Fatal, "gone", 410, 0}},
		{name: "truncated JSON", reply: llmtest.Reply{Text: llmtest.Answer("cut", 1), Truncate: true},
			want: classified{agent.Transient, "bad_response", 200, 0}},
		{name: "200 body not JSON", reply: llmtest.Reply{Body: "{not json"},
			want: classified{agent.Transient, "bad_response", 200, 0}},
		{name: "connection reset", reply: llmtest.Reply{Reset: true},
			want: classified{agent.Transient, "connection", 0, 0}},
		{name: "prose instead of JSON", structured: true, reply: llmtest.Reply{Text: "Sure! Here is a haiku about ledgers."},
			want: classified{agent.Systematic, "unparseable_output", 0, 0}, raw: "Sure! Here is a haiku about ledgers."},
		{name: "JSON without output", structured: true, reply: llmtest.Reply{Text: `{"answer": "x", "ttv_estimate_ms": 3}`},
			want: classified{agent.Systematic, "unparseable_output", 0, 0}, raw: `{"answer": "x", "ttv_estimate_ms": 3}`},
		{name: "empty output", reply: llmtest.Reply{Text: `{"output": "  ", "ttv_estimate_ms": 3}`},
			want: classified{agent.Systematic, "unparseable_output", 0, 0}, raw: `{"output": "  ", "ttv_estimate_ms": 3}`},
		{name: "cut at the token limit", reply: llmtest.Reply{Text: `{"output": "a long ans`, Cut: true},
			want: classified{agent.Systematic, "unparseable_output", 0, 0}, raw: `{"output": "a long ans`},
		{name: "refusal", reply: llmtest.Reply{Refusal: "I can't help with that."},
			want: classified{agent.Systematic, "refusal", 0, 0}, raw: "I can't help with that."},
	}
}

func TestRunFaults(t *testing.T) {
	t.Parallel()
	for _, p := range providers() {
		for _, f := range faults() {
			if f.only != "" && f.only != p.cfg.Provider || f.structured && !p.structured {
				continue
			}
			t.Run(p.name+"/"+f.name, func(t *testing.T) {
				t.Parallel()
				fake := p.newFake(t)
				fake.Script(f.reply)
				resp, err := newAgent(t, fake, p.cfg).Run(t.Context(), agent.Request{Intent: "x"})
				if err == nil {
					t.Fatalf("Run succeeded with %+v, want a %s failure", resp, f.want.Class)
				}
				e := agentError(t, err)
				got := classified{e.Class, e.Reason, e.Status, e.RetryAfter}
				if diff := cmp.Diff(f.want, got); diff != "" {
					t.Errorf("classification of %v (-want +got):\n%s", err, diff)
				}
				if resp.Raw != f.raw {
					t.Errorf("Response.Raw = %q, want %q", resp.Raw, f.raw)
				}
				if f.reply.Cut && !strings.Contains(err.Error(), "output limit") {
					t.Errorf("error %q does not say the answer stopped at the output limit", err)
				}
				if n := len(fake.Requests()); n != 1 {
					t.Errorf("the SDK sent %d requests, want exactly 1 (no hidden retries)", n)
				}
				noKey(t, err, fake.Key)
			})
		}
	}
}

// TestRunHangTimesOut checks that a server that never answers is cut off by
// attempt-timeout and classified as a Transient timeout.
func TestRunHangTimesOut(t *testing.T) {
	t.Parallel()
	for _, p := range providers() {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			fake := p.newFake(t)
			fake.Script(llmtest.Reply{Hang: true})
			cfg := p.cfg
			// Long enough that the request reaches the fake (a TLS handshake
			// included) on a loaded machine; the fake never answers, so only
			// the attempt timeout can end the call.
			cfg.AttemptTimeout = config.Duration(3 * time.Second)
			start := time.Now()
			_, err := newAgent(t, fake, cfg).Run(t.Context(), agent.Request{Intent: "x"})
			elapsed := time.Since(start)
			e := agentError(t, err)
			if diff := cmp.Diff(classified{Class: agent.Transient, Reason: "timeout"}, classified{e.Class, e.Reason, e.Status, e.RetryAfter}); diff != "" {
				t.Errorf("classification of %v (-want +got):\n%s", err, diff)
			}
			if elapsed > time.Minute {
				t.Errorf("Run took %v, want about the 3s attempt timeout", elapsed)
			}
			if !strings.Contains(err.Error(), "attempt-timeout") {
				t.Errorf("error %q does not say which setting to raise", err)
			}
			if n := len(fake.Requests()); n != 1 {
				t.Errorf("the SDK sent %d requests, want exactly 1", n)
			}
		})
	}
}

// TestRunCallerStops checks that a hanging request ends as soon as the
// caller's context does: a cancelled run is Fatal (it is being stopped), the
// caller's deadline (the agent's whole timeout) is a Transient timeout. The
// context ends once the server holds the request, never on a timer that a
// loaded machine could beat.
func TestRunCallerStops(t *testing.T) {
	t.Parallel()
	stops := []struct {
		name string
		ctx  func(context.Context) (context.Context, func())
		want classified
	}{
		{"cancel", func(parent context.Context) (context.Context, func()) {
			return context.WithCancel(parent)
		}, classified{Class: agent.Fatal, Reason: "canceled"}},
		{"deadline", func(parent context.Context) (context.Context, func()) {
			ctx := &expiring{Context: parent, done: make(chan struct{})}
			return ctx, ctx.expire
		}, classified{Class: agent.Transient, Reason: "timeout"}},
	}
	for _, p := range providers() {
		for _, stop := range stops {
			t.Run(p.name+"/"+stop.name, func(t *testing.T) {
				t.Parallel()
				fake := p.newFake(t)
				served := make(chan struct{})
				fake.Script(llmtest.Reply{Hang: true, Served: served})
				ctx, end := stop.ctx(t.Context())
				defer end()
				go func() {
					select {
					case <-served:
						end()
					case <-t.Context().Done():
					}
				}()
				_, err := newAgent(t, fake, p.cfg).Run(ctx, agent.Request{Intent: "x"})
				e := agentError(t, err)
				if diff := cmp.Diff(stop.want, classified{e.Class, e.Reason, e.Status, e.RetryAfter}); diff != "" {
					t.Errorf("classification of %v (-want +got):\n%s", err, diff)
				}
			})
		}
	}
}

// expiring is a context whose deadline passes when the test says so: its
// Err is context.DeadlineExceeded once expire was called.
type expiring struct {
	context.Context
	done chan struct{}
	once sync.Once
}

func (e *expiring) Done() <-chan struct{} { return e.done }

func (e *expiring) Err() error {
	select {
	case <-e.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

func (e *expiring) expire() { e.once.Do(func() { close(e.done) }) }

// TestRunWrongKeyNeverLeaks sends a key the fake refuses; the fakes echo the
// credential they got in their 401 message, so the key reaches the client.
func TestRunWrongKeyNeverLeaks(t *testing.T) {
	t.Parallel()
	for _, p := range providers() {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			fake := p.newFake(t)
			const wrong = "sk-wrong-0123456789abcdef"
			env := fake.Env()
			for k := range env {
				if strings.HasSuffix(k, "_KEY") || k == "GITHUB_TOKEN" {
					env[k] = wrong
				}
			}
			cfg := p.cfg
			a, err := newAgentEnv(t, fake, cfg, env)
			if err != nil {
				t.Fatalf("llm.New: %v", err)
			}
			_, err = a.Run(t.Context(), agent.Request{Intent: "x"})
			e := agentError(t, err)
			if e.Class != agent.Fatal || e.Reason != "unauthorized" || e.Status != http.StatusUnauthorized && e.Status != http.StatusBadRequest {
				t.Errorf("got %s %s (HTTP %d), want fatal unauthorized (HTTP 401, or Google's 400): %v", e.Class, e.Reason, e.Status, err)
			}
			noKey(t, err, wrong)
			if p.echoes && !strings.Contains(err.Error(), "[redacted]") {
				t.Errorf("error %q: the echoed key should show as [redacted]", err)
			}
			if !strings.Contains(err.Error(), p.keyVar) {
				t.Errorf("error %q does not name the variable %s to fix", err, p.keyVar)
			}
		})
	}
}

// TestTextAnswerIsTheOutput checks issue 22 item 3: a model asked for
// optr's JSON by the prompt alone (no structured-output switch) that
// answers the question in plain text gives that text as its output, with
// no TTV estimate; only an empty answer, or optr's form with an empty
// output, is a failure. A provider that held the model to the schema
// still refuses anything else (TestRunFaults).
func TestTextAnswerIsTheOutput(t *testing.T) {
	t.Parallel()
	for _, p := range providers() {
		if p.structured {
			continue
		}
		for _, tt := range []struct {
			name, text, want string
			fails            bool
		}{
			{name: "prose", text: "Sure! Here is a haiku about ledgers.", want: "Sure! Here is a haiku about ledgers."},
			{name: "JSON that is not optr's", text: `{"answer": "x"}`, want: `{"answer": "x"}`},
			{name: "optr's form", text: llmtest.Answer("in form", 9), want: "in form"},
			{name: "optr's form, empty", text: `{"output": "  "}`, fails: true},
			{name: "empty", text: " \n", fails: true},
		} {
			t.Run(p.name+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				fake := p.newFake(t)
				fake.Script(llmtest.Reply{Text: tt.text})
				resp, err := newAgent(t, fake, p.cfg).Run(t.Context(), agent.Request{Intent: "x"})
				if tt.fails {
					if e := agentError(t, err); e.Reason != "unparseable_output" {
						t.Fatalf("reason %q, want unparseable_output", e.Reason)
					}
					return
				}
				if err != nil {
					t.Fatalf("Run: %v", err)
				}
				if resp.Output != tt.want || resp.Raw != "" {
					t.Errorf("output %q raw %q, want output %q", resp.Output, resp.Raw, tt.want)
				}
				if wantTTV := tt.name == "optr's form"; (resp.TTV > 0) != wantTTV {
					t.Errorf("TTV %v", resp.TTV)
				}
			})
		}
	}
}
