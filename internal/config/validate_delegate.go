package config

// delegateOnly are the pipeline keys only delegate pipelines use (§4.9).
var delegateOnly = []string{"coordinator", "max-topics", "candidates", "threshold"}

// maxTopicsLimit bounds max-topics: every topic may become a job of the
// Actions matrix (at most 256 jobs, §4.11), and its report a file named
// NNN_<topic>.md.
const maxTopicsLimit = 256

// delegate checks a delegate pipeline's own keys (defaults filled in).
func (v *validator) delegate(key string, p Pipeline) {
	switch {
	case p.Coordinator != "":
		v.agentRef(key+".coordinator", p.Coordinator)
	case len(p.Agents) == 0:
		v.ps.add(key+".coordinator", "a delegate pipeline needs a coordinator: name the agent that plans the topics")
	}
	if len(p.Agents) == 0 && v.written(key+".agents") {
		v.ps.add(key+".agents", "a delegate pipeline needs at least one specialist")
	}
	if p.MaxTopics < 1 || p.MaxTopics > maxTopicsLimit {
		v.ps.add(key+".max-topics", "must be from 1 to %d (how many topics the coordinator may plan), got %d", maxTopicsLimit, p.MaxTopics)
	}
	switch {
	case p.Candidates < 1:
		v.ps.add(key+".candidates", "must be at least 1 (how many specialists write each topic's report), got %d", p.Candidates)
	case p.Candidates > len(p.Agents) && len(p.Agents) > 0:
		v.ps.add(key+".candidates", "%d candidates per topic need at least %d specialists, but agents lists %d; add specialists or lower candidates", p.Candidates, p.Candidates, len(p.Agents))
	}
	if p.Threshold <= 0 || p.Threshold > 1 {
		v.ps.add(key+".threshold", "must be above 0 and at most 1 (the share of planned reports that must succeed), got %g", p.Threshold)
	}
}
