package gateway

import (
	"net/http"
	"strings"
)

// api is a wire format's operation, as far as metering goes: where its
// usage is and what ends its stream.
type api uint8

const (
	// apiOther is any request that is no model call (a list of models,
	// counting tokens): forwarded, recorded, never charged.
	apiOther api = iota
	// apiMessages is Anthropic's Messages.
	apiMessages
	// apiChat is OpenAI's Chat Completions, and what reports usage alike
	// (the legacy Completions, Embeddings), as OpenAI, Azure and the
	// providers' OpenAI-compatible endpoints serve them.
	apiChat
	// apiResponses is OpenAI's Responses.
	apiResponses
	// apiGenerate is Gemini's generateContent and streamGenerateContent.
	apiGenerate
)

// call reports whether a successful answer of a is a model's, which
// reports its usage: one without is of unknown use.
func (a api) call() bool { return a != apiOther }

// apiOf reads which operation a request is from its method and path, and
// its name for the record: "messages", "chat-completions", "responses",
// "generate-content", … or the path of any other request. stream is true
// for Gemini's streamGenerateContent, which streams whatever the body
// says.
func apiOf(method, path string) (a api, name string, stream bool) {
	if method != http.MethodPost {
		return apiOther, method + " " + path, false
	}
	if _, op, ok := strings.Cut(lastSegment(path), ":"); ok {
		switch op {
		case "generateContent":
			return apiGenerate, "generate-content", false
		case "streamGenerateContent":
			return apiGenerate, "stream-generate-content", true
		}
		return apiOther, "POST " + path, false
	}
	switch {
	case strings.HasSuffix(path, "/messages"):
		return apiMessages, "messages", false
	case strings.HasSuffix(path, "/chat/completions"):
		return apiChat, "chat-completions", false
	case strings.HasSuffix(path, "/responses"):
		return apiResponses, "responses", false
	case strings.HasSuffix(path, "/completions"):
		return apiChat, "completions", false
	case strings.HasSuffix(path, "/embeddings"):
		return apiChat, "embeddings", false
	}
	return apiOther, "POST " + path, false
}

// lastSegment is the part of path after its last slash.
func lastSegment(path string) string {
	return path[strings.LastIndexByte(path, '/')+1:]
}

// geminiModel is the model a Gemini path names: models/<model>:<method>.
func geminiModel(path string) string {
	i := strings.LastIndex(path, "/models/")
	if i < 0 {
		return ""
	}
	m, _, _ := strings.Cut(path[i+len("/models/"):], ":")
	return m
}

// azureDeployment is the deployment an Azure path names:
// /openai/deployments/<deployment>/….
func azureDeployment(path string) string {
	_, rest, ok := strings.Cut(path, "/openai/deployments/")
	if !ok {
		return ""
	}
	d, _, _ := strings.Cut(rest, "/")
	return d
}
