package llmtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/optr-dev/optr/internal/agent"
)

// recordingTB records what a Server reports, so tests can check that the
// fake fails the tests it should fail.
type recordingTB struct {
	testing.TB
	mu       sync.Mutex
	errs     []string
	cleanups []func()
}

func (r *recordingTB) Helper() {}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recordingTB) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }

// finish runs the cleanups the way testing does and returns the errors.
func (r *recordingTB) finish() []string {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.errs
}

// fakes are the constructors under test, with a request that each accepts.
var fakes = []struct {
	name string
	new  func(testing.TB) *Server
	path string
	// auth sets the credential headers the fake checks.
	auth func(h http.Header, key string)
	body string
	// refused is the status a wrong key gets (0: 401).
	refused int
}{
	{"openai", NewOpenAI, "/responses",
		func(h http.Header, key string) { h.Set("Authorization", "Bearer "+key) },
		`{"model": "gpt-4.1", "instructions": "sys", "input": "usr"}`, 0},
	{"openai-chat", NewOpenAI, "/chat/completions",
		func(h http.Header, key string) { h.Set("Authorization", "Bearer "+key) },
		`{"model": "gpt-4.1", "messages": [{"role": "system", "content": "sys"}, {"role": "user", "content": "usr"}]}`, 0},
	{"azure-openai", NewAzure, "/openai/deployments/dep/chat/completions?api-version=2024-10-21",
		func(h http.Header, key string) { h.Set("Api-Key", key) },
		`{"model": "dep", "messages": [{"role": "system", "content": [{"type": "text", "text": "sys"}]}, {"role": "user", "content": "usr"}]}`, 0},
	{"anthropic", NewAnthropic, "/v1/messages",
		func(h http.Header, key string) { h.Set("X-Api-Key", key); h.Set("Anthropic-Version", "2023-06-01") },
		`{"model": "claude", "max_tokens": 10, "system": [{"type": "text", "text": "sys"}], "messages": [{"role": "user", "content": [{"type": "text", "text": "usr"}]}]}`, 0},
	{"azure-openai-responses", NewAzure, "/openai/responses?api-version=2025-04-01-preview",
		func(h http.Header, key string) { h.Set("Api-Key", key) },
		`{"model": "dep", "instructions": "sys", "input": "usr"}`, 0},
	{"openai-compatible", NewChatCompletions, "/chat/completions",
		func(h http.Header, key string) { h.Set("Authorization", "Bearer "+key) },
		`{"model": "llama3.2", "messages": [{"role": "system", "content": "sys"}, {"role": "user", "content": "usr"}]}`, 0},
	{"gemini", NewGemini, "/v1beta/models/gemini-2.5-flash:generateContent",
		func(h http.Header, key string) { h.Set("X-Goog-Api-Key", key) },
		`{"systemInstruction": {"parts": [{"text": "sys"}]}, "contents": [{"role": "user", "parts": [{"text": "usr"}]}]}`, http.StatusBadRequest},
	{"gemini-chat", NewGemini, "/v1beta/openai/chat/completions",
		func(h http.Header, key string) { h.Set("Authorization", "Bearer "+key) },
		`{"model": "gemini-2.5-flash", "messages": [{"role": "system", "content": "sys"}, {"role": "user", "content": "usr"}]}`, http.StatusBadRequest},
}

// post sends the fake's accepted request, with key as the credential.
func post(ctx context.Context, s *Server, path, body, key string, auth func(http.Header, string)) (*http.Response, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+path, strings.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	auth(req.Header, key)
	res, err := s.Client().Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return res, b, err
}

