// Package provider is the registry of agent providers: for each value an
// agent's provider: key may take, the variables its key and endpoint come
// from, an example model, the agent keys it uses and its place in the
// embedded default config, as plain values in one table (providers.go).
//
// It is a low package, importing nothing of optr's, so that every package
// that needs a provider fact reads it here: config (validation, the
// embedded default agents, the schema agreement test), redact (the key
// variables are secrets), agent (the comment for a run where no agent is
// usable) and agent/llm (the defaults of each constructor). The
// constructors themselves are registered by the package that builds the
// agents (agent/llm: each provider's file calls register); CONTRIBUTING.md
// shows how to add a provider.
package provider
