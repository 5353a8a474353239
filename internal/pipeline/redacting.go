package pipeline

import (
	"context"
	"errors"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/redact"
)

// redacting wraps an agent so that no secret value it prints (a command
// agent inherits the environment) reaches anything optr keeps or shows:
// output, raw text, stderr, signals and the error message are redacted
// before recovery, checks, the watcher or the datalake see them.
type redacting struct {
	agent.Agent
	r *redact.Redactor
}

// Preflight implements agent.Preflighter for the wrapped agent, redacted.
func (a redacting) Preflight() error {
	err := agent.Preflight(a.Agent)
	if err == nil {
		return nil
	}
	if msg := err.Error(); a.r.String(msg) != msg {
		return &agent.Error{Class: agent.ClassOf(err), Reason: agent.ReasonUnusable, Err: errors.New(a.r.String(agent.Problem(msg)))}
	}
	return err
}

// Run runs the wrapped agent and redacts what it returns.
func (a redacting) Run(ctx context.Context, req agent.Request) (agent.Response, error) {
	resp, err := a.Agent.Run(ctx, req)
	resp.Output = a.r.String(resp.Output)
	resp.Raw = a.r.String(resp.Raw)
	resp.Stderr = a.r.String(resp.Stderr)
	for i := range resp.Signals {
		resp.Signals[i].Payload = a.r.String(resp.Signals[i].Payload)
	}
	if err == nil {
		return resp, nil
	}
	msg := err.Error()
	if clean := a.r.String(msg); clean != msg {
		// Keep the classification; drop the cause that held the secret.
		e := &agent.Error{Class: agent.ClassOf(err), Err: errors.New(clean)}
		var ae *agent.Error
		if errors.As(err, &ae) {
			e.Reason, e.Status, e.RetryAfter = ae.Reason, ae.Status, ae.RetryAfter
		}
		return resp, e
	}
	return resp, err
}