// TestAnswersDecode checks each fake's answer against the SDK type that
// decodes it.
func TestAnswersDecode(t *testing.T) {
	t.Parallel()
	for _, f := range fakes {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			s := f.new(t)
			s.Script(Reply{Text: "hello", Model: "reported", Usage: agent.Usage{InputTokens: 3, OutputTokens: 4}})
			res, body, err := post(t.Context(), s, f.path, f.body, s.Key, f.auth)
			if err != nil {
				t.Fatal(err)
			}
			if res.StatusCode != http.StatusOK {
				t.Fatalf("status %d: %s", res.StatusCode, body)
			}
			var got []any
			switch f.name {
			case "openai", "azure-openai-responses":
				var r responses.Response
				err = json.Unmarshal(body, &r)
				got = []any{r.OutputText(), r.Model, r.Usage.InputTokens, r.Usage.OutputTokens, string(r.Status)}
			case "anthropic":
				var m anthropic.Message
				err = json.Unmarshal(body, &m)
				got = []any{m.Content[0].Text, m.Model, m.Usage.InputTokens, m.Usage.OutputTokens, string(m.StopReason)}
			case "gemini":
				var g generateContentResponse
				err = json.Unmarshal(body, &g)
				if err == nil && len(g.Candidates) > 0 && len(g.Candidates[0].Content.Parts) > 0 {
					c := g.Candidates[0]
					got = []any{c.Content.Parts[0].Text, g.ModelVersion, g.UsageMetadata.PromptTokenCount, g.UsageMetadata.CandidatesTokenCount, c.FinishReason}
				}
			default:
				var c openai.ChatCompletion
				err = json.Unmarshal(body, &c)
				got = []any{c.Choices[0].Message.Content, c.Model, c.Usage.PromptTokens, c.Usage.CompletionTokens, c.Choices[0].FinishReason}
			}
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			stop := map[string]string{"openai": "completed", "azure-openai-responses": "completed", "anthropic": "end_turn", "gemini": "STOP"}[f.name]
			if stop == "" {
				stop = "stop"
			}
			want := []any{"hello", "reported", int64(3), int64(4), stop}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("decoded answer (-want +got):\n%s", diff)
			}
			r := s.Requests()[0]
			if diff := cmp.Diff([]string{"sys", "usr"}, []string{r.System, r.User}); diff != "" {
				t.Errorf("recorded prompt (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWrongKeyIsRefusedWithoutUsingTheScript(t *testing.T) {
	t.Parallel()
	for _, f := range fakes {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			s := f.new(t)
			s.Script(Reply{Text: "scripted"})
			res, body, err := post(t.Context(), s, f.path, f.body, "wrong", f.auth)
			if err != nil {
				t.Fatal(err)
			}
			want := f.refused
			if want == 0 {
				want = http.StatusUnauthorized
			}
			if res.StatusCode != want || !json.Valid(body) {
				t.Errorf("wrong key: status %d, body %s; want %d with the provider's JSON error", res.StatusCode, body, want)
			}
			// The scripted reply is still there for the right key.
			if _, body, err = post(t.Context(), s, f.path, f.body, s.Key, f.auth); err != nil || !bytes.Contains(body, []byte("scripted")) {
				t.Errorf("right key got %s, %v; want the scripted reply", body, err)
			}
			if n := len(s.Requests()); n != 2 {
				t.Errorf("recorded %d requests, want 2 (refused ones count)", n)
			}
		})
	}
}

func TestUnusedScriptFailsTheTest(t *testing.T) {
	t.Parallel()
	rec := &recordingTB{TB: t}
	s := NewOpenAI(rec)
	s.Script(Reply{Text: "used"}, Reply{Status: 500})
	if _, _, err := post(t.Context(), s, "/responses", fakes[0].body, s.Key, fakes[0].auth); err != nil {
		t.Fatal(err)
	}
	errs := rec.finish()
	if len(errs) != 1 || !strings.Contains(errs[0], "1 scripted replies were never requested") {
		t.Errorf("errors = %q, want one about the unused reply", errs)
	}
}

func TestUnexpectedPathFailsTheTest(t *testing.T) {
	t.Parallel()
	rec := &recordingTB{TB: t}
	s := NewAnthropic(rec)
	res, _, err := post(t.Context(), s, "/messages", fakes[3].body, s.Key, fakes[3].auth)
	if err != nil {
		t.Fatal(err)
	}
	errs := rec.finish()
	if res.StatusCode != http.StatusNotFound || len(errs) != 1 || !strings.Contains(errs[0], "unexpected request POST /anthropic/messages") {
		t.Errorf("status %d, errors %q; want 404 and one error naming the path", res.StatusCode, errs)
	}
}

func TestScriptIsServedOnceEachUnderConcurrency(t *testing.T) {
	t.Parallel()
	s := NewOpenAI(t)
	const n = 16
	for i := range n {
		s.Script(Reply{Text: fmt.Sprintf("reply-%02d", i)})
	}
	s.SetDefault(Reply{Text: "default"})
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		seen = map[string]int{}
	)
	for range n + 4 {
		wg.Go(func() {
			_, body, err := post(t.Context(), s, fakes[1].path, fakes[1].body, s.Key, fakes[1].auth)
			if err != nil {
				t.Error(err)
				return
			}
			var c openai.ChatCompletion
			if err := json.Unmarshal(body, &c); err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			seen[c.Choices[0].Message.Content]++
		})
	}
	wg.Wait()
	want := map[string]int{"default": 4}
	for i := range n {
		want[fmt.Sprintf("reply-%02d", i)] = 1
	}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("replies served (-want +got):\n%s", diff)
	}
	if got := len(s.Requests()); got != n+4 {
		t.Errorf("recorded %d requests, want %d", got, n+4)
	}
}

