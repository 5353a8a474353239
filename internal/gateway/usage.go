package gateway

import (
	"bytes"
	"strings"
	"unsafe"

	"github.com/tidwall/gjson"

	"github.com/optr-dev/optr/internal/agent"
)

// reading is what a response told of its call so far.
type reading struct {
	// model is the model that answered, as the response says.
	model string
	// usage is the use it reported; reported is false while it reported
	// none.
	usage    agent.Usage
	reported bool
	// complete is true once the answer's end was seen: the whole JSON
	// body, a stream's last event.
	complete bool
	// last is the last event that held a usage, of a stream whose every
	// event holds the use so far (Gemini's): read at its end.
	last []byte
}

// usageOf reads the usage of an answer object of a (a whole response,
// or the response a Responses stream event carries). ok is false when
// the object has none.
func usageOf(a api, obj gjson.Result) (u agent.Usage, ok bool) {
	switch a {
	case apiMessages:
		v := obj.Get("usage")
		if !v.IsObject() {
			return u, false
		}
		// input_tokens leaves out the prompt's cached part: the prompt
		// is all three.
		read := v.Get("cache_read_input_tokens").Int()
		u.InputTokens = v.Get("input_tokens").Int() + v.Get("cache_creation_input_tokens").Int() + read
		u.OutputTokens = v.Get("output_tokens").Int()
		u.CachedTokens = read
	case apiChat:
		v := obj.Get("usage")
		if !v.IsObject() {
			return u, false
		}
		u.InputTokens = v.Get("prompt_tokens").Int()
		u.OutputTokens = v.Get("completion_tokens").Int()
		u.CachedTokens = v.Get("prompt_tokens_details.cached_tokens").Int()
	case apiResponses:
		v := obj.Get("usage")
		if !v.IsObject() {
			return u, false
		}
		u.InputTokens = v.Get("input_tokens").Int()
		u.OutputTokens = v.Get("output_tokens").Int()
		u.CachedTokens = v.Get("input_tokens_details.cached_tokens").Int()
	case apiGenerate:
		v := obj.Get("usageMetadata")
		if !v.IsObject() {
			return u, false
		}
		// Thinking is billed as output, a tool's prompt as input.
		u.InputTokens = v.Get("promptTokenCount").Int() + v.Get("toolUsePromptTokenCount").Int()
		u.OutputTokens = v.Get("candidatesTokenCount").Int() + v.Get("thoughtsTokenCount").Int()
		u.CachedTokens = v.Get("cachedContentTokenCount").Int()
	default:
		return u, false
	}
	return u, true
}

// modelOf reads the model an answer object of a names.
func modelOf(a api, obj gjson.Result) string {
	if a == apiGenerate {
		return obj.Get("modelVersion").String()
	}
	return obj.Get("model").String()
}

// skip says which server-sent events of a stream of a tell nothing of its
// use or its end, by their name: the text and tool deltas that are most of
// a stream are passed over unread. A stream without names (Chat
// Completions, Gemini) has every event read.
func (a api) skip(name []byte) bool {
	switch a {
	case apiMessages:
		switch string(name) {
		case "message_start", "message_delta", "message_stop", "error":
			return false
		}
		return true
	case apiResponses:
		switch string(name) {
		case "response.created", "response.in_progress", "response.completed", "response.incomplete", "response.failed", "error":
			return false
		}
		return true
	}
	return false
}

// parse reads data as JSON in place: the Result's strings are views of
// data, valid while data is; what is kept is cloned.
func parse(data []byte) gjson.Result {
	return gjson.Parse(unsafe.String(unsafe.SliceData(data), len(data)))
}

// readBody reads a whole JSON answer of a.
func readBody(a api, body []byte) reading {
	obj := parse(body)
	if !obj.IsObject() {
		return reading{}
	}
	r := reading{model: strings.Clone(modelOf(a, obj)), complete: true}
	r.usage, r.reported = usageOf(a, obj)
	return r
}

