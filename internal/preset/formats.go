package preset

import (
	"encoding/json"
	"strings"
)

// The readers of each format take one JSON object (a line of the stream)
// and add what it says to the session. A line of another shape than
// expected says nothing: the CLIs add events between releases.

// readClaude reads Claude Code's stream-json: the answer, turns, use and
// cost are in the last line (type result); tool calls in the assistant
// messages' tool_use blocks.
func readClaude(s *Session, line []byte) {
	var e struct {
		Type    string `json:"type"`
		Subtype string `json:"subtype"`
		Model   string `json:"model"`
		Message struct {
			Model   string `json:"model"`
			Content []struct {
				Type string `json:"type"`
				Name string `json:"name"`
			} `json:"content"`
		} `json:"message"`
		Result    *string  `json:"result"`
		IsError   bool     `json:"is_error"`
		Errors    []string `json:"errors"`
		NumTurns  int      `json:"num_turns"`
		TotalCost *float64 `json:"total_cost_usd"`
		Usage     *struct {
			Input         int64 `json:"input_tokens"`
			CacheCreation int64 `json:"cache_creation_input_tokens"`
			CacheRead     int64 `json:"cache_read_input_tokens"`
			Output        int64 `json:"output_tokens"`
		} `json:"usage"`
	}
	if json.Unmarshal(line, &e) != nil {
		return
	}
	switch e.Type {
	case "system":
		if e.Subtype == "init" && e.Model != "" {
			s.Model = e.Model
		}
	case "assistant":
		for _, c := range e.Message.Content {
			if c.Type == "tool_use" {
				s.tool(c.Name)
			}
		}
	case "result":
		if e.Result != nil {
			s.Answer = *e.Result
		}
		s.Turns = e.NumTurns
		s.CostUSD = e.TotalCost
		if u := e.Usage; u != nil {
			// Anthropic counts the prompt's cached parts apart from
			// input_tokens.
			s.Usage = &Usage{InputTokens: u.Input + u.CacheCreation + u.CacheRead, OutputTokens: u.Output, CachedTokens: u.CacheRead}
		}
		if e.IsError {
			s.Error = strings.TrimSpace(strings.Join(append([]string{e.Subtype, pointed(e.Result)}, e.Errors...), ": "))
		}
	}
}

// readCodex reads codex exec --json: an agent_message item is an answer
// (the last one is the answer), a completed turn carries its use, a failed
// turn its error; commands, file changes, MCP calls and searches are its
// tools.
func readCodex(s *Session, line []byte) {
	var e struct {
		Type string `json:"type"`
		Item struct {
			Type   string `json:"type"`
			Text   string `json:"text"`
			Server string `json:"server"`
			Tool   string `json:"tool"`
		} `json:"item"`
		Usage *struct {
			Input  int64 `json:"input_tokens"`
			Cached int64 `json:"cached_input_tokens"`
			Output int64 `json:"output_tokens"`
		} `json:"usage"`
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(line, &e) != nil {
		return
	}
	switch e.Type {
	case "item.completed":
		switch it := e.Item; it.Type {
		case "agent_message":
			s.Answer = it.Text
		case "command_execution", "file_change", "web_search":
			s.tool(it.Type)
		case "mcp_tool_call":
			s.tool(it.Server + "." + it.Tool)
		}
	case "turn.completed":
		s.Turns++
		if u := e.Usage; u != nil {
			s.addUsage(Usage{InputTokens: u.Input, OutputTokens: u.Output, CachedTokens: u.Cached})
		}
	case "turn.failed":
		s.Error = e.Error.Message
	}
}

// readGemini reads Gemini CLI's stream-json: the answer is the assistant's
// text after its last tool call; each model reply (text, tool calls, or
// both) is a turn; the result carries the use and an error.
func readGemini(s *Session, line []byte) {
	var e struct {
		Type     string `json:"type"`
		Model    string `json:"model"`
		Role     string `json:"role"`
		Content  string `json:"content"`
		Delta    bool   `json:"delta"`
		ToolName string `json:"tool_name"`
		Status   string `json:"status"`
		Message  string `json:"message"`
		Error    *struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
		Stats *struct {
			Total  int64                      `json:"total_tokens"`
			Input  int64                      `json:"input_tokens"`
			Output int64                      `json:"output_tokens"`
			Cached int64                      `json:"cached"`
			Models map[string]json.RawMessage `json:"models"`
		} `json:"stats"`
	}
	if json.Unmarshal(line, &e) != nil {
		return
	}
	st := geminiState(s)
	switch e.Type {
	case "init":
		s.Model = e.Model
	case "message":
		if e.Role != "assistant" {
			st.replying = false
			return
		}
		st.reply(s)
		if !e.Delta {
			s.Answer = ""
		}
		s.Answer += e.Content
	case "tool_use":
		st.reply(s)
		s.tool(e.ToolName)
		s.Answer = ""
	case "tool_result":
		st.replying = false
	case "result":
		if e.Status != "" && e.Status != "success" && e.Error != nil {
			s.Error = strings.TrimSpace(e.Error.Type + ": " + e.Error.Message)
		}
		if t := e.Stats; t != nil {
			// output_tokens leaves the model's thoughts out; the total
			// has them, and they are paid as output.
			out := t.Output
			if t.Total > t.Input+t.Output {
				out = t.Total - t.Input
			}
			s.Usage = &Usage{InputTokens: t.Input, OutputTokens: out, CachedTokens: t.Cached}
			if len(t.Models) == 1 {
				for m := range t.Models {
					s.Model = m
				}
			}
		}
	}
}

// geminiReply is whether a Gemini stream is inside a model reply.
type geminiReply struct{ replying bool }

func geminiState(s *Session) *geminiReply {
	if s.state == nil {
		s.state = &geminiReply{}
	}
	return s.state
}

// reply counts a model reply when one starts.
func (g *geminiReply) reply(s *Session) {
	if !g.replying {
		s.Turns++
		g.replying = true
	}
}

// readCopilot reads the Copilot CLI's json events: an assistant message
// with content is an answer (the last one is the answer), a turn's end is
// a turn, a tool's start a tool call, assistant.usage a model call's use,
// session.error an error.
func readCopilot(s *Session, line []byte) {
	var e struct {
		Type string `json:"type"`
		Data struct {
			Content      string `json:"content"`
			Model        string `json:"model"`
			ToolName     string `json:"toolName"`
			Message      string `json:"message"`
			ErrorType    string `json:"errorType"`
			InputTokens  int64  `json:"inputTokens"`
			OutputTokens int64  `json:"outputTokens"`
			CacheRead    int64  `json:"cacheReadTokens"`
		} `json:"data"`
	}
	if json.Unmarshal(line, &e) != nil {
		return
	}
	d := e.Data
	switch e.Type {
	case "assistant.message":
		if d.Content != "" {
			s.Answer = d.Content
		}
		if d.Model != "" {
			s.Model = d.Model
		}
	case "assistant.turn_end":
		s.Turns++
	case "tool.execution_start":
		s.tool(d.ToolName)
	case "assistant.usage":
		s.addUsage(Usage{InputTokens: d.InputTokens, OutputTokens: d.OutputTokens, CachedTokens: d.CacheRead})
	case "session.error":
		s.Error = strings.TrimSpace(d.ErrorType + ": " + d.Message)
	}
}

// pointed is *p, "" for nil.
func pointed(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
