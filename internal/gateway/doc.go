// Package gateway is optr's model gateway (architecture §4.18): it serves
// each provider's API to command agents as plain HTTP, holds the real
// keys, and meters every call.
//
// An agent opted in (gateway: [anthropic|openai|gemini|azure], or a
// preset) gets, per provider, the provider's base-URL variable pointing
// at the gateway and, in its key variable, a placeholder key unique to the
// agent and the run (Badge). The gateway accepts a request only with a
// placeholder it gave (another agent's or another run's is refused), puts
// the real key in its place and forwards the request to the configured
// upstream: the provider's own host over TLS, a *_BASE_URL override, an
// agent's base-url, an Azure endpoint. The real key never enters the
// agent's environment, arguments or files, and optr is not dumpable, so
// not its memory either.
//
// Every answer, streamed (server-sent events) or not, is metered from the
// usage fields of its wire format — Anthropic Messages, OpenAI Chat
// Completions and Responses (OpenAI's, Azure OpenAI's), Gemini
// generateContent and streamGenerateContent: the model, input, output and
// cached tokens, the cost by the run's prices (package cost), the latency.
// A model's answer without usage is unknown, never 0; a stream cut short
// is metered as far as it went and recorded as truncated. Each call is
// charged to the run's meter as it ends, so the run's, day's and month's
// budgets hold mid-run: a request that would pass one is answered in the
// provider's own error shape, with the figures, and recorded (Tab).
//
// Where agents reach it: with the sandbox on, an agent's only way out is
// its own egress-proxy session (package sandbox/proxy), and the gateway is
// served on that same address — a request for the session's own address,
// in origin form, absolute form or through CONNECT, is handed to the
// attempt's Tab in process. So the gateway knows which agent sent a
// request by the connection it came on as well as by its key, no NO_PROXY
// setting can hide it, and no address is opened to agents that the
// sandbox does not already give them. With the sandbox off, agents reach
// the gateway's own loopback listener (Gateway.Listen) and are known by
// their key alone.
//
// Why it is written here: net/http/httputil's ReverseProxy forwards and
// streams; what is left is the keys, the metering of four wire formats
// and the budget — the parts no proxy library knows.
package gateway
