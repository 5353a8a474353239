package llmtest

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path"
	"strings"
	"sync"
	"testing"

	"github.com/optr-dev/optr/internal/lazyregexp"
)

// Wire is a wire format a Coder speaks.
type Wire string

// The wire formats of the coding-agent CLIs.
const (
	// WireMessages is Anthropic's Messages API, streamed (Claude Code):
	// POST <URL>/v1/messages, x-api-key.
	WireMessages Wire = "messages"
	// WireResponses is OpenAI's Responses API, streamed (Codex CLI, the
	// Copilot CLI): POST <URL>/responses (URL ends in /v1), a bearer key.
	WireResponses Wire = "responses"
	// WireGemini is Gemini's streamGenerateContent (alt=sse) and
	// generateContent (Gemini CLI): POST
	// <URL>/v1beta/models/<model>:<method>, x-goog-api-key.
	WireGemini Wire = "gemini"
)

// Edit is a file a Coder has the agent write.
type Edit struct {
	// Path is relative to the agent's working directory, slash-separated.
	Path string
	// Content is the whole file.
	Content string
}

// CoderUsage is the use a Coder reports for each answer: Input tokens of
// the prompt (Cached of them read from a cache) and Output tokens.
type CoderUsage struct {
	Input, Output, Cached int64
}

// CoderCall is one request a Coder answered.
type CoderCall struct {
	// Method and Path are the request's, base path included; Model the
	// model it asked for.
	Method, Path, Model string
	// Header holds its headers (the key the agent sent, its user agent).
	Header http.Header
	// Stream is true when it asked for a streamed answer.
	Stream bool
	// Tools are the names of the tools it offered.
	Tools []string
	// Round is how many rounds of tool calls the conversation had done.
	Round int
	// Status is the HTTP status answered.
	Status int
	// Usage is what the answer reported; zero for a refused request.
	Usage CoderUsage
	// Edited is true when the answer asked the agent to write the edits.
	Edited bool
}

// Coder is a fake model server behind a coding-agent CLI: it speaks one
// wire format, streams its answers as the real API does, and drives the
// agent as a model would. A conversation that has not yet called a tool
// is answered with tool calls that write every Edit, through the tools
// the agent offers (Claude Code's Read and Write, Codex CLI's
// exec_command, Gemini CLI's write_file, the Copilot CLI's bash); once
// the tool results are back, with the final answer. Requests without
// tools (a title, a router's question) get the answer, or JSON when a
// schema asks for it. Every answer reports Usage, so a test can hold what
// optr metered against what the provider said.
//
// The state of a conversation is read from the request, never kept: the
// CLIs send the whole history every time, and retries and concurrent
// agents need nothing else.
type Coder struct {
	// URL is the base URL the CLI is given (ANTHROPIC_BASE_URL,
	// OPENAI_BASE_URL, GOOGLE_GEMINI_BASE_URL); it has a base path of its
	// own, so a client that builds a wrong absolute URL fails.
	URL string
	// Key is the only key the Coder accepts.
	Key string

	t      testing.TB
	wire   Wire
	answer string
	edits  []Edit
	usage  CoderUsage
	srv    *httptest.Server

	mu    sync.Mutex
	calls []CoderCall
}

// NewCoder starts a Coder speaking wire that has the agent write edits,
// then answers answer.
func NewCoder(t testing.TB, wire Wire, answer string, edits ...Edit) *Coder {
	t.Helper()
	c := &Coder{
		Key:    "test-coder-" + rand.Text(),
		t:      t,
		wire:   wire,
		answer: answer,
		edits:  edits,
		usage:  CoderUsage{Input: 1200, Output: 80, Cached: 200},
	}
	c.srv = httptest.NewServer(c)
	t.Cleanup(c.srv.Close)
	switch wire {
	case WireMessages:
		c.URL = c.srv.URL + "/anthropic"
	case WireResponses:
		c.URL = c.srv.URL + "/openai/v1"
	case WireGemini:
		c.URL = c.srv.URL + "/gemini"
	default:
		t.Fatalf("llmtest: no wire format %q", wire)
	}
	return c
}

