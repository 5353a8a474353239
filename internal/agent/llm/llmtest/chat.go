package llmtest

import (
	"encoding/json"
	"fmt"
	"maps"

	"github.com/optr-dev/optr/internal/agent"
)

// chatCompletion is a chat.completion object, as OpenAI and Azure OpenAI
// return it; extra and choiceExtra add provider fields to the
// object and to its choice.
func chatCompletion(in Request, rep Reply, id int, u agent.Usage, extra, choiceExtra map[string]any) map[string]any {
	message := map[string]any{"role": "assistant", "content": rep.Text, "refusal": nil, "annotations": []any{}}
	if rep.Refusal != "" {
		message["content"], message["refusal"] = nil, rep.Refusal
	}
	finish := "stop"
	if rep.Cut {
		finish = "length"
	}
	if len(rep.ToolCalls) > 0 {
		calls := make([]any, len(rep.ToolCalls))
		for i, c := range rep.ToolCalls {
			args, _ := json.Marshal(c.Args)
			calls[i] = map[string]any{"id": fmt.Sprintf("call_%06d_%d", id, i), "type": "function", "function": map[string]any{"name": c.Name, "arguments": string(args)}}
		}
		message["content"], message["tool_calls"], finish = nil, calls, "tool_calls"
	}
	choice := map[string]any{"index": 0, "message": message, "logprobs": nil, "finish_reason": finish}
	obj := map[string]any{
		"id":      fmt.Sprintf("chatcmpl-%06d", id),
		"object":  "chat.completion",
		"created": created,
		"model":   modelOf(in, rep),
		"choices": []any{choice},
		"usage": map[string]any{
			"prompt_tokens":             u.InputTokens,
			"completion_tokens":         u.OutputTokens,
			"total_tokens":              u.Total(),
			"prompt_tokens_details":     map[string]any{"cached_tokens": 0, "audio_tokens": 0},
			"completion_tokens_details": map[string]any{"reasoning_tokens": 0, "audio_tokens": 0, "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0},
		},
		"system_fingerprint": "fp_llmtest",
	}
	maps.Copy(obj, extra)
	maps.Copy(choice, choiceExtra)
	return obj
}
