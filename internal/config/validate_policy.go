package config

import (
	"fmt"
	"strings"

	"github.com/optr-dev/optr/internal/lazyregexp"
	"github.com/optr-dev/optr/internal/tlogwitness"
)

func (v *validator) selection() {
	s := v.c.Selection
	weights := []struct {
		key string
		w   float64
	}{
		{"invariants", s.Weights.Invariants},
		{"ttv", s.Weights.TTV},
		{"exec", s.Weights.Exec},
		{"preference", s.Weights.Preference},
	}
	sum := 0.0
	for _, w := range weights {
		if w.w < 0 {
			v.ps.add("selection.weights."+w.key, "must not be negative, got %g", w.w)
		}
		sum += max(w.w, 0)
	}
	if sum == 0 {
		v.ps.add("selection.weights", "every weight is zero; at least one must be positive so that results can be ranked")
	}
	v.names("selection.preference", s.Preference, func(k, n string) { v.agentRef(k, n) })
	v.enum("selection.on-no-admissible", "on-no-admissible policy", s.OnNoAdmissible, noAdmissibles)
	if s.Prefer != "" { // unwritten: faster
		v.enum("selection.prefer", "tie-break", s.Prefer, Prefers)
	}
}

func (v *validator) checkpoints() {
	for _, trigger := range sortedKeys(v.c.Checkpoints.Recommend) {
		k, option := "checkpoints.recommend."+trigger, v.c.Checkpoints.Recommend[trigger]
		if !v.enum(k, "checkpoint trigger", trigger, triggers) {
			continue
		}
		v.atLeast(k, int64(option), 1)
		if trigger == TriggerNoAdmissible && option > noAdmissibleOptions {
			v.ps.add(k, "a NO_ADMISSIBLE checkpoint has %d options (1 proceed, 2 skip, 3 abort), got %d", noAdmissibleOptions, option)
		}
	}
}

// mentionRE matches @user and @org/team.
var mentionRE = lazyregexp.New(`^@[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:/[A-Za-z0-9][A-Za-z0-9_.-]*)?$`)

func (v *validator) escalation() {
	for i, m := range v.c.Escalation.Mention {
		if !mentionRE.MatchString(m) {
			v.ps.add(fmt.Sprintf("escalation.mention[%d]", i), "%q is not a GitHub handle: write @user or @org/team", m)
		}
	}
}

func (v *validator) recovery() {
	r := v.c.Recovery
	v.atLeast("recovery.attempts", int64(r.Attempts), 1)
	v.atLeast("recovery.max-alternatives", int64(r.MaxAlternatives), 0)
	if r.Analyzer != "" {
		v.llmRef("recovery.analyzer", r.Analyzer, "the analyzer")
	}
	if r.BaseDelay > r.MaxDelay {
		v.ps.add("recovery.base-delay", "%s is longer than max-delay (%s); the first wait cannot exceed the longest", r.BaseDelay, r.MaxDelay)
	}
}

func (v *validator) ledger() {
	if b := v.c.Ledger.Branch; v.written("ledger.branch") && !validBranch(b) {
		v.ps.add("ledger.branch", "%q is not a valid branch name", b)
	}
	seen := map[string]int{}
	for i, w := range v.c.Ledger.Witnesses {
		k := fmt.Sprintf("ledger.witnesses[%d]", i)
		if w.URL == "" {
			v.ps.add(k+".url", "the witness's URL is required (its submission prefix, e.g. https://witness.example/)")
		} else if err := tlogwitness.CheckURL(w.URL); err != nil {
			v.ps.add(k+".url", "%v", err)
		}
		if w.Key == "" {
			v.ps.add(k+".key", "the witness's key is required (its note verifier key, name+hash+base64, as its operator publishes it)")
			continue
		}
		wv, err := tlogwitness.Verifier(w.Key)
		if err != nil {
			v.ps.add(k+".key", "%v", err)
			continue
		}
		if j, dup := seen[wv.Name()]; dup {
			v.ps.add(k+".key", "witness %s is already ledger.witnesses[%d]", wv.Name(), j)
		}
		seen[wv.Name()] = i
	}
}

// validBranch applies git check-ref-format's rules to a branch name.
func validBranch(b string) bool {
	if b == "" || b == "@" || strings.HasPrefix(b, "-") || strings.HasPrefix(b, "/") ||
		strings.HasSuffix(b, "/") || strings.HasSuffix(b, ".") || strings.HasSuffix(b, ".lock") ||
		strings.Contains(b, "..") || strings.Contains(b, "//") || strings.Contains(b, "@{") || strings.Contains(b, "/.") ||
		strings.HasPrefix(b, ".") {
		return false
	}
	for _, r := range b {
		if r < 0x20 || r == 0x7f || strings.ContainsRune(" ~^:?*[\\", r) {
			return false
		}
	}
	return true
}

func (v *validator) watcher() {
	v.atLeast("watcher.max-failures", int64(v.c.Watcher.MaxFailures), 1)
	v.atLeast("watcher.max-restarts", int64(v.c.Watcher.MaxRestarts), 0)
	v.watcherRoles()
}

func (v *validator) budget() {
	b := v.c.Budget
	v.atLeast("budget.max-tokens", b.MaxTokens, 0)
	v.atLeast("budget.max-tokens-per-day", b.MaxTokensPerDay, 0)
	v.atLeast("budget.max-tokens-per-month", b.MaxTokensPerMonth, 0)
	for _, c := range []struct {
		key string
		usd float64
	}{{"budget.max-usd-per-run", b.MaxUSDPerRun}, {"budget.max-usd-per-day", b.MaxUSDPerDay}, {"budget.max-usd-per-month", b.MaxUSDPerMonth}} {
		if c.usd < 0 {
			v.ps.add(c.key, "must not be negative, got %g (0 is no limit)", c.usd)
		}
	}
	v.atLeast("budget.max-intent-constraints", int64(v.c.Budget.MaxIntentConstraints), 1)
}

func (v *validator) prices() {
	for _, model := range sortedKeys(v.c.Prices) {
		k, p := "prices."+model, v.c.Prices[model]
		if strings.TrimSpace(model) == "" {
			v.ps.add(k, "the model id is empty")
		}
		if p.Input < 0 {
			v.ps.add(k+".input", "must not be negative, got %g", p.Input)
		}
		if p.Output < 0 {
			v.ps.add(k+".output", "must not be negative, got %g", p.Output)
		}
		if p.Request < 0 {
			v.ps.add(k+".request", "must not be negative, got %g", p.Request)
		}
	}
}

func (v *validator) executor() {
	v.atLeast("executor.max-parallel", int64(v.c.Executor.MaxParallel), 0)
	v.atLeast("executor.max-output", int64(v.c.Executor.MaxOutput), 1)
}