// SetUsage sets the use every answer reports (initially 1200 input
// tokens, 200 of them cached, and 80 output tokens).
func (c *Coder) SetUsage(u CoderUsage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.usage = u
}

// Env returns the variables a CLI reads to reach the Coder: the base URL's
// and the key's.
func (c *Coder) Env() map[string]string {
	switch c.wire {
	case WireMessages:
		return map[string]string{"ANTHROPIC_BASE_URL": c.URL, "ANTHROPIC_API_KEY": c.Key}
	case WireResponses:
		return map[string]string{"OPENAI_BASE_URL": c.URL, "OPENAI_API_KEY": c.Key}
	}
	return map[string]string{"GOOGLE_GEMINI_BASE_URL": c.URL, "GEMINI_API_KEY": c.Key}
}

// Host is the Coder's host:port, for sandbox.network.
func (c *Coder) Host() string { return c.srv.Listener.Addr().String() }

// Calls returns every request answered so far.
func (c *Coder) Calls() []CoderCall {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]CoderCall(nil), c.calls...)
}

// Reported is the use the Coder reported in all: what a meter of the
// agent's calls must come to.
func (c *Coder) Reported() CoderUsage {
	var sum CoderUsage
	for _, call := range c.Calls() {
		sum.Input += call.Usage.Input
		sum.Output += call.Usage.Output
		sum.Cached += call.Usage.Cached
	}
	return sum
}

// ServeHTTP implements http.Handler.
func (c *Coder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	var body map[string]any
	_ = json.Unmarshal(raw, &body)
	call := CoderCall{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone()}
	call.Model, _ = body["model"].(string)
	call.Stream, _ = body["stream"].(bool)
	conv := conversation{body: body, path: r.URL.Path}
	route, ok := c.route(r, &call)
	if !ok {
		c.refuse(w, &call, http.StatusNotFound, "not_found", fmt.Sprintf("no route for %s %s", r.Method, r.URL.Path))
		return
	}
	if !c.admit(r) {
		c.refuse(w, &call, http.StatusUnauthorized, "unauthorized", "invalid api key")
		return
	}
	call.Tools = conv.tools()
	call.Round = conv.rounds(c.wire)
	c.mu.Lock()
	call.Usage = c.usage
	c.mu.Unlock()
	turn := c.turn(conv, &call)
	call.Status = http.StatusOK
	c.record(call)
	switch route {
	case routeJSON:
		c.writeGeminiJSON(w, conv, turn, call.Usage)
	default:
		c.stream(w, conv, turn, call)
	}
}

// routes a Coder serves.
const (
	routeStream = iota // a streamed answer
	routeJSON          // Gemini's generateContent, answered whole
)

// route checks the request's method and path against the wire format.
func (c *Coder) route(r *http.Request, call *CoderCall) (int, bool) {
	if r.Method != http.MethodPost {
		return 0, false
	}
	switch c.wire {
	case WireMessages:
		return routeStream, r.URL.Path == "/anthropic/v1/messages"
	case WireResponses:
		return routeStream, r.URL.Path == "/openai/v1/responses"
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/gemini/v1beta/models/")
	model, method, found := strings.Cut(rest, ":")
	if !ok || !found || model == "" {
		return 0, false
	}
	call.Model = model
	switch method {
	case "streamGenerateContent":
		call.Stream = true
		return routeStream, r.URL.Query().Get("alt") == "sse"
	case "generateContent":
		return routeJSON, true
	}
	return 0, false
}

// admit checks the key the way the provider does.
func (c *Coder) admit(r *http.Request) bool {
	switch c.wire {
	case WireMessages:
		return r.Header.Get("x-api-key") == c.Key || r.Header.Get("Authorization") == "Bearer "+c.Key
	case WireResponses:
		return r.Header.Get("Authorization") == "Bearer "+c.Key
	}
	return r.Header.Get("x-goog-api-key") == c.Key || r.URL.Query().Get("key") == c.Key
}

func (c *Coder) record(call CoderCall) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls = append(c.calls, call)
}

