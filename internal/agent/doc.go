// Package agent defines what optr asks of an AI agent: the Agent interface,
// the Request it receives and the Response it returns, and the failure classes
// (transient, systematic, fatal) that decide whether a failed attempt is retried,
// analysed or escalated.
//
// Providers live in sub-packages: command (any executable) and llm (OpenAI,
// Anthropic, Azure OpenAI, GitHub Copilot through the official SDKs).
package agent
