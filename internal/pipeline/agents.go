package pipeline

import (
	"fmt"
	"log/slog"
	"strings"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/agent/command"
	"github.com/optr-dev/optr/internal/agent/llm"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/cost"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/redact"
	"github.com/optr-dev/optr/internal/sandbox"
)

// newAgent builds the configured agent name.
func newAgent(cfg *config.Config, name string, deps Deps, secret *redact.Redactor, sbx *sandbox.Run, gw *runGateway) (agent.Agent, error) {
	ac, ok := cfg.Agents[name]
	if !ok {
		return nil, fmt.Errorf("agent %q is not configured", name)
	}
	if ac.Provider == config.ProviderCommand {
		badge, err := gw.badge(name)
		if err != nil {
			return nil, err
		}
		return command.New(name, ac, command.Options{Environ: deps.Environ, Sandbox: sbx, Logger: logger(deps, name), Redactor: secret, MaxOutput: cfg.Executor.MaxOutput, Gateway: badge})
	}
	return llm.New(name, ac, llm.Options{Getenv: deps.Getenv, HTTPClient: deps.HTTPClient, Logger: logger(deps, name), Sandbox: sbx})
}

// agentSet builds every agent a run uses (its tasks) plus those it refers to
// (judges, the analyzer), each once, each metered: every call any of them
// makes is priced and counted in meter.
type agentSet struct {
	cfg    *config.Config
	deps   Deps
	secret *redact.Redactor
	meter  *cost.Meter
	sbx    *sandbox.Run
	gw     *runGateway
	agents map[string]agent.Agent
}

func (s *agentSet) get(name string) (agent.Agent, error) {
	if a, ok := s.agents[name]; ok {
		return a, nil
	}
	a, err := newAgent(s.cfg, name, s.deps, s.secret, s.sbx, s.gw)
	if err != nil {
		return nil, err
	}
	if s.secret.Active() {
		a = redacting{Agent: a, r: s.secret}
	}
	a = cost.Metered(a, s.meter, cost.RateOf(s.cfg.Agents[name]))
	if s.agents == nil {
		s.agents = map[string]agent.Agent{}
	}
	s.agents[name] = a
	return a, nil
}

func (s *agentSet) tasks(names []string) ([]executor.Task, error) {
	var tasks []executor.Task
	for _, n := range names {
		a, err := s.get(n)
		if err != nil {
			return nil, err
		}
		ac := s.cfg.Agents[n]
		tasks = append(tasks, executor.Task{
			Agent:          a,
			Provider:       ac.Provider,
			Model:          ac.Model,
			Timeout:        ac.Timeout.D(),
			AttemptTimeout: ac.AttemptTimeout.D(),
		})
	}
	return tasks, nil
}

// firstLLM is the first configured LLM agent among names, the default
// judge for constraints an intent names but the config does not define.
func firstLLM(cfg *config.Config) string {
	for _, n := range cfg.AgentNames {
		if cfg.Agents[n].Provider != config.ProviderCommand {
			return n
		}
	}
	return ""
}

// logger routes an agent's diagnostics (malformed frames, …) to deps.Logf.
func logger(deps Deps, name string) *slog.Logger {
	w := logWriter(func(s string) { deps.logf("%s: %s", name, strings.TrimSpace(s)) })
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	}))
}

type logWriter func(string)

func (w logWriter) Write(p []byte) (int, error) { w(string(p)); return len(p), nil }

// secrets is the redactor of a run: every value the run hands an agent
// or a check (redact.ForConfig), as the run's environment holds them.
func secrets(cfg *config.Config, getenv func(string) string) *redact.Redactor {
	if getenv == nil {
		return nil
	}
	return redact.ForConfig(cfg, getenv)
}
