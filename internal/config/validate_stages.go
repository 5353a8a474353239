package config

import (
	"encoding/json"
	"slices"
	"time"
)

// The stages settings (architecture §4.10).
const (
	// defaultRestarts is pipelines.<name>.restarts when it is not written.
	defaultRestarts = 3
	// maxRestarts bounds restarts: with the backoff capped at
	// MaxRestartBackoff, more would keep a run waiting for hours.
	maxRestarts = 100
	// defaultRestartBackoff is pipelines.<name>.restart-backoff when it is
	// not written.
	defaultRestartBackoff = time.Second
	// minStages is the fewest stages a stages pipeline lists: one stage
	// hands off to nobody, which is a select run of one agent.
	minStages = 2
)

// MaxRestartBackoff caps the wait before restarting a crashed stage: the
// restart-backoff is doubled after every crash up to this.
const MaxRestartBackoff = 30 * time.Second

// stagesOnly are the pipeline keys only stages pipelines use.
var stagesOnly = []string{"restarts", "restart-backoff", "feedback"}

// stages checks a stages pipeline written at key: at least minStages
// stages (a stage named twice is reported by names), restarts within
// bounds, and a restart-backoff no longer than the cap it is doubled to.
func (v *validator) stages(key string, p Pipeline) {
	switch {
	case len(p.Agents) == 0:
		v.ps.add(key+".agents", "a stages pipeline needs agents: the stages in the order they run, at least %d", minStages)
	case len(p.Agents) < minStages:
		v.ps.add(key+".agents", "a stages pipeline needs at least %d stages, got %d: each stage hands its work to the next (use a select pipeline for one agent)", minStages, len(p.Agents))
	}
	if p.Restarts < 0 || p.Restarts > maxRestarts {
		v.ps.add(key+".restarts", "must be from 0 to %d (restarts of a crashed stage before the run escalates), got %d", maxRestarts, p.Restarts)
	}
	if p.RestartBackoff.D() > MaxRestartBackoff {
		v.ps.add(key+".restart-backoff", "must be at most %s (the wait is doubled after every crash and capped there), got %s", MaxRestartBackoff, p.RestartBackoff)
	}
}

// stagesDefaults fills the stages keys of p, written under key, that the
// file leaves out.
func stagesDefaults(p *Pipeline, key string, unset func(string) bool) {
	setInt(&p.Restarts, defaultRestarts, unset(key+".restarts"))
	setDuration(&p.RestartBackoff, defaultRestartBackoff, unset(key+".restart-backoff"))
}

// Candidates are the agents a run uses when neither a pipeline nor an
// agents filter says otherwise: every agent in file order except those
// that are stages of a stages pipeline and of no other pipeline. A stage
// is written for its place in a chain (it reads the previous stage's
// output, it hands off to the next), so it is no candidate for the default
// select run, nor a spare to take over a failed agent's task; name it with
// --agents or in a pipeline to run it alone.
func (c *Config) Candidates() []string {
	stage, other := map[string]bool{}, map[string]bool{}
	for _, p := range c.Pipelines {
		for _, a := range p.Agents {
			if p.Mode == ModeStages {
				stage[a] = true
			} else {
				other[a] = true
			}
		}
	}
	return slices.DeleteFunc(slices.Clone(c.AgentNames), func(a string) bool { return stage[a] && !other[a] })
}

// MarshalJSON writes a stages pipeline's restarts even when it is 0, so
// that a resolved config read back keeps "escalate at the first crash"
// rather than the default of 3; other pipelines leave it out.
func (p Pipeline) MarshalJSON() ([]byte, error) {
	type plain Pipeline
	if p.Mode != ModeStages {
		return json.Marshal(plain(p))
	}
	return json.Marshal(struct {
		plain
		Restarts int `json:"restarts"`
	}{plain(p), p.Restarts})
}
