// Package llm implements agent.Agent for the language-model providers:
// openai (the Responses API), github-models and azure-openai (Chat
// Completions, OpenAI-compatible) and anthropic (the Messages API), each
// through its official SDK.
//
// One Run is one attempt and one HTTP request: the SDKs' own retries are
// switched off (WithMaxRetries(0)) because package recovery owns retries,
// backoff and analysis. What an agent does own is the classification of a
// failed attempt (agent.Error): rate limits, server errors, timeouts and
// dropped connections are Transient, with RetryAfter read from the
// provider's headers (see RetryAfter); bad keys, unknown models and invalid
// requests are Fatal; an answer that holds no usable output is Systematic.
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
// Keys never appear in an error message.
package llm
