package check

import (
	"time"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/redact"
	"github.com/optr-dev/optr/internal/sandbox"
)

// DefaultTimeout bounds a command or judge check whose constraint sets no
// timeout.
const DefaultTimeout = time.Minute

// DefaultJudgeMaxChars is how many characters of an output a judge sees when
// Options.JudgeMaxChars is zero. It keeps a judging prompt near 3k tokens
// of output to judge, small enough for any model's input limit and cheap.
const DefaultJudgeMaxChars = 12000

// Options carries what checkers need from the run.
type Options struct {
	// Dir is the workspace: the working directory of command checks and the
	// base that json-schema paths are relative to.
	Dir string
	// Env is the base environment of command checks (typically the process
	// environment without secrets). OPTR_CONSTRAINT=<name> is added to it.
	// A nil Env gives command checks only OPTR_CONSTRAINT.
	Env []string
	// Sandbox, when set, starts every command check (architecture §4.14): the
	// base environment built for it plus OPTR_CONSTRAINT (Env is not
	// used), confined; it may write its HOME and TMPDIR, and the agent's
	// own directory when WithDir gave one other than Dir.
	Sandbox *sandbox.Run
	// Judge returns the agent called agentName, for judge checks. Nil means
	// no judge is available: a judge constraint is then a configuration error
	// and an undefined constraint stays unverified.
	Judge func(agentName string) (agent.Agent, error)
	// DefaultJudge names the agent that judges a judge constraint without an
	// agent, and every constraint an intent names that the config does not
	// define. The caller picks it (e.g. the first LLM agent); empty means none.
	DefaultJudge string
	// Cache shares judge verdicts across a run. When it is nil, Resolve
	// makes one for all the constraints it resolves, and New gives each
	// judge a cache of its own.
	Cache *Verdicts
	// JudgeMaxChars caps how many characters of an output a judge sees
	// (default DefaultJudgeMaxChars). Longer outputs are shortened, so length
	// can never earn a judge's favour.
	JudgeMaxChars int
	// Workflow and RunID are passed on in the requests judges receive.
	Workflow string
	RunID    string
	// Redactor removes secrets from every Reason (a command check's output,
	// a judge's answer) before it is cut and kept; nil redacts nothing.
	Redactor *redact.Redactor
	// Budget is the run's budget: once it is spent no judge is asked (the
	// constraint stays unverified, saying so). Judge calls count against
	// it where they are made (the run meters its judge agents). Nil is
	// unlimited.
	Budget Budget
}

// Budget is what judges need of the run's budget; a *cost.Meter is one.
type Budget interface {
	// Exhausted reports whether no new call may start.
	Exhausted() bool
	// Spent says how the budget stands.
	Spent() string
}

func timeoutOr(d time.Duration) time.Duration {
	if d <= 0 {
		return DefaultTimeout
	}
	return d
}
