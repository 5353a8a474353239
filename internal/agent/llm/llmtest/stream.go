package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/optr-dev/optr/internal/agent"
)

// streamer is a dialect that streams an answer when the request asks.
type streamer interface {
	// stream is a streamed answer: its Content-Type and its pieces, each
	// written and flushed on its own (whole server-sent events, or
	// elements of a JSON array with their separators).
	stream(in Request, rep Reply, id int, usage agent.Usage) streamed
}

// streamed is an answer a streamer made.
type streamed struct {
	contentType string
	pieces      []string
}

// writeStream sends st piece by piece, flushing each. With rep.CutStream
// it stops halfway through the piece after the first half and drops the
// connection, as a provider whose stream breaks does.
func (s *Server) writeStream(w http.ResponseWriter, id int, rep Reply, st streamed) {
	h := w.Header()
	h.Set("Content-Type", st.contentType)
	h.Set("Cache-Control", "no-cache")
	h.Set(s.d.requestIDHeader(), fmt.Sprintf("req_%06d", id))
	for k, v := range rep.Headers {
		h.Set(k, v)
	}
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	for i, p := range st.pieces {
		if rep.CutStream && i == len(st.pieces)/2 {
			_, _ = w.Write([]byte(p[:len(p)/2]))
			if f != nil {
				f.Flush()
			}
			panic(http.ErrAbortHandler) // the connection drops, the chunked body unended
		}
		_, _ = w.Write([]byte(p))
		if f != nil {
			f.Flush()
		}
	}
}

// sse is one server-sent event: an event name (none when empty) and its
// data, JSON-encoded unless it is a string already.
func sse(event string, data any) string {
	var b strings.Builder
	if event != "" {
		b.WriteString("event: " + event + "\n")
	}
	raw, ok := data.(string)
	if !ok {
		j, err := json.Marshal(data)
		if err != nil {
			panic(err) // the fakes' own maps always marshal
		}
		raw = string(j)
	}
	b.WriteString("data: " + raw + "\n\n")
	return b.String()
}

// pieces cuts text into about three parts, as a model's stream of deltas
// does; at least one, empty when text is.
func pieces(text string) []string {
	if len(text) < 3 {
		return []string{text}
	}
	n := len(text) / 3
	return []string{text[:n], text[n : 2*n], text[2*n:]}
}

// stream implements streamer: an Anthropic Messages event stream
// (message_start with the prompt's use, content deltas, message_delta
// with the answer's, message_stop).
func (anthropicDialect) stream(in Request, rep Reply, id int, u agent.Usage) streamed {
	full, _ := anthropicDialect{}.success(in, rep, id, u).(map[string]any)
	start := map[string]any{}
	for k, v := range full {
		start[k] = v
	}
	start["content"], start["stop_reason"] = []any{}, nil
	startUsage := map[string]any{"input_tokens": u.InputTokens, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 1}
	if rep.NoUsage {
		delete(start, "usage")
	} else {
		start["usage"] = startUsage
	}
	out := []string{
		sse("message_start", map[string]any{"type": "message_start", "message": start}),
		sse("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}}),
		sse("ping", map[string]any{"type": "ping"}),
	}
	for _, p := range pieces(pick(rep.Refusal, rep.Text)) {
		out = append(out, sse("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": p}}))
	}
	delta := map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": full["stop_reason"], "stop_sequence": nil}}
	if !rep.NoUsage {
		delta["usage"] = map[string]any{"output_tokens": u.OutputTokens}
	}
	return streamed{"text/event-stream; charset=utf-8", append(out,
		sse("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0}),
		sse("message_delta", delta),
		sse("message_stop", map[string]any{"type": "message_stop"}),
	)}
}

// stream implements streamer for OpenAI: Chat Completions chunks (the
// usage in a last chunk without choices only when stream_options asks,
// as OpenAI does), or Responses events (the usage in response.completed).
func (openAIDialect) stream(in Request, rep Reply, id int, u agent.Usage) streamed {
	if strings.HasSuffix(in.Path, chatPath) {
		return chatStream(in, rep, id, u)
	}
	return responsesStream(in, rep, id, u)
}

// responsesStream is a Responses API event stream: response.created,
// the text's deltas, and response.completed (response.incomplete for an
// answer cut at its token limit) with the whole response and its usage.
func responsesStream(in Request, rep Reply, id int, u agent.Usage) streamed {
	full := responseObject(in, rep, id, u)
	if rep.NoUsage {
		delete(full, "usage")
	}
	created := map[string]any{}
	for k, v := range full {
		created[k] = v
	}
	created["status"], created["output"], created["usage"] = "in_progress", []any{}, nil
	seq := 0
	ev := func(typ string, fields map[string]any) string {
		fields["type"], fields["sequence_number"] = typ, seq
		seq++
		return sse(typ, fields)
	}
	out := []string{ev("response.created", map[string]any{"response": created})}
	item := fmt.Sprintf("msg_%06d", id)
	for _, p := range pieces(rep.Text) {
		out = append(out, ev("response.output_text.delta", map[string]any{"item_id": item, "output_index": 0, "content_index": 0, "delta": p, "logprobs": []any{}}))
	}
	end := "response.completed"
	if rep.Cut {
		end = "response.incomplete"
	}
	return streamed{"text/event-stream; charset=utf-8", append(out, ev(end, map[string]any{"response": full}))}
}

