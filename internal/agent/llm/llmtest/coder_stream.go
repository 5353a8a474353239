package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// stream writes turn as the wire format streams an answer, flushing every
// event as the real APIs do.
func (c *Coder) stream(w http.ResponseWriter, conv conversation, t turn, call CoderCall) {
	var events []string
	switch c.wire {
	case WireMessages:
		events = messagesEvents(t, call)
	case WireResponses:
		events = responsesEvents(t, call)
	default:
		events = geminiChunks(t, call)
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	for _, e := range events {
		_, _ = w.Write([]byte(e))
		if f != nil {
			f.Flush()
		}
	}
}

// coderEvent is one server-sent event: its name (none when empty) and its
// JSON data.
func coderEvent(name string, data any) string {
	b, err := json.Marshal(data)
	if err != nil {
		panic(err) // the Coder's own maps always encode
	}
	if name == "" {
		return "data: " + string(b) + "\n\n"
	}
	return "event: " + name + "\ndata: " + string(b) + "\n\n"
}

// thirds cuts s into about three pieces, as a model's deltas come.
func thirds(s string) []string {
	if len(s) < 3 {
		return []string{s}
	}
	n := len(s) / 3
	return []string{s[:n], s[n : 2*n], s[2*n:]}
}

// messagesEvents is an Anthropic Messages stream: message_start with the
// prompt's use, a content block per tool call (its input in
// input_json_delta pieces) or the text, message_delta with the stop
// reason and the answer's use, message_stop.
func messagesEvents(t turn, call CoderCall) []string {
	u := call.Usage
	ev := []string{
		coderEvent("message_start", map[string]any{"type": "message_start", "message": map[string]any{
			"id": fmt.Sprintf("msg_coder_%d", time.Now().UnixNano()), "type": "message", "role": "assistant",
			"model": call.Model, "content": []any{}, "stop_reason": nil, "stop_sequence": nil,
			"usage": map[string]any{
				"input_tokens": u.Input - u.Cached, "cache_creation_input_tokens": 0,
				"cache_read_input_tokens": u.Cached, "output_tokens": 1,
			},
		}}),
		coderEvent("ping", map[string]any{"type": "ping"}),
	}
	block := func(i int, start map[string]any, deltas []map[string]any) {
		ev = append(ev, coderEvent("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": start}))
		for _, d := range deltas {
			ev = append(ev, coderEvent("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": d}))
		}
		ev = append(ev, coderEvent("content_block_stop", map[string]any{"type": "content_block_stop", "index": i}))
	}
	stop := "end_turn"
	if len(t.calls) > 0 {
		stop = "tool_use"
		for i, tc := range t.calls {
			args, _ := json.Marshal(tc.args)
			var deltas []map[string]any
			for _, p := range thirds(string(args)) {
				deltas = append(deltas, map[string]any{"type": "input_json_delta", "partial_json": p})
			}
			block(i, map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_coder_%d", i), "name": tc.name, "input": map[string]any{}}, deltas)
		}
	} else {
		var deltas []map[string]any
		for _, p := range thirds(t.text) {
			deltas = append(deltas, map[string]any{"type": "text_delta", "text": p})
		}
		block(0, map[string]any{"type": "text", "text": ""}, deltas)
	}
	return append(ev,
		coderEvent("message_delta", map[string]any{"type": "message_delta",
			"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
			"usage": map[string]any{"output_tokens": u.Output}}),
		coderEvent("message_stop", map[string]any{"type": "message_stop"}))
}

