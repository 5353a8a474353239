package llmtest

import (
	"net/http"
	"strings"
)

// created is the fixed creation time the fakes report (2025-01-01T00:00:00Z),
// so answers are reproducible.
const created = 1735689600

// bearer reports whether h carries "Authorization: Bearer key".
func bearer(h http.Header, key string) bool {
	return h.Get("Authorization") == "Bearer "+key
}

// given is the credential a request presented, for messages that echo it.
func given(h http.Header, names ...string) string {
	for _, n := range names {
		if v := h.Get(n); v != "" {
			return strings.TrimPrefix(v, "Bearer ")
		}
	}
	return ""
}

// str reads a string field of a decoded body.
func str(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

// messages reads the system and user text of a chat-style message list;
// content may be a string or a list of text parts.
func messages(list any) (system, user string) {
	items, _ := list.([]any)
	for _, it := range items {
		m, _ := it.(map[string]any)
		text := contentText(m["content"])
		switch str(m, "role") {
		case "system", "developer":
			system += text
		case "user":
			user += text
		}
	}
	return system, user
}

// contentText flattens a string or a list of {"text": …} parts.
func contentText(c any) string {
	switch v := c.(type) {
	case string:
		return v
	case []any:
		var b strings.Builder
		for _, p := range v {
			if m, ok := p.(map[string]any); ok {
				b.WriteString(str(m, "text"))
			}
		}
		return b.String()
	}
	return ""
}

// modelOf is the model an answer reports.
func modelOf(in Request, rep Reply) string {
	if rep.Model != "" {
		return rep.Model
	}
	return pick(in.Model, in.Deployment)
}

func pick(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}
