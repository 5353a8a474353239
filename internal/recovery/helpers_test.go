package recovery

import (
	"context"
	"fmt"
	"time"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/agent/agenttest"
	"github.com/optr-dev/optr/internal/cost"
)

// ok answers output using tokens tokens.
func ok(output string, tokens int64) agenttest.Reply {
	return func(context.Context, agent.Request) (agent.Response, error) {
		return agent.Response{Output: output, Usage: agent.Usage{InputTokens: tokens}}, nil
	}
}

// fail fails with e after using tokens tokens.
func fail(e *agent.Error, tokens int64) agenttest.Reply {
	return func(context.Context, agent.Request) (agent.Response, error) {
		return agent.Response{Output: "partial", Stderr: "boom", Usage: agent.Usage{OutputTokens: tokens}}, e
	}
}

func rateLimited(after time.Duration) *agent.Error {
	return &agent.Error{Class: agent.Transient, Reason: "rate_limited", Status: 429, RetryAfter: after, Err: errString("too many requests")}
}

func unavailable() *agent.Error {
	return &agent.Error{Class: agent.Transient, Reason: "server_error", Status: 503, Err: errString("service unavailable")}
}

func unauthorized() *agent.Error {
	return &agent.Error{Class: agent.Fatal, Reason: "unauthorized", Status: 401, Err: errString("bad credentials")}
}

// refusedByBudget is an attempt whose call the run's budget refused (the
// model gateway's), which the agent then failed on.
func refusedByBudget() *agent.Error {
	return &agent.Error{Class: agent.Systematic, Reason: "budget", Err: fmt.Errorf("exited with status 1: %w", &cost.CapError{Spent: []string{"budget.max-tokens-per-day: 95 tokens of 100 tokens spent today (UTC)"}})}
}

func unusable() *agent.Error {
	return agent.Errorf(agent.Systematic, "unparseable_output", "the model's answer is not JSON")
}

type errString string

func (e errString) Error() string { return string(e) }

// half is a Rand that always returns 0.5, so Backoff is half its ceiling.
func half() float64 { return 0.5 }