func TestHangEndsWithTheRequest(t *testing.T) {
	t.Parallel()
	s := NewOpenAI(t)
	served := make(chan struct{})
	s.Script(Reply{Hang: true, Served: served})
	// The request ends once the server holds it: a fixed deadline raced
	// the request's arrival, and on a loaded machine the reply was never
	// taken.
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() {
		select {
		case <-served:
			cancel()
		case <-ctx.Done():
		}
	}()
	start := time.Now()
	_, _, err := post(ctx, s, "/responses", fakes[0].body, s.Key, fakes[0].auth)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want the request's end", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("hang lasted %v after the request's context ended", d)
	}
}

func TestDelay(t *testing.T) {
	t.Parallel()
	s := NewAnthropic(t)
	s.Script(Reply{Text: "late", Delay: 150 * time.Millisecond})
	start := time.Now()
	res, _, err := post(t.Context(), s, fakes[3].path, fakes[3].body, s.Key, fakes[3].auth)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("status %v, err %v", res, err)
	}
	if d := time.Since(start); d < 150*time.Millisecond {
		t.Errorf("answered after %v, want at least the 150ms delay", d)
	}
}

func TestFaultBodies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		reply Reply
		check func(res *http.Response, body []byte) string
	}{
		{"429 with Retry-After", Reply{Status: 429, Headers: map[string]string{"Retry-After": "7"}}, func(res *http.Response, body []byte) string {
			if res.StatusCode != 429 || res.Header.Get("Retry-After") != "7" || !bytes.Contains(body, []byte(`"rate_limit_error"`)) {
				return fmt.Sprintf("status %d, Retry-After %q, body %s", res.StatusCode, res.Header.Get("Retry-After"), body)
			}
			return ""
		}},
		{"529", Reply{Status: 529}, func(res *http.Response, body []byte) string {
			if res.StatusCode != 529 || !bytes.Contains(body, []byte(`"overloaded_error"`)) {
				return fmt.Sprintf("status %d, body %s", res.StatusCode, body)
			}
			return ""
		}},
		{"truncated", Reply{Text: "x", Truncate: true}, func(res *http.Response, body []byte) string {
			if res.StatusCode != 200 || json.Valid(body) || len(body) == 0 {
				return fmt.Sprintf("status %d, body %s: want half a JSON body", res.StatusCode, body)
			}
			return ""
		}},
		{"verbatim body", Reply{Status: 502, Body: "<html>bad gateway</html>"}, func(res *http.Response, body []byte) string {
			if res.StatusCode != 502 || string(body) != "<html>bad gateway</html>" {
				return fmt.Sprintf("status %d, body %s", res.StatusCode, body)
			}
			return ""
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := NewAnthropic(t)
			s.Script(tt.reply)
			res, body, err := post(t.Context(), s, fakes[3].path, fakes[3].body, s.Key, fakes[3].auth)
			if err != nil {
				t.Fatal(err)
			}
			if msg := tt.check(res, body); msg != "" {
				t.Error(msg)
			}
		})
	}
}

func TestReset(t *testing.T) {
	t.Parallel()
	s := NewOpenAI(t)
	s.Script(Reply{Reset: true})
	if _, _, err := post(t.Context(), s, "/responses", fakes[0].body, s.Key, fakes[0].auth); err == nil {
		t.Error("a reset connection answered")
	}
}

// generateContentResponse is what the Gemini API's generateContent
// answers, as far as the test reads it (Google's Go SDK is not a
// dependency of optr).
type generateContentResponse struct {
	Candidates []struct {
		Content struct {
			Parts []struct {
				Text string `json:"text"`
			} `json:"parts"`
		} `json:"content"`
		FinishReason string `json:"finishReason"`
	} `json:"candidates"`
	UsageMetadata struct {
		PromptTokenCount     int64 `json:"promptTokenCount"`
		CandidatesTokenCount int64 `json:"candidatesTokenCount"`
	} `json:"usageMetadata"`
	ModelVersion string `json:"modelVersion"`
}

// TestChatOnlyServerAnswersOtherPaths404: the OpenAI-compatible fake
// answers the Responses API as such servers do, a plain 404, and that is
// no test failure: it is what the test of a misconfigured client meets.
func TestChatOnlyServerAnswersOtherPaths404(t *testing.T) {
	t.Parallel()
	rec := &recordingTB{TB: t}
	s := NewChatCompletions(rec)
	res, body, err := post(t.Context(), s, "/responses", fakes[0].body, s.Key, fakes[0].auth)
	if err != nil {
		t.Fatal(err)
	}
	if errs := rec.finish(); res.StatusCode != http.StatusNotFound || string(body) != "404 page not found" || len(errs) > 0 {
		t.Errorf("status %d body %q errors %q; want a plain 404 and no failure", res.StatusCode, body, errs)
	}
	if n := len(s.Requests()); n != 1 {
		t.Errorf("recorded %d requests, want 1", n)
	}
}
