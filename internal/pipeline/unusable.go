package pipeline

import (
	"strings"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/executor"
)

// NothingUsableError is a run none of whose agents can work here: no
// Copilot CLI or token, Copilot refusing the token, no provider key. It is
// not an *InputError (the config is fine; the environment lacks something),
// but returned by Prepare it is a refusal (Refused): the CLI and the Action
// exit 2 and say, once, what to add (Comment).
// Prepare returns it, before any agent starts, when every agent's Preflight
// fails; Outcome.NothingUsable returns it after a run whose every agent
// failed unusable (Copilot refused the token on its first request).
type NothingUsableError struct {
	// RunID is the run's id.
	RunID string
	// Failures are the agents and why each cannot work.
	Failures []agent.Failure
}

// Error implements error: each agent's problem on one line.
func (e *NothingUsableError) Error() string {
	var b strings.Builder
	b.WriteString("no agent can run here:")
	for _, f := range e.Failures {
		b.WriteString(" " + agent.Problem(f.Message) + ";")
	}
	b.WriteString(" make one of them usable (each problem says what is missing)")
	return b.String()
}

// Comment is the one issue comment that says what to add
// (agent.UnusableComment).
func (e *NothingUsableError) Comment() string {
	body, _ := agent.UnusableComment(e.RunID, e.Failures)
	return body
}

// checkUsable returns a *NothingUsableError when every task's agent reports,
// before running, that it cannot work here; nil when any may work.
func checkUsable(runID string, tasks []executor.Task) error {
	failures := unusable(tasks)
	if len(failures) == 0 || len(failures) < len(tasks) {
		return nil
	}
	return &NothingUsableError{RunID: runID, Failures: failures}
}

// unusable lists the tasks whose agent reports, before running, that it
// cannot work here, and why.
func unusable(tasks []executor.Task) []agent.Failure {
	var failures []agent.Failure
	for _, t := range tasks {
		if err := agent.Preflight(t.Agent); err != nil && agent.IsUnusable(err) {
			failures = append(failures, agent.Failure{Agent: t.Agent.Name(), Provider: t.Provider, Reason: agent.ReasonUnusable, Message: err.Error()})
		}
	}
	return failures
}

// Unusable lists the run's agents that report, before running, that they
// cannot work here (no key, no program), and why; the run goes on with the
// others when any is usable. `optr config check` shows them.
func (p *Prepared) Unusable() []agent.Failure { return unusable(p.tasks) }

// NothingUsable returns the *NothingUsableError of a run whose every agent
// failed because it cannot work here, nil when any agent got further.
func (o *Outcome) NothingUsable() *NothingUsableError {
	failures := make([]agent.Failure, 0, len(o.Results))
	for _, res := range o.Results {
		failures = append(failures, agent.Failure{Agent: res.Agent, Provider: res.Provider, Reason: res.Reason, Message: res.Error})
	}
	if _, ok := agent.UnusableComment(o.Spec.RunID, failures); !ok {
		return nil
	}
	return &NothingUsableError{RunID: o.Spec.RunID, Failures: failures}
}
