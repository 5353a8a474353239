// Package agenttest is an agent for tests: an agent.Agent whose every
// attempt the test decides with a Reply, and which records the attempts it
// was asked for. Tests that need a real process use a command agent
// (internal/agent/command) on a script instead; tests of the providers
// use their fakes (internal/agent/llm/llmtest).
package agenttest