// event reads one event of a stream of a (the data of a server-sent
// event, or an element of Gemini's JSON array) into r. Only what tells of
// the use, the model or the end is parsed: most events of a stream are
// the answer's text, passed over by a look at their bytes.
func (r *reading) event(a api, data []byte) {
	switch a {
	case apiMessages:
		r.messagesEvent(data)
	case apiChat:
		if string(data) == "[DONE]" {
			r.complete = true
			return
		}
		// Only the last chunk holds a usage object (with
		// stream_options.include_usage every other says null).
		if r.model != "" && !usageObject(data, `"usage"`) {
			return
		}
		obj := parse(data)
		if r.model == "" {
			r.model = strings.Clone(obj.Get("model").String())
		}
		if u, ok := usageOf(a, obj); ok {
			r.usage, r.reported = u, true
		}
	case apiResponses:
		obj := parse(data)
		switch obj.Get("type").String() {
		case "response.created", "response.in_progress":
			if m := obj.Get("response.model").String(); m != "" {
				r.model = strings.Clone(m)
			}
		case "response.completed", "response.incomplete", "response.failed":
			resp := obj.Get("response")
			if m := resp.Get("model").String(); m != "" {
				r.model = strings.Clone(m)
			}
			if u, ok := usageOf(a, resp); ok {
				r.usage, r.reported = u, true
			}
			r.complete = true
		case "error":
			r.complete = true
		}
	case apiGenerate:
		// Each chunk's usageMetadata counts the whole answer so far: the
		// last one that has it is kept, and read when the stream ends.
		if usageObject(data, `"usageMetadata"`) {
			r.last = append(r.last[:0], data...)
		}
		if bytes.Contains(data, []byte(`"finishReason"`)) {
			r.complete = true
		}
	}
}

// usageObject reports whether data holds key (a quoted member name)
// followed by an object: a usage that is there, not null.
func usageObject(data []byte, key string) bool {
	i := bytes.Index(data, []byte(key))
	if i < 0 {
		return false
	}
	rest := bytes.TrimLeft(data[i+len(key):], " \t\r\n")
	rest, ok := bytes.CutPrefix(rest, []byte(":"))
	return ok && len(bytes.TrimLeft(rest, " \t\r\n")) > 0 && bytes.TrimLeft(rest, " \t\r\n")[0] == '{'
}

// end reads what a stream of a left for its end: Gemini's last chunk with
// a usage.
func (r *reading) end(a api) {
	if a != apiGenerate || len(r.last) == 0 {
		return
	}
	obj := parse(r.last)
	if m := obj.Get("modelVersion").String(); m != "" {
		r.model = strings.Clone(m)
	}
	if u, ok := usageOf(a, obj); ok {
		r.usage, r.reported = u, true
	}
	r.last = nil
}

// messagesEvent reads one event of an Anthropic Messages stream:
// message_start holds the prompt's use, each message_delta the answer's
// so far, message_stop ends it.
func (r *reading) messagesEvent(data []byte) {
	obj := parse(data)
	switch obj.Get("type").String() {
	case "message_start":
		msg := obj.Get("message")
		r.model = strings.Clone(msg.Get("model").String())
		if u, ok := usageOf(apiMessages, msg); ok {
			r.usage, r.reported = u, true
		}
	case "message_delta":
		v := obj.Get("usage")
		if !v.IsObject() {
			return
		}
		// output_tokens is cumulative; the input counts come again only
		// when they changed (server tools).
		r.usage.OutputTokens = v.Get("output_tokens").Int()
		if v.Get("input_tokens").Exists() {
			u, _ := usageOf(apiMessages, obj)
			r.usage.InputTokens, r.usage.CachedTokens = u.InputTokens, u.CachedTokens
		}
		r.reported = true
	case "message_stop", "error":
		r.complete = true
	}
}
