package llmtest

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/agent"
)

// NewGemini starts a fake Gemini API. URL (ending in /gemini) is a base
// URL as GOOGLE_GEMINI_BASE_URL holds it, without a version; below it the
// fake serves generateContent and streamGenerateContent at
// /v1beta/models/<model>:<method> (the key in x-goog-api-key; streamed as
// server-sent events with alt=sse and as a JSON array without, as Google
// does) and Gemini's OpenAI-compatible Chat Completions at
// /v1beta/openai/chat/completions (the key as a Bearer token). Errors are
// Google's envelope {"error": {"code", "message", "status"}}.
func NewGemini(t testing.TB) *Server {
	t.Helper()
	return newServer(t, geminiDialect{}, false)
}

type geminiDialect struct{}

// geminiChatPath is where Gemini serves Chat Completions, below the base
// URL.
const geminiChatPath = "/v1beta/openai/chat/completions"

func (geminiDialect) name() string            { return "gemini" }
func (geminiDialect) basePath() string        { return "/gemini" }
func (geminiDialect) env() (string, string)   { return "GEMINI_API_KEY", "GOOGLE_GEMINI_BASE_URL" }
func (geminiDialect) requestIDHeader() string { return "x-request-id" }

func (geminiDialect) prompt(b map[string]any) (string, string) {
	if _, chat := b["messages"]; chat {
		return messages(b["messages"])
	}
	sys, _ := b["systemInstruction"].(map[string]any)
	system := contentText(sys["parts"])
	var user string
	contents, _ := b["contents"].([]any)
	for _, c := range contents {
		m, _ := c.(map[string]any)
		if r := str(m, "role"); r == "" || r == "user" {
			user += contentText(m["parts"])
		}
	}
	return system, user
}

// route serves the two paths; the model of a generateContent call is in
// its path, and is reported as the request's Deployment.
func (geminiDialect) route(r *http.Request, path string) (string, bool) {
	if r.Method != http.MethodPost {
		return "", false
	}
	if path == geminiChatPath {
		return "", true
	}
	rest, ok := strings.CutPrefix(path, "/v1beta/models/")
	model, method, ok2 := strings.Cut(rest, ":")
	return model, ok && ok2 && model != "" && !strings.Contains(model, "/") &&
		(method == "generateContent" || method == "streamGenerateContent")
}

func (geminiDialect) admit(h http.Header, key string) (int, string) {
	if h.Get("x-goog-api-key") != key && !bearer(h, key) {
		return http.StatusBadRequest, "API key not valid. Please pass a valid API key."
	}
	return 0, ""
}

func (geminiDialect) success(in Request, rep Reply, id int, u agent.Usage) any {
	if strings.HasSuffix(in.Path, geminiChatPath) {
		return chatCompletion(in, rep, id, u, nil, nil)
	}
	return geminiChunk(in, rep, id, rep.Text, geminiFinish(rep), u)
}

// geminiFinish is the finish reason of rep's answer.
func geminiFinish(rep Reply) string {
	switch {
	case rep.Refusal != "":
		return "SAFETY"
	case rep.Cut:
		return "MAX_TOKENS"
	}
	return "STOP"
}

// geminiChunk is a GenerateContentResponse: the whole answer, or one chunk
// of a stream (text, the finish reason on the last, the usage so far). A
// reply with ToolCalls asks for them as functionCall parts, as Gemini does
// when it drives a coding agent.
func geminiChunk(in Request, rep Reply, id int, text, finish string, u agent.Usage) map[string]any {
	parts := []any{map[string]any{"text": text}}
	switch {
	case len(rep.ToolCalls) > 0:
		parts = parts[:0]
		for _, c := range rep.ToolCalls {
			parts = append(parts, map[string]any{"functionCall": map[string]any{"name": c.Name, "args": c.Args}})
		}
	case rep.Refusal != "":
		parts = []any{}
	}
	cand := map[string]any{"content": map[string]any{"parts": parts, "role": "model"}, "index": 0}
	if finish != "" {
		cand["finishReason"] = finish
	}
	c := map[string]any{
		"candidates":   []any{cand},
		"modelVersion": pick(rep.Model, in.Deployment, in.Model),
		"responseId":   fmt.Sprintf("resp-%06d", id),
	}
	if !rep.NoUsage {
		c["usageMetadata"] = map[string]any{
			"promptTokenCount":     u.InputTokens,
			"candidatesTokenCount": u.OutputTokens,
			"totalTokenCount":      u.Total(),
			"promptTokensDetails":  []any{map[string]any{"modality": "TEXT", "tokenCount": u.InputTokens}},
		}
	}
	return c
}

// failure is Google's error envelope; code is the status name
// (RESOURCE_EXHAUSTED, NOT_FOUND, …) when given.
func (geminiDialect) failure(in Request, status int, code, msg string) any {
	name, defMsg := "INVALID_ARGUMENT", http.StatusText(status)
	switch {
	case status == http.StatusUnauthorized:
		name = "UNAUTHENTICATED"
	case status == http.StatusForbidden:
		name = "PERMISSION_DENIED"
	case status == http.StatusNotFound:
		name, defMsg = "NOT_FOUND", fmt.Sprintf("models/%s is not found for API version v1beta, or is not supported for generateContent.", pick(in.Deployment, in.Model))
	case status == http.StatusTooManyRequests:
		name, defMsg = "RESOURCE_EXHAUSTED", "You exceeded your current quota, please check your plan and billing details."
	case status >= 500:
		name, defMsg = "INTERNAL", "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting"
	}
	return map[string]any{"error": map[string]any{"code": status, "message": pick(msg, defMsg), "status": pick(code, name)}}
}
