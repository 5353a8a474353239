package gateway

import "github.com/optr-dev/optr/internal/agent"

func usageOfNumbers(in, out, cached int64) agent.Usage {
	return agent.Usage{InputTokens: in, OutputTokens: out, CachedTokens: cached}
}