// refuse answers an error in the provider's shape.
func (c *Coder) refuse(w http.ResponseWriter, call *CoderCall, status int, code, msg string) {
	call.Status = status
	c.record(*call)
	var body any
	switch c.wire {
	case WireMessages:
		body = map[string]any{"type": "error", "error": map[string]any{"type": code + "_error", "message": msg}}
	case WireResponses:
		body = map[string]any{"error": map[string]any{"type": "invalid_request_error", "code": code, "message": msg}}
	default:
		body = map[string]any{"error": map[string]any{"code": status, "status": strings.ToUpper(code), "message": msg}}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

// turn is what the model does in one answer: call tools, or answer.
type turn struct {
	calls []toolCall
	text  string
}

// toolCall is one tool call of an answer.
type toolCall struct {
	name string
	args map[string]any
}

// turn decides the answer to conv: the edits, by the tools offered, when
// no tool was called yet; else the answer.
func (c *Coder) turn(conv conversation, call *CoderCall) turn {
	if schema := conv.jsonSchema(); schema != nil && len(call.Tools) == 0 {
		b, _ := json.Marshal(exampleOf(schema))
		return turn{text: string(b)}
	}
	if call.Round > 0 || len(c.edits) == 0 || len(call.Tools) == 0 {
		return turn{text: c.answer}
	}
	calls, ok := c.writes(conv, call.Tools)
	if !ok {
		return turn{text: "llmtest: the agent offers no tool that writes files: " + strings.Join(call.Tools, ", ")}
	}
	call.Edited = true
	return turn{calls: calls}
}

// writes are the tool calls that write c's edits with the tools offered.
func (c *Coder) writes(conv conversation, tools []string) ([]toolCall, bool) {
	has := func(name string) bool {
		for _, t := range tools {
			if t == name {
				return true
			}
		}
		return false
	}
	var calls []toolCall
	for _, e := range c.edits {
		switch {
		case has("Write"):
			// Claude Code writes only absolute paths, and overwrites only a
			// file it has read in this conversation: read it first (an
			// error when it does not exist yet, which is fine).
			abs := path.Join(conv.workdir(), e.Path)
			calls = append(calls,
				toolCall{"Read", map[string]any{"file_path": abs}},
				toolCall{"Write", map[string]any{"file_path": abs, "content": e.Content}})
		case has("write_file"):
			calls = append(calls, toolCall{"write_file", map[string]any{"file_path": e.Path, "content": e.Content}})
		case has("exec_command"):
			calls = append(calls, toolCall{"exec_command", map[string]any{"cmd": shellWrite(e)}})
		case has("bash"):
			calls = append(calls, toolCall{"bash", map[string]any{"command": shellWrite(e), "description": "write " + e.Path}})
		default:
			return nil, false
		}
	}
	return calls, true
}

// shellWrite is a shell command that writes e below the working directory.
func shellWrite(e Edit) string {
	cmd := "printf '%s' " + shellQuote(e.Content) + " > " + shellQuote(e.Path)
	if dir := path.Dir(e.Path); dir != "." {
		cmd = "mkdir -p " + shellQuote(dir) + " && " + cmd
	}
	return cmd
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// exampleOf is a value of a (Gemini-style, upper-case types allowed) JSON
// schema: what a router asking for JSON gets.
func exampleOf(schema map[string]any) any {
	typ, _ := schema["type"].(string)
	switch strings.ToLower(typ) {
	case "object":
		out := map[string]any{}
		props, _ := schema["properties"].(map[string]any)
		for k, v := range props {
			if m, ok := v.(map[string]any); ok {
				out[k] = exampleOf(m)
			}
		}
		return out
	case "array":
		return []any{}
	case "integer", "number":
		return 1
	case "boolean":
		return false
	}
	if enum, ok := schema["enum"].([]any); ok && len(enum) > 0 {
		return enum[0]
	}
	return "simple"
}

// workdirPatterns find the agent's working directory in what the CLI told
// its model (Claude Code's environment section).
var workdirPatterns = []*lazyregexp.Regexp{
	lazyregexp.New(`Primary working directory: ([^\s\\]+)`),
	lazyregexp.New(`Current working directory: ([^\s\\]+)`),
	lazyregexp.New(`<cwd>([^<]+)</cwd>`),
}
