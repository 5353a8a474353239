// Package llm implements agent.Agent for the language-model providers of
// the registry (package provider). A provider is built from its registry
// entry (standard.go): the wire format its agents speak — the Responses
// API or Chat Completions through OpenAI's official SDK, the Messages API
// through Anthropic's — its key and its endpoint; any server that speaks
// one of them (an OpenAI-compatible one, Gemini's Chat Completions) needs
// nothing more. Two providers have constructors of their own:
// azure-openai (deployments, api-version and the api-key header, through
// the OpenAI SDK's own options) and copilot, GitHub Copilot through the Copilot CLI,
// which the official Go SDK (github.com/github/copilot-sdk/go) starts and
// drives over JSON-RPC, on Copilot's own models with a GitHub token or on
// a BYOK endpoint (openai, azure, anthropic) with its key. A key goes only
// to its endpoint's origin: a redirect elsewhere is refused (keepOrigin).
//
// One Run is one attempt and one HTTP request: the SDKs' own retries are
// switched off (WithMaxRetries(0)), and the Copilot CLI's model requests
// pass through optr's HTTP client, where the first failed one ends the
// attempt and later ones are refused, because package recovery owns
// retries, backoff and analysis. What an agent does own is the classification of a
// failed attempt (agent.Error): rate limits, server errors, timeouts and
// dropped connections are Transient, with RetryAfter read from the
// provider's headers (see RetryAfter); bad keys, unknown models, invalid
// requests and retired endpoints (410) are Fatal; an answer that holds no
// usable output is Systematic. A copilot agent that cannot work here (no
// CLI, no token, Copilot refusing the token with 401 or 403) fails Fatal
// with agent.ReasonUnusable, saying what to add; without CLI or token its
// Preflight says so before any run.
//
// Every agent speaks the same prompt protocol: the role, the constraints and
// any recovery hint go into the system prompt; the intent goes into the user
// message between random delimiters, as untrusted data; the model is asked
// for {"output": …, "ttv_estimate_ms": …}, as a JSON schema where the
// provider supports one, and the answer is read tolerantly with
// internal/extract.
//
// Keys and base URLs come only from Options.Getenv and the agent's config,
// never from the process environment the SDKs would otherwise read, so a
// stray OPENAI_API_KEY or OPENAI_BASE_URL cannot redirect a configured agent.
// Keys never appear in an error message. Which variables a provider's key
// and endpoint come from by default, and the wire formats its API speaks,
// are the registry's (package provider). A 404 says whether the model is
// missing or nothing is served at the path (notfound.go).
package llm
