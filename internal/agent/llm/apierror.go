package llm

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/optr-dev/optr/internal/markdown"
)

// APIError is an error answer from a provider's API, reduced to what a
// maintainer needs: what the provider said and what to do about it. It never
// holds the API key, even when the provider echoes it.
type APIError struct {
	// Provider is the config's provider name (openai, anthropic, …).
	Provider string
	// Status is the HTTP status.
	Status int
	// Type and Code are the provider's error type and code, when it sends them.
	Type string
	Code string
	// Message is the provider's message, or the start of a body that was not
	// the provider's error JSON.
	Message string
	// RequestID is the provider's request id, for support tickets.
	RequestID string
	// Advice says what to do next; empty when waiting is the answer.
	Advice string
}

// Error implements error.
func (e *APIError) Error() string {
	var b strings.Builder
	b.WriteString(e.Provider + " API answered")
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	} else {
		b.WriteString(" " + http.StatusText(e.Status))
	}
	var ids []string
	if e.Type != "" {
		ids = append(ids, "type "+e.Type)
	}
	if e.Code != "" && e.Code != e.Type {
		ids = append(ids, "code "+e.Code)
	}
	if e.RequestID != "" {
		ids = append(ids, "request "+e.RequestID)
	}
	if len(ids) > 0 {
		b.WriteString(" (" + strings.Join(ids, ", ") + ")")
	}
	if e.Advice != "" {
		b.WriteString("; " + e.Advice)
	}
	return b.String()
}

// maxErrorBody bounds how much of an error body is read and kept.
const (
	maxErrorBody    = 64 << 10
	maxErrorMessage = 500
)

// newAPIError reads the error answer in res. The SDKs put the body back
// after reading it, so it can be read again here.
func newAPIError(provider string, res *http.Response) *APIError {
	e := &APIError{
		Provider:  provider,
		Status:    res.StatusCode,
		RequestID: pick(res.Header.Get("x-request-id"), res.Header.Get("request-id"), res.Header.Get("apim-request-id")),
	}
	if res.Body == nil {
		return e
	}
	body, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
	res.Body = io.NopCloser(bytes.NewReader(body))
	e.Type, e.Code, e.Message = errorFields(body)
	return e
}

// errorFields reads the error shapes the providers use:
// {"error": {"message", "type", "code"}} (OpenAI, Azure, OpenAI-compatible endpoints),
// {"type": "error", "error": {"type", "message"}} (Anthropic),
// {"error": {"code", "message", "status"}} (Google: the status is the type),
// {"error": "…"} and {"message": "…"}. Anything else is kept as text.
func errorFields(body []byte) (typ, code, msg string) {
	var env struct {
		Error   json.RawMessage `json:"error"`
		Message json.RawMessage `json:"message"`
		Code    json.RawMessage `json:"code"`
	}
	if json.Unmarshal(body, &env) != nil {
		return "", "", clip(string(body))
	}
	var inner struct {
		Message json.RawMessage `json:"message"`
		Type    json.RawMessage `json:"type"`
		Code    json.RawMessage `json:"code"`
		Status  json.RawMessage `json:"status"`
	}
	if json.Unmarshal(env.Error, &inner) == nil {
		typ, code, msg = pick(scalar(inner.Type), scalar(inner.Status)), scalar(inner.Code), clip(scalar(inner.Message))
		if typ != "" || code != "" || msg != "" {
			return typ, code, msg
		}
	}
	if s := scalar(env.Error); s != "" {
		return "", scalar(env.Code), clip(s)
	}
	if s := scalar(env.Message); s != "" {
		return "", scalar(env.Code), clip(s)
	}
	return "", "", clip(string(body))
}

// scalar returns a JSON string's value or a number's text; "" otherwise.
func scalar(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}

// clip makes s one line of at most maxErrorMessage characters.
func clip(s string) string { return markdown.OneLine(s, maxErrorMessage) }
