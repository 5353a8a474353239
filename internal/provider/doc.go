// Package provider is the registry of agent providers: for each value an
// agent's provider: key may take, a [Provider] — the variables its key and
// endpoint come from, its default base URL, the wire formats its API
// speaks ([API], [Wire]), an example model, the agent keys it uses and its
// place in the embedded default config — as plain values in one table
// (providers.go; [All], [Lookup]).
//
// It is a low package, importing nothing of optr's, so that every package
// that needs a provider fact reads it here: config (validation, the
// embedded default agents, the schema's generated parts), redact (the key
// variables are secrets), sandbox (the API hosts of network: [defaults]),
// cost (the price tables, by provider), the model gateway (each
// provider's wire format and upstream), agent (the comment for a run
// where no agent is usable) and agent/llm (one constructor for every
// provider whose API speaks a wire format it knows). Providers with rules
// of their own register their constructor in agent/llm; CONTRIBUTING.md
// shows how to add a provider.
package provider
