package check

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/config"
)

// Resolve returns the constraints of a run: every constraint cfg defines, in
// file order (they are the repository's policy and apply to every run),
// then each name in extra (from the intent or the pipeline) that cfg does
// not define, once, in the order given. Names in extra are trimmed; empty
// ones are skipped.
//
// A name cfg does not define is judged by opts.DefaultJudge, with the name as
// the criterion, when the caller has a judge (opts.Judge and
// opts.DefaultJudge set); otherwise its Checker is nil and it is reported as
// unverified. Such constraints are hard: the intent asked for them.
//
// At most cfg.Budget.MaxIntentConstraints (DefaultMaxIntentConstraints
// when unset) names from extra are added: each may cost a judge call per
// agent, and an issue must not multiply a run's model calls. CapIntent says
// which were dropped, for the run to report.
//
// Every problem is reported at once, joined, each naming its constraint: an
// invalid name, a check that does not build, a judge agent that is missing,
// a check that cannot run (its kind's preflight: a program that does not
// resolve, a schema that does not compile), that one a *config.Error with
// the constraint's file, line and key.
func Resolve(cfg *config.Config, extra []string, opts Options) ([]Constraint, error) {
	if opts.Cache == nil {
		opts.Cache = NewVerdicts()
	}
	opts.Judge = memoJudge(opts.Judge)

	var (
		out  []Constraint
		errs []error
		seen = map[string]bool{}
	)
	for _, name := range configNames(cfg) {
		seen[name] = true
		c := cfg.Constraints[name]
		ch, err := New(name, c, opts)
		if err == nil {
			err = preflight(cfg, name, c, opts)
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		k, _ := kindOf(c) // New built it: the kind is known
		out = append(out, Constraint{Name: name, Hard: c.Hard, Checker: ch, Description: describe(name, c),
			Deterministic: !k.judged && !k.program, Program: k.program})
	}
	kept, _ := CapIntent(cfg, extra)
	for _, name := range kept {
		if seen[name] {
			continue
		}
		seen[name] = true
		if err := ValidateName(name); err != nil {
			errs = append(errs, fmt.Errorf("constraint named by the intent: %w", err))
			continue
		}
		c, err := undefined(name, opts)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, c)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// undefined binds a constraint the config does not define: to the default
// judge when there is one, else to nothing (unverified).
func undefined(name string, opts Options) (Constraint, error) {
	if opts.DefaultJudge == "" || opts.Judge == nil {
		return Constraint{Name: name, Hard: true, Description: name, Undefined: true}, nil
	}
	a, err := judgeAgent(opts, opts.DefaultJudge)
	if err != nil {
		return Constraint{}, fmt.Errorf("constraint %q (not defined in the config, judged by the default judge): %w", name, err)
	}
	return Constraint{
		Name:        name,
		Hard:        true,
		Checker:     redacted(newJudge(name, name, a, 0, opts), opts),
		Description: name,
		Undefined:   true,
	}, nil
}

// preflight runs the preflight of c's kind (kind.preflight): a check that
// cannot run is a *config.Error naming the constraint's key, file and line.
func preflight(cfg *config.Config, name string, c config.Constraint, opts Options) error {
	k, err := kindOf(c)
	if err != nil || k.preflight == nil {
		return nil
	}
	key, err := k.preflight(c, opts)
	if err == nil {
		return nil
	}
	at := "constraints." + name
	if key != "" {
		at += "." + key
	}
	return cfg.ErrorAt(at, "%v", err)
}

// configNames returns cfg's constraint names in file order; names missing
// from ConstraintNames (a Config built in code) follow, sorted.
func configNames(cfg *config.Config) []string {
	if cfg == nil {
		return nil
	}
	names := make([]string, 0, len(cfg.Constraints))
	listed := map[string]bool{}
	for _, n := range cfg.ConstraintNames {
		if _, ok := cfg.Constraints[n]; ok && !listed[n] {
			listed[n] = true
			names = append(names, n)
		}
	}
	for _, n := range slices.Sorted(maps.Keys(cfg.Constraints)) {
		if !listed[n] {
			names = append(names, n)
		}
	}
	return names
}

// memoJudge makes judge return one agent per name, however many constraints
// share it.
func memoJudge(judge func(string) (agent.Agent, error)) func(string) (agent.Agent, error) {
	if judge == nil {
		return nil
	}
	made := map[string]agent.Agent{}
	return func(name string) (agent.Agent, error) {
		if a, ok := made[name]; ok {
			return a, nil
		}
		a, err := judge(name)
		if err == nil && a != nil {
			made[name] = a
		}
		return a, err
	}
}

// Names returns the constraints' names, in order, for agent.Request.Constraints.
func Names(cs []Constraint) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Name
	}
	return out
}

// Descriptions returns the constraints' descriptions, in order, for
// agent.Request.ConstraintText.
func Descriptions(cs []Constraint) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Description
	}
	return out
}

// DefaultMaxIntentConstraints caps the constraints an intent adds when the
// config sets no budget.max-intent-constraints.
const DefaultMaxIntentConstraints = 8

// CapIntent splits the names in extra that cfg does not define (trimmed,
// empty ones and repeats skipped, in the order given) into those Resolve
// adds and those it drops past cfg.Budget.MaxIntentConstraints. The driver
// reports dropped, e.g. "dropped 492 constraints past
// budget.max-intent-constraints (8): a, b, …".
func CapIntent(cfg *config.Config, extra []string) (kept, dropped []string) {
	limit := DefaultMaxIntentConstraints
	if cfg != nil && cfg.Budget.MaxIntentConstraints > 0 {
		limit = cfg.Budget.MaxIntentConstraints
	}
	seen := map[string]bool{}
	for _, name := range extra {
		name = strings.TrimSpace(name)
		if name == "" || seen[name] {
			continue
		}
		seen[name] = true
		if cfg != nil {
			if _, defined := cfg.Constraints[name]; defined {
				continue
			}
		}
		if len(kept) < limit {
			kept = append(kept, name)
		} else {
			dropped = append(dropped, name)
		}
	}
	return kept, dropped
}