// chatStream is a Chat Completions stream of chat.completion.chunk
// objects, ended by [DONE].
func chatStream(in Request, rep Reply, id int, u agent.Usage) streamed {
	full := chatCompletion(in, rep, id, u, nil, nil)
	withUsage := false
	if opts, ok := in.Body["stream_options"].(map[string]any); ok {
		withUsage, _ = opts["include_usage"].(bool)
	}
	choice := full["choices"].([]any)[0].(map[string]any)
	msg := choice["message"].(map[string]any)
	chunk := func(delta map[string]any, finish any) string {
		c := map[string]any{
			"id": full["id"], "object": "chat.completion.chunk", "created": created, "model": full["model"],
			"system_fingerprint": "fp_llmtest",
			"choices":            []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}},
		}
		if withUsage {
			c["usage"] = nil
		}
		return sse("", c)
	}
	out := []string{chunk(map[string]any{"role": "assistant", "content": ""}, nil)}
	if calls, ok := msg["tool_calls"].([]any); ok {
		for i, tc := range calls {
			call := tc.(map[string]any)
			fn := call["function"].(map[string]any)
			out = append(out, chunk(map[string]any{"tool_calls": []any{map[string]any{
				"index": i, "id": call["id"], "type": "function",
				"function": map[string]any{"name": fn["name"], "arguments": fn["arguments"]},
			}}}, nil))
		}
	} else {
		for _, p := range pieces(rep.Text) {
			out = append(out, chunk(map[string]any{"content": p}, nil))
		}
	}
	out = append(out, chunk(map[string]any{}, choice["finish_reason"]))
	if withUsage && !rep.NoUsage {
		out = append(out, sse("", map[string]any{
			"id": full["id"], "object": "chat.completion.chunk", "created": created, "model": full["model"],
			"system_fingerprint": "fp_llmtest", "choices": []any{}, "usage": full["usage"],
		}))
	}
	return streamed{"text/event-stream; charset=utf-8", append(out, sse("", "[DONE]"))}
}

// stream implements streamer: Azure streams as OpenAI does.
func (azureDialect) stream(in Request, rep Reply, id int, u agent.Usage) streamed {
	if strings.HasSuffix(in.Path, "/responses") {
		return responsesStream(in, rep, id, u)
	}
	return chatStream(in, rep, id, u)
}

// stream implements streamer for Gemini: its OpenAI-compatible chat
// streams as Chat Completions do; streamGenerateContent sends one chunk
// per piece of the text, each with the usage so far (Google reports it
// cumulatively), the last with the finish reason — as server-sent events
// (data lines ended by CRLF CRLF, as Google sends them) with alt=sse, else
// as a JSON array.
func (geminiDialect) stream(in Request, rep Reply, id int, u agent.Usage) streamed {
	if strings.HasSuffix(in.Path, geminiChatPath) {
		return chatStream(in, rep, id, u)
	}
	texts := pieces(pick(rep.Refusal, rep.Text))
	if len(rep.ToolCalls) > 0 {
		texts = []string{""}
	}
	var chunks [][]byte
	for i, text := range texts {
		finish, so := "", u
		if i == len(texts)-1 {
			finish = geminiFinish(rep)
		}
		so.OutputTokens = u.OutputTokens * int64(i+1) / int64(len(texts))
		b, err := json.Marshal(geminiChunk(in, rep, id, text, finish, so))
		if err != nil {
			panic(err) // the fake's own maps always marshal
		}
		chunks = append(chunks, b)
	}
	var out []string
	if in.Query.Get("alt") == "sse" {
		for _, c := range chunks {
			out = append(out, "data: "+string(c)+"\r\n\r\n")
		}
		return streamed{"text/event-stream", out}
	}
	for i, c := range chunks {
		sep := ",\r\n"
		if i == 0 {
			sep = "["
		}
		out = append(out, sep+string(c))
	}
	return streamed{"application/json; charset=UTF-8", append(out, "]")}
}

// stream implements streamer: an OpenAI-compatible server streams Chat
// Completions as OpenAI does.
func (compatDialect) stream(in Request, rep Reply, id int, u agent.Usage) streamed {
	return chatStream(in, rep, id, u)
}
