package llm_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/agent/llm/llmtest"
)

// wireFacts is what a request must look like on the wire.
type wireFacts struct {
	Method    string
	Path      string
	Query     string
	Auth      map[string]string
	Model     string
	MaxTokens any
}

func TestRunEndToEnd(t *testing.T) {
	t.Parallel()
	for _, p := range providers() {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			fake := p.newFake(t)
			fake.Script(llmtest.Reply{
				Text:  llmtest.Answer("hello from "+p.name, 1500),
				Usage: agent.Usage{InputTokens: 120, OutputTokens: 34},
				Model: p.cfg.Model + "-2025-04-14",
			})
			var (
				mu       sync.Mutex
				progress []agent.Progress
			)
			a := newAgent(t, fake, p.cfg)
			if a.Name() != "tester" {
				t.Errorf("Name() = %q, want the configured name %q", a.Name(), "tester")
			}
			resp, err := a.Run(t.Context(), agent.Request{
				Intent:   "Write a haiku about ledgers.",
				Workflow: "issue-7",
				Progress: func(pr agent.Progress) {
					mu.Lock()
					defer mu.Unlock()
					progress = append(progress, pr)
				},
			})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			want := agent.Response{
				Output: "hello from " + p.name,
				TTV:    1500 * time.Millisecond,
				Model:  p.cfg.Model + "-2025-04-14",
				Usage:  agent.Usage{InputTokens: 120, OutputTokens: 34},
			}
			if resp.FirstOutput <= 0 {
				t.Errorf("FirstOutput = %v, want when the answer arrived", resp.FirstOutput)
			}
			if diff := cmp.Diff(want, resp, ignoreFirstOutput); diff != "" {
				t.Errorf("Response (-want +got):\n%s", diff)
			}
			wantProgress := []agent.Progress{{Bytes: len(llmtest.Answer("hello from "+p.name, 1500)), Tokens: 34}}
			if diff := cmp.Diff(wantProgress, progress); diff != "" {
				t.Errorf("Progress (-want +got):\n%s", diff)
			}

			reqs := fake.Requests()
			if len(reqs) != 1 {
				t.Fatalf("the fake got %d requests, want exactly 1", len(reqs))
			}
			r := reqs[0]
			wantWire := wireFacts{
				Method:    "POST",
				Path:      p.path,
				Auth:      p.wantAuth(fake.Key),
				Model:     p.cfg.Model,
				MaxTokens: p.maxTokens,
			}
			if p.cfg.Deployment != "" {
				wantWire.Model = p.cfg.Deployment
				wantWire.Query = "api-version=2024-10-21"
			}
			gotWire := wireFacts{
				Method:    r.Method,
				Path:      r.Path,
				Query:     r.Query.Encode(),
				Auth:      headers(r.Header, p.authHeaders),
				Model:     r.Model,
				MaxTokens: r.Body[p.maxTokensField],
			}
			if diff := cmp.Diff(wantWire, gotWire); diff != "" {
				t.Errorf("request (-want +got):\n%s", diff)
			}
			if !strings.Contains(r.User, "Write a haiku about ledgers.") {
				t.Errorf("user message %q does not hold the intent", r.User)
			}
			if !strings.Contains(r.System, `"ttv_estimate_ms"`) {
				t.Errorf("system prompt %q does not ask for the answer format", r.System)
			}
		})
	}
}

// TestRunStructuredOutput checks that providers with a JSON-schema mode are
// asked for the answer schema.
func TestRunStructuredOutput(t *testing.T) {
	t.Parallel()
	for _, p := range providers() {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			fake := p.newFake(t)
			if _, err := newAgent(t, fake, p.cfg).Run(t.Context(), agent.Request{Intent: "x"}); err != nil {
				t.Fatalf("Run: %v", err)
			}
			body := fake.Requests()[0].Body
			var format any
			switch {
			case p.name == "openai":
				format = dig(body, "text", "format")
			case !p.structured:
				// No JSON mode every model supports: the prompt asks.
				for _, k := range []string{"output_config", "response_format"} {
					if body[k] != nil {
						t.Errorf("%s request has %s %v; want the format asked for in the prompt", p.name, k, body[k])
					}
				}
				return
			default:
				format = dig(body, "response_format", "json_schema")
			}
			got := map[string]any{}
			if m, ok := format.(map[string]any); ok {
				got["name"], got["strict"], got["required"] = m["name"], m["strict"], dig(m, "schema", "required")
			}
			want := map[string]any{"name": "optr_answer", "strict": true, "required": []any{"output", "ttv_estimate_ms"}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("structured output format (-want +got):\n%s", diff)
			}
		})
	}
}

// dig walks nested JSON objects.
func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func TestRunOutputShapes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		text string
		want agent.Response
	}{
		{"fenced with prose", "Here you go:\n```json\n{\"output\": \"fenced\", \"ttv_estimate_ms\": 20}\n```\nEnjoy.",
			agent.Response{Output: "fenced", TTV: 20 * time.Millisecond}},
		{"output is an object", `{"output": {"a": [1, 2]}, "ttv_estimate_ms": 5}`,
			agent.Response{Output: `{"a":[1,2]}`, TTV: 5 * time.Millisecond}},
		{"no ttv", `{"output": "no estimate"}`, agent.Response{Output: "no estimate"}},
		{"negative ttv is implausible", `{"output": "x", "ttv_estimate_ms": -3}`, agent.Response{Output: "x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fake := llmtest.NewAnthropic(t)
			fake.Script(llmtest.Reply{Text: tt.text, Model: "m", Usage: agent.Usage{InputTokens: 1, OutputTokens: 1}})
			p := providerNamed(t, "anthropic")
			resp, err := newAgent(t, fake, p.cfg).Run(t.Context(), agent.Request{Intent: "x"})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			tt.want.Model, tt.want.Usage = "m", agent.Usage{InputTokens: 1, OutputTokens: 1}
			if diff := cmp.Diff(tt.want, resp, ignoreFirstOutput); diff != "" {
				t.Errorf("Response (-want +got):\n%s", diff)
			}
		})
	}
}
