package agent

import "time"

// Call is one model request an attempt made through optr's model gateway
// (architecture §4.18), as agent-outputs/<agent>.json records it under
// "requests".
type Call struct {
	// Attempt is the attempt that made the call (1, 2, …), set when the
	// attempt is recorded.
	Attempt int `json:"attempt,omitempty"`
	// Provider is the provider the call went to (anthropic, openai,
	// azure-openai, gemini), API the wire format's operation
	// ("messages", "chat-completions", "responses", "generate-content",
	// or the path of any other request).
	Provider string `json:"provider"`
	API      string `json:"api"`
	// Model is the model that answered, else the one asked for.
	Model string `json:"model,omitempty"`
	// Status is the HTTP status the agent got.
	Status int `json:"status"`
	// Stream is true for a streamed (server-sent events) answer.
	Stream bool `json:"stream,omitempty"`
	// Usage is what the provider reported: null when a model's answer
	// carried none.
	Usage Usage `json:"usage"`
	// CostUSD is the call's cost by the price table: null when its use or
	// its model's price is unknown.
	CostUSD *float64 `json:"cost_usd"`
	// Start is when the gateway received the request; LatencyMS is the
	// time the gateway took to hand the provider's answer to the agent
	// (its response headers), DurationMS the time to its last byte.
	Start      time.Time `json:"start"`
	LatencyMS  int64     `json:"latency_ms"`
	DurationMS int64     `json:"duration_ms"`
	// Truncated is true when the answer stopped before its end: the
	// provider's stream was cut, or the agent hung up. What it reported
	// until then is metered.
	Truncated bool `json:"truncated,omitempty"`
	// RetryAfter is the provider's Retry-After on a 429 or 503, passed on
	// to the agent.
	RetryAfter string `json:"retry_after,omitempty"`
	// Refused says why the gateway answered the request itself instead of
	// forwarding it (a budget reached, a body over its limit).
	Refused string `json:"refused,omitempty"`
	// Error says why the call failed on its way: the provider could not
	// be reached, the agent hung up before the answer came.
	Error string `json:"error,omitempty"`
}
