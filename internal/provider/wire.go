package provider

import (
	"net/url"
	"strings"
)

// Wire is a wire format: the shape of an API's requests and answers,
// which several providers may speak (OpenAI-compatible servers speak Chat
// Completions). Its name is what an agent's api: key says.
type Wire string

// The wire formats optr knows.
const (
	// ChatCompletions is OpenAI's Chat Completions: POST <base>/chat/completions,
	// the base URL ending in the API's version (https://api.openai.com/v1).
	// Most OpenAI-compatible servers speak it.
	ChatCompletions Wire = "chat-completions"
	// Responses is OpenAI's Responses API: POST <base>/responses, the base
	// URL as for ChatCompletions.
	Responses Wire = "responses"
	// Messages is Anthropic's Messages API: POST <base>/v1/messages, the
	// base URL without a version (https://api.anthropic.com).
	Messages Wire = "messages"
	// GenerateContent is the Gemini API's generateContent: POST
	// <base>/v1beta/models/<model>:generateContent (and
	// :streamGenerateContent), the base URL without a version
	// (https://generativelanguage.googleapis.com).
	GenerateContent Wire = "gemini"
)

// Wires lists the wire formats, in the order messages name them.
func Wires() []Wire { return []Wire{ChatCompletions, Responses, Messages, GenerateContent} }

// Path is the path a client of w appends to its base URL for a call to
// model (the first of w's paths when it has several).
func (w Wire) Path(model string) string {
	switch w {
	case ChatCompletions:
		return "chat/completions"
	case Responses:
		return "responses"
	case Messages:
		return "v1/messages"
	case GenerateContent:
		return "v1beta/models/" + model + ":generateContent"
	}
	return ""
}

// API is one wire format a provider's API speaks, and where.
type API struct {
	// Wire is the format.
	Wire Wire
	// Path is where, below the provider's base URL, this format's own base
	// URL is ("v1beta/openai/" for Gemini's Chat Completions); "" when it
	// is the base URL itself. A client of Wire appends Wire.Path to it.
	Path string
	// Strict is true when the provider's own server (at DefaultURL)
	// holds an answer to a JSON schema in this format and takes its
	// newest parameters (Chat Completions' strict json_schema response
	// format and max_completion_tokens, as OpenAI's does). Another server
	// speaking the format is asked only what every server takes.
	Strict bool
}

// BaseURL returns the base URL a client of a's wire format uses when the
// provider's base URL is base.
func (a API) BaseURL(base string) string {
	if a.Path == "" {
		return base
	}
	return strings.TrimSuffix(base, "/") + "/" + a.Path
}

// Doubled reports whether base, as the provider's base URL, already ends
// in the start of a path a client appends to it — https://proxy.example/v1
// for Anthropic, whose client appends v1/messages, or a URL that names the
// call itself (…/v1/chat/completions) — and returns base without that
// part: the base URL to write instead.
func (p Provider) Doubled(base string) (fixed string, doubled bool) {
	u, err := url.Parse(base)
	if err != nil {
		return "", false
	}
	path := strings.TrimSuffix(u.Path, "/")
	for _, a := range p.APIs {
		appended := strings.Split(strings.Trim(a.Path, "/"), "/")
		if a.Path == "" {
			appended = nil
		}
		appended = append(appended, strings.Split(a.Wire.Path(modelSegment), "/")...)
		for n := len(appended); n > 0; n-- {
			tail := "/" + strings.Join(appended[:n], "/")
			cut, ok := strings.CutSuffix(path, tail)
			if !ok && strings.Contains(tail, modelSegment) {
				// Any model: the last segment names one.
				prefix, _, _ := strings.Cut(tail, modelSegment)
				if i := strings.LastIndex(path, "/"); i >= 0 && strings.Contains(path[i:], ":") {
					cut, ok = strings.CutSuffix(path[:i+1], prefix)
				}
			}
			if ok {
				u.Path = cut
				return u.String(), true
			}
		}
	}
	return "", false
}

// modelSegment stands for the model in a wire format's path, for Doubled.
const modelSegment = "{model}"
