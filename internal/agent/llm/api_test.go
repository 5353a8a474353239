package llm_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/agent/llm"
	"github.com/optr-dev/optr/internal/agent/llm/llmtest"
	"github.com/optr-dev/optr/internal/config"
)

// TestResponsesAgainstChatOnlyServer: an openai agent left on the
// Responses API against a server that speaks only Chat Completions fails
// at once, and the message names the path it asked for and the fix, not a
// model.
func TestResponsesAgainstChatOnlyServer(t *testing.T) {
	t.Parallel()
	fake := llmtest.NewChatCompletions(t)
	_, err := newAgent(t, fake, config.Agent{Provider: config.ProviderOpenAI, Model: "llama3.2"}).Run(t.Context(), agent.Request{Intent: "x"})
	e := agentError(t, err)
	if e.Class != agent.Fatal || e.Reason != "not_found" || e.Status != 404 {
		t.Errorf("got %s %s %d, want fatal not_found 404: %v", e.Class, e.Reason, e.Status, err)
	}
	for _, want := range []string{"POST " + fake.URL + "/responses", "api: chat-completions", "base URL"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "check that model") {
		t.Errorf("error %q blames the model", err)
	}
}

// TestUnknownModelOnChatOnlyServer: the same server's 404 for a model it
// does not have still says the model.
func TestUnknownModelOnChatOnlyServer(t *testing.T) {
	t.Parallel()
	fake := llmtest.NewChatCompletions(t)
	fake.Script(llmtest.Reply{Status: 404})
	_, err := newAgent(t, fake, config.Agent{Provider: config.ProviderOpenAI, Model: "llama9", API: "chat-completions"}).Run(t.Context(), agent.Request{Intent: "x"})
	if e := agentError(t, err); e.Reason != "unknown_model" || !strings.Contains(err.Error(), `"llama9"`) {
		t.Errorf("got %s: %v, want unknown_model naming the model", e.Reason, err)
	}
}

// TestAzureResponses: api: responses sends an azure-openai agent to the
// resource's Responses API, with the deployment as the model and a
// preview api-version that serves it.
func TestAzureResponses(t *testing.T) {
	t.Parallel()
	fake := llmtest.NewAzure(t)
	cfg := config.Agent{Provider: config.ProviderAzureOpenAI, Deployment: "gpt5-prod", API: "responses"}
	if _, err := newAgent(t, fake, cfg).Run(t.Context(), agent.Request{Intent: "x"}); err != nil {
		t.Fatalf("Run: %v", err)
	}
	r := fake.Requests()[0]
	got := []string{r.Path, r.Query.Get("api-version"), r.Model, r.Header.Get("Api-Key")}
	want := []string{"/azure/openai/responses", llm.DefaultAzureResponsesAPIVersion, "gpt5-prod", fake.Key}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}
	if dig(r.Body, "text", "format", "name") != "optr_answer" {
		t.Errorf("the Responses request does not hold the answer to its schema: %v", r.Body["text"])
	}
}

// TestDoubledBaseURL: a base URL that already ends in the path the
// provider's client adds (Anthropic's /v1, a URL naming the call) is
// refused before any request, with the URL to write instead.
func TestDoubledBaseURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		cfg      config.Agent
		env      map[string]string
		mentions []string
	}{
		{"anthropic base-url ending in /v1",
			config.Agent{Provider: config.ProviderAnthropic, Model: "claude-sonnet-4-5", BaseURL: "https://proxy.example/v1"},
			map[string]string{"ANTHROPIC_API_KEY": "k"}, []string{"base-url", "https://proxy.example/v1", "set it to https://proxy.example "}},
		{"ANTHROPIC_BASE_URL ending in /v1/",
			config.Agent{Provider: config.ProviderAnthropic, Model: "claude-sonnet-4-5"},
			map[string]string{"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": "https://proxy.example/anthropic/v1/"}, []string{"ANTHROPIC_BASE_URL", "https://proxy.example/anthropic "}},
		{"openai base-url naming the call",
			config.Agent{Provider: config.ProviderOpenAI, Model: "gpt-4.1", BaseURL: "https://llm.example/v1/chat/completions"},
			map[string]string{"OPENAI_API_KEY": "k"}, []string{"https://llm.example/v1 "}},
		{"gemini base-url with its version",
			config.Agent{Provider: config.ProviderGemini, Model: "gemini-2.5-flash"},
			map[string]string{"GEMINI_API_KEY": "k", "GOOGLE_GEMINI_BASE_URL": "https://gw.example/v1beta/openai"}, []string{"GOOGLE_GEMINI_BASE_URL", "https://gw.example "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := llm.New("x", tt.cfg, llm.Options{Getenv: func(k string) string { return tt.env[k] }})
			if e := agentError(t, err); e.Reason != "bad_config" {
				t.Fatalf("reason %s, want bad_config: %v", e.Reason, err)
			}
			for _, m := range tt.mentions {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q does not say %q", err, m)
				}
			}
		})
	}
}

