package recovery

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/clock"
	"github.com/optr-dev/optr/internal/config"
)

// Defaults FromConfig uses for settings left at zero (architecture §4.8).
const (
	DefaultAttempts        = 3
	DefaultMaxAlternatives = 2
	DefaultBaseDelay       = time.Second
	DefaultMaxDelay        = 30 * time.Second
	DefaultMaxTotal        = 10 * time.Minute
)

// Policy says how one agent's failures are handled. The zero value makes a
// single attempt and never waits; FromConfig builds the configured one.
// A Policy may be used by many goroutines at once when its Analyzer, Clock
// and Rand are safe for concurrent use (the defaults are).
type Policy struct {
	// Attempts bounds the attempts that may fail transiently, the first
	// included (less than 1 means 1).
	Attempts int
	// MaxAlternatives bounds the retries with an analyzer's hint (0: none).
	MaxAlternatives int
	// BaseDelay and MaxDelay shape the exponential backoff (see Backoff).
	BaseDelay, MaxDelay time.Duration
	// MaxTotal bounds the time from the start of Run to the start of the
	// last retry (0: no bound). An attempt already running is not cut short:
	// the agent's own timeout, carried by the context, does that.
	MaxTotal time.Duration
	// AttemptTimeout bounds each attempt and each analysis (0: no bound
	// beyond the context's).
	AttemptTimeout time.Duration
	// Analyzer answers Level-2 analyses; nil makes every systematic failure
	// escalate at once with ReasonNoAnalyzer.
	Analyzer agent.Agent
	// Budget is the run's shared budget; nil is unlimited.
	Budget Budget
	// Clock tells the time and waits; nil is the real clock.
	Clock Clock
	// Rand returns jitter in [0, 1); nil is math/rand/v2.Float64.
	Rand func() float64
	// OnAttempt, when set, hears each attempt once its outcome is known
	// (a retry before its wait), for live progress displays.
	OnAttempt func(Attempt)
}

// Clock is the time source of a Policy, replaceable in tests.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// Sleep waits for d or until ctx is done, whichever comes first, and
	// returns ctx's error in the second case.
	Sleep(ctx context.Context, d time.Duration) error
}

// FromConfig returns the Policy configured by c (the recovery: section),
// with the given analyzer (nil when recovery.analyzer is unset) and the
// run's budget. Zero Attempts, BaseDelay, MaxDelay and MaxTotal take the
// documented defaults; MaxAlternatives is taken as given, since 0 is a
// meaningful setting (the config loader fills in its default of 2).
// AttemptTimeout is per agent (agents.<name>.attempt-timeout): set it on the
// returned Policy.
func FromConfig(c config.Recovery, analyzer agent.Agent, budget Budget) Policy {
	p := Policy{
		Attempts:        c.Attempts,
		MaxAlternatives: max(c.MaxAlternatives, 0),
		BaseDelay:       c.BaseDelay.D(),
		MaxDelay:        c.MaxDelay.D(),
		MaxTotal:        c.MaxTotal.D(),
		Analyzer:        analyzer,
		Budget:          budget,
	}
	if p.Attempts <= 0 {
		p.Attempts = DefaultAttempts
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = DefaultBaseDelay
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = DefaultMaxDelay
	}
	if p.MaxTotal <= 0 {
		p.MaxTotal = DefaultMaxTotal
	}
	return p
}

// withDefaults fills in the nil and out-of-range fields Run relies on.
func (p Policy) withDefaults() Policy {
	p.Attempts = max(p.Attempts, 1)
	p.MaxAlternatives = max(p.MaxAlternatives, 0)
	if p.Clock == nil {
		p.Clock = realClock{}
	}
	if p.Rand == nil {
		p.Rand = rand.Float64
	}
	return p
}

// realClock is the wall clock.
type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) Sleep(ctx context.Context, d time.Duration) error { return clock.Sleep(ctx, d) }
