package preset

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"
)

// Format is a kind of event stream a CLI writes on stdout: one JSON object
// a line.
type Format string

// The formats.
const (
	// ClaudeStream is Claude Code's --output-format stream-json: system,
	// assistant and user messages, then a result with the answer, turns,
	// use and cost.
	ClaudeStream Format = "claude-stream-json"
	// CodexEvents is codex exec --json: thread, turn and item events; a
	// completed turn carries its use, an agent_message item the answer.
	CodexEvents Format = "codex-json"
	// GeminiStream is Gemini CLI's --output-format stream-json: init,
	// messages (the answer in assistant deltas), tool_use and tool_result,
	// then a result with its stats.
	GeminiStream Format = "gemini-stream-json"
	// CopilotEvents is the Copilot CLI's --output-format json: session,
	// assistant, tool and model events, then a result.
	CopilotEvents Format = "copilot-json"
)

// Usage is the use a CLI reported of its model calls. optr's own figures
// come from the model gateway, which meters every call; these are the
// CLI's word, kept beside them.
type Usage struct {
	// InputTokens are the prompts' tokens, cached ones included.
	InputTokens int64 `json:"input_tokens"`
	// OutputTokens are the answers' tokens, reasoning included.
	OutputTokens int64 `json:"output_tokens"`
	// CachedTokens is the part of InputTokens read from a cache.
	CachedTokens int64 `json:"cached_tokens,omitempty"`
}

// Session is what a CLI's event stream said of its run.
type Session struct {
	// Format is the stream's format.
	Format Format `json:"format"`
	// Answer is the CLI's final answer: the agent's output.
	Answer string `json:"-"`
	// Error is the error the CLI reported at its end ("" when none).
	Error string `json:"error,omitempty"`
	// Model is the model the CLI said it used.
	Model string `json:"model,omitempty"`
	// Turns counts the CLI's turns as it counts them (Claude Code's
	// num_turns, Codex's completed turns, Gemini CLI's and the Copilot
	// CLI's model replies).
	Turns int `json:"turns"`
	// ToolCalls counts the tools it called, and Tools by name.
	ToolCalls int            `json:"tool_calls"`
	Tools     map[string]int `json:"tools,omitempty"`
	// Usage is the use it reported, nil when it reported none.
	Usage *Usage `json:"usage,omitempty"`
	// CostUSD is the cost it reported (Claude Code's total_cost_usd, by
	// its own price list), nil when it reported none.
	CostUSD *float64 `json:"cost_usd,omitempty"`
	// Events counts the JSON lines read; Other the lines that were not
	// JSON objects (a CLI's plain text on stdout) or were longer than
	// MaxLine.
	Events int `json:"events"`
	Other  int `json:"other,omitempty"`

	// state is what a format's reader keeps between lines.
	state *geminiReply
}

// MaxLine bounds one line of the stream: a longer line (a tool's output
// of many megabytes, say) is counted in Other and not read.
const MaxLine = 8 << 20

// Reader reads a CLI's event stream as it is written (an io.Writer), and
// says what it held when it ends (Close). It keeps at most one line of
// MaxLine bytes and the answer.
type Reader struct {
	s    Session
	read func(*Session, []byte)
	line []byte
	over bool // the current line passed MaxLine
}

// NewReader returns a Reader of streams in format f; an unknown format
// reads nothing but counts lines.
func NewReader(f Format) *Reader {
	r := &Reader{s: Session{Format: f}}
	switch f {
	case ClaudeStream:
		r.read = readClaude
	case CodexEvents:
		r.read = readCodex
	case GeminiStream:
		r.read = readGemini
	case CopilotEvents:
		r.read = readCopilot
	default:
		r.read = func(*Session, []byte) {}
	}
	return r
}

// Write reads p's lines; it never fails.
func (r *Reader) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		if !r.over {
			if len(r.line)+len(chunk) > MaxLine {
				r.over, r.line = true, r.line[:0]
			} else {
				r.line = append(r.line, chunk...)
			}
		}
		if i < 0 {
			break
		}
		r.endLine()
		p = p[i+1:]
	}
	return n, nil
}

// endLine reads the line kept so far.
func (r *Reader) endLine() {
	line := bytes.TrimSpace(r.line)
	switch {
	case r.over:
		r.s.Other++
	case len(line) == 0:
	case line[0] != '{' || !json.Valid(line):
		r.s.Other++
	default:
		r.s.Events++
		r.read(&r.s, line)
	}
	r.line, r.over = r.line[:0], false
}

// Close reads a last line without its newline and returns the session.
func (r *Reader) Close() Session {
	if len(r.line) > 0 || r.over {
		r.endLine()
	}
	s := r.s
	s.Tools, s.state = maps.Clone(s.Tools), nil
	return s
}

// tool counts one tool call.
func (s *Session) tool(name string) {
	s.ToolCalls++
	if name == "" {
		return
	}
	if s.Tools == nil {
		s.Tools = map[string]int{}
	}
	if len(s.Tools) < maxToolNames || s.Tools[name] > 0 {
		s.Tools[name]++
	}
}

// maxToolNames bounds the tool names counted one by one: a CLI whose
// model names a million tools must not grow optr's memory or its record.
const maxToolNames = 64

// addUsage adds u to the session's use.
func (s *Session) addUsage(u Usage) {
	if s.Usage == nil {
		s.Usage = &Usage{}
	}
	s.Usage.InputTokens += u.InputTokens
	s.Usage.OutputTokens += u.OutputTokens
	s.Usage.CachedTokens += u.CachedTokens
}

// ToolNames lists the tools called, most called first.
func (s Session) ToolNames() []string {
	names := slices.Collect(maps.Keys(s.Tools))
	slices.SortFunc(names, func(a, b string) int {
		if d := s.Tools[b] - s.Tools[a]; d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	return names
}
