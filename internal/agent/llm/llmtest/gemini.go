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
// fake serves generateContent at
// /v1beta/models/<model>:generateContent (the key in x-goog-api-key)
// and Gemini's OpenAI-compatible Chat Completions at
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
	model, ok2 := strings.CutSuffix(rest, ":generateContent")
	return model, ok && ok2 && model != "" && !strings.Contains(model, "/")
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
	finish, parts := "STOP", []any{map[string]any{"text": rep.Text}}
	switch {
	case rep.Refusal != "":
		finish, parts = "SAFETY", []any{}
	case rep.Cut:
		finish = "MAX_TOKENS"
	}
	return map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"parts": parts, "role": "model"},
			"finishReason": finish,
			"index":        0,
		}},
		"usageMetadata": map[string]any{
			"promptTokenCount":     u.InputTokens,
			"candidatesTokenCount": u.OutputTokens,
			"totalTokenCount":      u.Total(),
			"promptTokensDetails":  []any{map[string]any{"modality": "TEXT", "tokenCount": u.InputTokens}},
		},
		"modelVersion": pick(rep.Model, in.Deployment, in.Model),
		"responseId":   fmt.Sprintf("resp-%06d", id),
	}
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
