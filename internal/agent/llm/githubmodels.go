package llm

import (
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/optr-dev/optr/internal/config"
)

// DefaultGitHubModel is the model a github-models agent uses when the config
// names none.
const DefaultGitHubModel = "openai/gpt-4.1"

// gitHubAPIVersion is the REST API version GitHub Models documents.
const gitHubAPIVersion = "2022-11-28"

// newGitHubModels returns the caller for GitHub Models: OpenAI-compatible
// Chat Completions at <OPTR_GITHUB_MODELS_URL>/chat/completions with the
// workflow's GITHUB_TOKEN. The free tier is small (DESIGN §6), so answers are
// capped at 4000 tokens and prompts at about 7k tokens.
func newGitHubModels(b *base, cfg config.Agent, getenv func(string) string) (caller, error) {
	if b.model == "" {
		b.model = DefaultGitHubModel
	}
	key, keyVar, err := apiKey(b.name, cfg, getenv, "GITHUB_TOKEN")
	if err != nil {
		return nil, err
	}
	b.secret, b.keyVar = key, keyVar
	baseURL, from := cfg.BaseURL, "base-url"
	if baseURL == "" {
		baseURL, from = getenv("OPTR_GITHUB_MODELS_URL"), "OPTR_GITHUB_MODELS_URL"
	}
	if baseURL == "" {
		baseURL = DefaultGitHubModelsURL
	}
	if _, err := checkEndpoint(b.name, cfg.Provider, baseURL, from); err != nil {
		return nil, err
	}
	b.maxTokens = min(b.maxTokens, githubModelsMaxTokens)
	b.maxPromptBytes = githubModelsMaxPromptBytes
	opts := append(openAIOptions(b, baseURL), option.WithHeader("X-GitHub-Api-Version", gitHubAPIVersion))
	// GitHub Models also hosts Llama, Mistral, Phi, … which reject
	// json_schema; only OpenAI's models get the schema.
	schema := strings.HasPrefix(b.model, "openai/")
	return chatCaller(openai.NewChatCompletionService(opts...), b.model, b.maxTokens, maxTokensField, schema), nil
}