// TestAPINotSpoken: an api: the provider's API does not speak is refused.
func TestAPINotSpoken(t *testing.T) {
	t.Parallel()
	_, err := llm.New("x", config.Agent{Provider: config.ProviderOpenAI, Model: "m", API: "messages"}, llm.Options{Getenv: func(string) string { return "k" }})
	if e := agentError(t, err); e.Reason != "bad_config" || !strings.Contains(err.Error(), "responses or chat-completions") {
		t.Errorf("got %v, want bad_config listing responses or chat-completions", err)
	}
}

// TestKeyStaysAtItsOrigin: an endpoint that redirects to another server
// (another port here) gets the request once, and the key goes no
// further: Go forwards api-key and x-api-key on a redirect, so without
// the guard the fake behind the redirect would see the key.
func TestKeyStaysAtItsOrigin(t *testing.T) {
	t.Parallel()
	for _, p := range providers() {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			fake := p.newFake(t)
			target, err := url.Parse(fake.URL)
			if err != nil {
				t.Fatal(err)
			}
			var redirected atomic.Int32
			redirect := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				redirected.Add(1)
				to := *r.URL
				to.Scheme, to.Host = target.Scheme, target.Host
				http.Redirect(w, r, to.String(), http.StatusTemporaryRedirect)
			})
			front := httptest.NewUnstartedServer(redirect)
			if target.Scheme == "https" {
				front.StartTLS() // httptest's one certificate: fake.Client() trusts it
			} else {
				front.Start()
			}
			t.Cleanup(front.Close)
			cfg := p.cfg
			cfg.BaseURL = front.URL + target.Path
			_, err = newAgent(t, fake, cfg).Run(t.Context(), agent.Request{Intent: "x"})
			e := agentError(t, err)
			if e.Class != agent.Fatal || e.Reason != "bad_config" || !strings.Contains(e.Error(), "redirected") {
				t.Errorf("error = %v (%v, %s); want a Fatal bad_config naming the redirect", e, e.Class, e.Reason)
			}
			if n := redirected.Load(); n != 1 {
				t.Errorf("the endpoint got %d requests, want 1", n)
			}
			if n := len(fake.Requests()); n != 0 {
				t.Errorf("the server behind the redirect got %d requests, want none", n)
			}
		})
	}
}

// chatAgent is an openai agent on Chat Completions whose server answers
// with h.
func chatAgent(t *testing.T, h http.HandlerFunc) agent.Agent {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	cfg := config.Agent{Provider: config.ProviderOpenAI, Model: "m", API: "chat-completions", BaseURL: srv.URL + "/v1"}
	a, err := llm.New("tester", cfg, llm.Options{Getenv: func(string) string { return "k" }, HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// chatAnswer is a chat.completion object whose message's content is the
// JSON content.
func chatAnswer(content string) string {
	return `{"model":"m","choices":[{"message":{"role":"assistant","content":` + content + `},"finish_reason":"stop"}]}`
}

// TestChatAnswerBound: a Chat Completions answer larger than optr reads
// is refused with the bound named, not decoded. The body is valid JSON
// padded with whitespace, so only the bound stops it.
func TestChatAnswerBound(t *testing.T) {
	t.Parallel()
	a := chatAgent(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		pad := bytes.Repeat([]byte(" "), 1<<20)
		for range 32 {
			if _, err := w.Write(pad); err != nil {
				return
			}
		}
		_, _ = io.WriteString(w, chatAnswer(strconv.Quote(llmtest.Answer("ok", 1))))
	})
	_, err := a.Run(t.Context(), agent.Request{Intent: "x"})
	if e := agentError(t, err); e.Reason != "bad_response" || !strings.Contains(err.Error(), "more than 32 MiB") {
		t.Errorf("got %v, want bad_response naming the 32 MiB bound", err)
	}
}

// TestChatContentParts: a message whose content is an array of parts (as
// Mistral's reasoning models answer, their thinking in a part of its own)
// is read as its text parts; thinking is not the answer.
func TestChatContentParts(t *testing.T) {
	t.Parallel()
	answer := llmtest.Answer("the output", 5)
	half := len(answer) / 2
	parts := `[{"type":"thinking","thinking":[{"type":"text","text":"{\"output\": \"not this\"}"}]},` +
		`{"type":"text","text":` + strconv.Quote(answer[:half]) + `},{"type":"text","text":` + strconv.Quote(answer[half:]) + `}]`
	a := chatAgent(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, chatAnswer(parts))
	})
	res, err := a.Run(t.Context(), agent.Request{Intent: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Output != "the output" {
		t.Errorf("output %q, want %q", res.Output, "the output")
	}
}
