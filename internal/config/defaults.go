package config

import (
	"slices"
	"time"

	"github.com/optr-dev/optr/internal/preset"
	"github.com/optr-dev/optr/internal/provider"
)

// The defaults. architecture §2 and §4.8 fix the weights, the no-admissible
// policy, the recovery bounds and the delegate threshold.
const (
	defaultAgentTimeout    = 5 * time.Minute
	defaultMaxTokens       = 4096
	defaultCheckTimeout    = time.Minute
	defaultOnNoAdmissible  = NoAdmissibleCheckpoint
	defaultAttempts        = 3
	defaultMaxAlternatives = 2
	defaultBaseDelay       = time.Second
	defaultMaxDelay        = 30 * time.Second
	defaultMaxTotal        = 10 * time.Minute
	defaultStuckAfter      = 5 * time.Minute
	defaultMaxFailures     = 3
	defaultMaxRestarts     = 1
	// defaultMaxParallel 0 means every agent at once: K agents take the
	// slowest agent's time, not K/8 waves of it. LLM rate limits are met
	// by Retry-After in recovery, not by a small default.
	defaultMaxParallel = 0
	// defaultMaxOutput bounds one agent's output in bytes (64 MiB).
	defaultMaxOutput = 64 << 20
	// defaultMaxIntentConstraints bounds the constraints an intent adds:
	// each may become a judge call per agent.
	defaultMaxIntentConstraints = 8
	defaultThreshold            = 0.5
	defaultMaxTopics            = 4
	defaultCandidates           = 1
	// defaultLedgerBranch is a branch of its own, created as an orphan
	// holding only the datalake, so optr never writes to a protected
	// default branch (architecture §4.2).
	defaultLedgerBranch = "optr-ledger"
)

// defaultWeights are the score weights when the file does not set them.
var defaultWeights = Weights{Invariants: 40, TTV: 30, Exec: 20, Preference: 10}

// applyDefaults fills every key the file did not write; it is the one place
// defaults are set. written reports whether a dotted key appears in the
// file, so that a written zero or false (hard: false, max-alternatives: 0)
// is kept. Keys that only some kinds use (max-tokens for LLM agents,
// timeout and criterion for the check kinds that use them, the delegate
// keys for delegate pipelines) get their defaults only there and stay zero
// elsewhere, so that a resolved config written back out parses again.
func applyDefaults(c *Config, written func(key string) bool) {
	unset := func(key string) bool { return !written(key) }

	for _, name := range c.AgentNames {
		a, k := c.Agents[name], "agents."+name
		pr, isPreset := preset.Lookup(a.Preset)
		if a.Preset != "" && unset(k+".provider") {
			a.Provider = ProviderCommand
		}
		switch {
		case !unset(k + ".timeout"):
		case isPreset && a.Provider == ProviderCommand:
			a.Timeout = Duration(pr.Timeout)
		default:
			a.Timeout = Duration(defaultAgentTimeout)
		}
		if unset(k + ".attempt-timeout") {
			a.AttemptTimeout = a.Timeout
		}
		if isPreset && a.Provider == ProviderCommand && unset(k+".gateway") {
			// The providers the CLI calls, through the model gateway
			// (architecture §4.18); gateway: [] runs it without.
			a.Gateway = slices.Clone(pr.Gateway)
		}
		if provider.IsLLM(a.Provider) && unset(k+".max-tokens") {
			a.MaxTokens = defaultMaxTokens
		}
		c.Agents[name] = a
	}

	for _, name := range c.ConstraintNames {
		cs, k := c.Constraints[name], "constraints."+name
		if unset(k + ".hard") {
			cs.Hard = true
		}
		if CheckUses(cs.Check, "timeout") && unset(k+".timeout") {
			cs.Timeout = Duration(defaultCheckTimeout)
		}
		if CheckUses(cs.Check, "criterion") && unset(k+".criterion") {
			cs.Criterion = name
		}
		c.Constraints[name] = cs
	}

	for name, p := range c.Pipelines {
		k := "pipelines." + name
		if unset(k + ".mode") {
			p.Mode = ModeSelect
		}
		if unset(k+".agents") && p.Mode != ModeStages {
			p.Agents = append([]string(nil), c.AgentNames...)
		}
		if p.Mode == ModeStages {
			stagesDefaults(&p, k, unset)
		}
		if p.Mode == ModeDelegate {
			if unset(k+".coordinator") && len(p.Agents) > 0 {
				p.Coordinator = p.Agents[0]
			}
			if unset(k + ".threshold") {
				p.Threshold = defaultThreshold
			}
			setInt(&p.MaxTopics, defaultMaxTopics, unset(k+".max-topics"))
			setInt(&p.Candidates, defaultCandidates, unset(k+".candidates"))
		}
		c.Pipelines[name] = p
	}

	w := &c.Selection.Weights
	setFloat(&w.Invariants, defaultWeights.Invariants, unset("selection.weights.invariants"))
	setFloat(&w.TTV, defaultWeights.TTV, unset("selection.weights.ttv"))
	setFloat(&w.Exec, defaultWeights.Exec, unset("selection.weights.exec"))
	setFloat(&w.Preference, defaultWeights.Preference, unset("selection.weights.preference"))
	if unset("selection.on-no-admissible") {
		c.Selection.OnNoAdmissible = defaultOnNoAdmissible
	}

	r := &c.Recovery
	setInt(&r.Attempts, defaultAttempts, unset("recovery.attempts"))
	setInt(&r.MaxAlternatives, defaultMaxAlternatives, unset("recovery.max-alternatives"))
	setDuration(&r.BaseDelay, defaultBaseDelay, unset("recovery.base-delay"))
	setDuration(&r.MaxDelay, defaultMaxDelay, unset("recovery.max-delay"))
	setDuration(&r.MaxTotal, defaultMaxTotal, unset("recovery.max-total"))

	wa := &c.Watcher
	setDuration(&wa.StuckAfter, defaultStuckAfter, unset("watcher.stuck-after"))
	setInt(&wa.MaxFailures, defaultMaxFailures, unset("watcher.max-failures"))
	setInt(&wa.MaxRestarts, defaultMaxRestarts, unset("watcher.max-restarts"))

	setInt(&c.Executor.MaxParallel, defaultMaxParallel, unset("executor.max-parallel"))
	setInt(&c.Executor.MaxOutput, defaultMaxOutput, unset("executor.max-output"))
	setInt(&c.Budget.MaxIntentConstraints, defaultMaxIntentConstraints, unset("budget.max-intent-constraints"))
	changesDefaults(&c.Changes, unset)
	detectionDefaults(&c.Detection, unset)
	sandboxDefaults(&c.Sandbox, unset)

	if unset("ledger.branch") {
		c.Ledger.Branch = defaultLedgerBranch
	}
}

func setInt(dst *int, v int, unset bool) {
	if unset {
		*dst = v
	}
}

func setFloat(dst *float64, v float64, unset bool) {
	if unset {
		*dst = v
	}
}

func setDuration(dst *Duration, v time.Duration, unset bool) {
	if unset {
		*dst = Duration(v)
	}
}
