package llmtest

import (
	"encoding/json"
	"strings"
)

// conversation is one request to a Coder, read as the conversation it
// carries.
type conversation struct {
	body map[string]any
	path string
}

// tools are the names of the tools the request offers, in every wire
// format: Anthropic's and the Responses API's tools[].name, Chat
// Completions' tools[].function.name, Gemini's
// tools[].functionDeclarations[].name.
func (c conversation) tools() []string {
	var names []string
	list, _ := c.body["tools"].([]any)
	for _, t := range list {
		m, _ := t.(map[string]any)
		if fn, ok := m["function"].(map[string]any); ok {
			m = fn
		}
		if n, _ := m["name"].(string); n != "" {
			names = append(names, n)
		}
		decls, _ := m["functionDeclarations"].([]any)
		for _, d := range decls {
			dm, _ := d.(map[string]any)
			if n, _ := dm["name"].(string); n != "" {
				names = append(names, n)
			}
		}
	}
	return names
}

// rounds counts the model's turns that called tools in the history the
// request carries.
func (c conversation) rounds(w Wire) int {
	n := 0
	switch w {
	case WireMessages:
		msgs, _ := c.body["messages"].([]any)
		for _, m := range msgs {
			mm, _ := m.(map[string]any)
			if mm["role"] == "assistant" && hasPart(mm["content"], "type", "tool_use") {
				n++
			}
		}
	case WireResponses:
		items, _ := c.body["input"].([]any)
		calling := false
		for _, it := range items {
			im, _ := it.(map[string]any)
			isCall := im["type"] == "function_call"
			if isCall && !calling {
				n++
			}
			calling = isCall
		}
	case WireGemini:
		contents, _ := c.body["contents"].([]any)
		for _, ct := range contents {
			cm, _ := ct.(map[string]any)
			if cm["role"] == "model" && hasKey(cm["parts"], "functionCall") {
				n++
			}
		}
	}
	return n
}

// hasPart reports whether parts (a list of objects) holds one whose key is
// value.
func hasPart(parts any, key, value string) bool {
	list, _ := parts.([]any)
	for _, p := range list {
		if pm, _ := p.(map[string]any); pm[key] == value {
			return true
		}
	}
	return false
}

// hasKey reports whether parts holds an object with key.
func hasKey(parts any, key string) bool {
	list, _ := parts.([]any)
	for _, p := range list {
		if pm, _ := p.(map[string]any); pm[key] != nil {
			return true
		}
	}
	return false
}

// workdir is the agent's working directory as the CLI told its model,
// "" when it did not.
func (c conversation) workdir() string {
	raw, _ := json.Marshal(c.body)
	for _, re := range workdirPatterns {
		if m := re.Regexp().FindSubmatch(raw); m != nil {
			return string(m[1])
		}
	}
	return ""
}

// jsonSchema is the JSON schema the request wants its answer to follow,
// nil when it wants text: Gemini's generationConfig.responseJsonSchema
// (or responseSchema), the Responses API's text.format.schema.
func (c conversation) jsonSchema() map[string]any {
	if gc, ok := c.body["generationConfig"].(map[string]any); ok {
		for _, k := range []string{"responseJsonSchema", "responseSchema"} {
			if s, ok := gc[k].(map[string]any); ok {
				return s
			}
		}
		if mt, _ := gc["responseMimeType"].(string); strings.Contains(mt, "json") {
			return map[string]any{"type": "object"}
		}
	}
	if text, ok := c.body["text"].(map[string]any); ok {
		if f, ok := text["format"].(map[string]any); ok {
			if s, ok := f["schema"].(map[string]any); ok {
				return s
			}
		}
	}
	return nil
}
