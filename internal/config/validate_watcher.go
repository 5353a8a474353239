package config

import "fmt"

// watcherRoles checks watcher.spares and watcher.synthesizer: each names a
// configured agent, and none is an agent that already has another role (the
// recovery analyzer, a judge), which the watcher must never recruit as a
// worker.
func (v *validator) watcherRoles() {
	w := v.c.Watcher
	v.names("watcher.spares", w.Spares, v.recruitable)
	if w.Synthesizer != "" {
		v.recruitable("watcher.synthesizer", w.Synthesizer)
	} else if v.written("watcher.synthesizer") {
		v.ps.add("watcher.synthesizer", "the synthesizer is empty; name a configured agent or remove the key")
	}
}

// recruitable checks that name, written at key, is a configured agent the
// watcher may give work to.
func (v *validator) recruitable(key, name string) {
	if _, ok := v.agentRef(key, name); !ok {
		return
	}
	if role := v.otherRole(name); role != "" {
		v.ps.add(key, "agent %q is %s; the watcher only recruits agents without another role, so name a different agent", name, role)
	}
}

// otherRole says what name already does besides running intents, or "".
func (v *validator) otherRole(name string) string {
	if v.c.Recovery.Analyzer == name {
		return "the recovery analyzer (recovery.analyzer)"
	}
	for _, c := range v.c.ConstraintNames {
		if k := v.c.Constraints[c]; k.Check == CheckJudge && k.Agent == name {
			return fmt.Sprintf("the judge of constraint %q (constraints.%s.agent)", c, c)
		}
	}
	return ""
}