// responsesEvents is an OpenAI Responses stream: response.created, each
// output item added, its deltas and done, then response.completed with
// the whole response and its use.
func responsesEvents(t turn, call CoderCall) []string {
	u := call.Usage
	seq := 0
	var ev []string
	add := func(typ string, fields map[string]any) {
		fields["type"], fields["sequence_number"] = typ, seq
		seq++
		ev = append(ev, coderEvent(typ, fields))
	}
	id := fmt.Sprintf("resp_coder_%d", time.Now().UnixNano())
	resp := func(status string, output []any, usage any) map[string]any {
		return map[string]any{
			"id": id, "object": "response", "created_at": time.Now().Unix(), "status": status,
			"model": call.Model, "output": output, "usage": usage, "error": nil, "incomplete_details": nil,
			"parallel_tool_calls": true, "tool_choice": "auto", "tools": []any{},
		}
	}
	add("response.created", map[string]any{"response": resp("in_progress", []any{}, nil)})
	add("response.in_progress", map[string]any{"response": resp("in_progress", []any{}, nil)})
	var output []any
	for i, tc := range t.calls {
		args, _ := json.Marshal(tc.args)
		item := map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_coder_%d", i), "call_id": fmt.Sprintf("call_coder_%d", i),
			"name": tc.name, "arguments": "", "status": "in_progress"}
		add("response.output_item.added", map[string]any{"output_index": i, "item": item})
		for _, p := range thirds(string(args)) {
			add("response.function_call_arguments.delta", map[string]any{"item_id": item["id"], "output_index": i, "delta": p})
		}
		add("response.function_call_arguments.done", map[string]any{"item_id": item["id"], "output_index": i, "arguments": string(args)})
		done := map[string]any{}
		for k, v := range item {
			done[k] = v
		}
		done["arguments"], done["status"] = string(args), "completed"
		add("response.output_item.done", map[string]any{"output_index": i, "item": done})
		output = append(output, done)
	}
	if len(t.calls) == 0 {
		item := map[string]any{"type": "message", "id": "msg_coder_0", "role": "assistant", "status": "in_progress", "content": []any{}}
		add("response.output_item.added", map[string]any{"output_index": 0, "item": item})
		part := map[string]any{"type": "output_text", "text": "", "annotations": []any{}}
		add("response.content_part.added", map[string]any{"item_id": "msg_coder_0", "output_index": 0, "content_index": 0, "part": part})
		for _, p := range thirds(t.text) {
			add("response.output_text.delta", map[string]any{"item_id": "msg_coder_0", "output_index": 0, "content_index": 0, "delta": p, "logprobs": []any{}})
		}
		add("response.output_text.done", map[string]any{"item_id": "msg_coder_0", "output_index": 0, "content_index": 0, "text": t.text, "logprobs": []any{}})
		full := map[string]any{"type": "output_text", "text": t.text, "annotations": []any{}}
		add("response.content_part.done", map[string]any{"item_id": "msg_coder_0", "output_index": 0, "content_index": 0, "part": full})
		done := map[string]any{"type": "message", "id": "msg_coder_0", "role": "assistant", "status": "completed", "content": []any{full}}
		add("response.output_item.done", map[string]any{"output_index": 0, "item": done})
		output = append(output, done)
	}
	add("response.completed", map[string]any{"response": resp("completed", output, map[string]any{
		"input_tokens": u.Input, "input_tokens_details": map[string]any{"cached_tokens": u.Cached},
		"output_tokens": u.Output, "output_tokens_details": map[string]any{"reasoning_tokens": 0},
		"total_tokens": u.Input + u.Output,
	})})
	return ev
}

// geminiParts are the parts of a Gemini answer to t.
func geminiParts(t turn) [][]any {
	if len(t.calls) > 0 {
		var parts []any
		for _, tc := range t.calls {
			parts = append(parts, map[string]any{"functionCall": map[string]any{"name": tc.name, "args": tc.args}})
		}
		return [][]any{parts}
	}
	var chunks [][]any
	for _, p := range thirds(t.text) {
		chunks = append(chunks, []any{map[string]any{"text": p}})
	}
	return chunks
}

// geminiUsage is Gemini's usageMetadata for u.
func geminiUsage(u CoderUsage) map[string]any {
	return map[string]any{
		"promptTokenCount": u.Input, "cachedContentTokenCount": u.Cached,
		"candidatesTokenCount": u.Output, "totalTokenCount": u.Input + u.Output,
	}
}

// geminiChunks is a streamGenerateContent answer as server-sent events:
// a GenerateContentResponse per chunk, the last with the finish reason
// and the use.
func geminiChunks(t turn, call CoderCall) []string {
	parts := geminiParts(t)
	var ev []string
	for i, p := range parts {
		cand := map[string]any{"content": map[string]any{"role": "model", "parts": p}, "index": 0}
		chunk := map[string]any{"candidates": []any{cand}, "modelVersion": call.Model, "responseId": "coder"}
		if i == len(parts)-1 {
			cand["finishReason"] = "STOP"
			chunk["usageMetadata"] = geminiUsage(call.Usage)
		}
		ev = append(ev, strings.Replace(coderEvent("", chunk), "\n\n", "\r\n\r\n", 1))
	}
	return ev
}

// writeGeminiJSON answers generateContent whole.
func (c *Coder) writeGeminiJSON(w http.ResponseWriter, _ conversation, t turn, u CoderUsage) {
	var parts []any
	for _, p := range geminiParts(t) {
		parts = append(parts, p...)
	}
	if len(t.calls) == 0 {
		parts = []any{map[string]any{"text": t.text}}
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": geminiUsage(u),
		"modelVersion":  "coder",
	})
}
