package llmtest

import (
	"fmt"

	"github.com/optr-dev/optr/internal/agent"
)

// responseObject is a Responses API response object, as OpenAI and Azure
// OpenAI return it.
func responseObject(in Request, rep Reply, id int, u agent.Usage) map[string]any {
	content := []any{map[string]any{"type": "output_text", "text": rep.Text, "annotations": []any{}, "logprobs": []any{}}}
	if rep.Refusal != "" {
		content = []any{map[string]any{"type": "refusal", "refusal": rep.Refusal}}
	}
	status, incomplete := "completed", any(nil)
	if rep.Cut {
		status, incomplete = "incomplete", map[string]any{"reason": "max_output_tokens"}
	}
	return map[string]any{
		"id":                   fmt.Sprintf("resp_%06d", id),
		"object":               "response",
		"created_at":           created,
		"status":               status,
		"error":                nil,
		"incomplete_details":   incomplete,
		"instructions":         in.Body["instructions"],
		"max_output_tokens":    in.Body["max_output_tokens"],
		"model":                modelOf(in, rep),
		"output":               []any{map[string]any{"type": "message", "id": fmt.Sprintf("msg_%06d", id), "status": status, "role": "assistant", "content": content}},
		"parallel_tool_calls":  true,
		"previous_response_id": nil,
		"reasoning":            map[string]any{"effort": nil, "summary": nil},
		"store":                in.Body["store"],
		"temperature":          1.0,
		"text":                 in.Body["text"],
		"tool_choice":          "auto",
		"tools":                []any{},
		"top_p":                1.0,
		"truncation":           "disabled",
		"usage": map[string]any{
			"input_tokens":          u.InputTokens,
			"input_tokens_details":  map[string]any{"cached_tokens": 0},
			"output_tokens":         u.OutputTokens,
			"output_tokens_details": map[string]any{"reasoning_tokens": 0},
			"total_tokens":          u.Total(),
		},
		"user":     nil,
		"metadata": map[string]any{},
	}
}
