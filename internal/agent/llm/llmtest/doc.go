// Package llmtest runs fake LLM provider servers for tests: OpenAI (the
// Responses API and Chat Completions), Azure OpenAI (Chat Completions and
// the Responses API), Anthropic (the Messages API), Gemini
// (generateContent, streamGenerateContent and its OpenAI-compatible Chat
// Completions) and an
// OpenAI-compatible server that speaks only Chat Completions
// (NewChatCompletions). Each speaks its provider's real wire format —
// the success objects the SDKs decode, the error envelopes, the auth headers
// it checks — under a non-root base path, so that a client building a wrong
// absolute URL fails the test. A request that asks for a stream gets the
// provider's stream: server-sent events with the usage where the provider
// puts it (Chat Completions' last chunk only when stream_options asks),
// Gemini's JSON array without alt=sse.
//
// A test scripts replies, which are served in order, then a default reply;
// faults are replies too: an error status with its headers (429 with
// Retry-After, 500, 529), a hang until the request's context ends, a
// truncated body, a dropped connection, a stream cut in the middle of an
// event, an answer without usage, or text that is not the JSON asked for.
// Every request is recorded for assertions, and a scripted reply that was
// never requested fails the test at cleanup. Servers are safe for
// concurrent use.
//
//	fake := llmtest.NewOpenAI(t)
//	fake.Script(llmtest.Reply{Status: 429, Headers: map[string]string{"Retry-After": "7"}})
//	a, _ := llm.New("codex", cfg, llm.Options{Getenv: fake.Getenv, HTTPClient: fake.Client()})
package llmtest
