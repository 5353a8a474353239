package config

import (
	"fmt"
	"slices"
	"strings"
)

// Selected returns the names of the agents a run uses. pipeline, when not
// empty, names a configured pipeline and gives its agents in its order
// (for stages, the stage order); otherwise every agent in file order,
// except the stages of stages pipelines (see Candidates).
// agents, when not empty, is a filter (--agents a,b): only those agents run,
// in the order above. Unknown pipeline or agent names, and agents outside
// the pipeline, are errors that name them; a stages pipeline cannot be
// filtered, because no stage may be skipped.
func (c *Config) Selected(pipeline string, agents []string) ([]string, error) {
	base := c.AgentNames
	if pipeline == "" && len(agents) == 0 {
		base = c.Candidates()
	}
	if pipeline != "" {
		p, ok := c.Pipelines[pipeline]
		if !ok {
			return nil, fmt.Errorf("unknown pipeline %q; %s", pipeline, known("pipelines", sortedKeys(c.Pipelines)))
		}
		if p.Mode == ModeStages && len(agents) > 0 {
			return nil, fmt.Errorf("pipeline %q runs stages, and a stage cannot be skipped: drop the agents filter", pipeline)
		}
		base = p.Agents
	}
	if len(agents) == 0 {
		return slices.Clone(base), nil
	}
	var unknown, outside []string
	for _, a := range agents {
		_, configured := c.Agents[a]
		switch {
		case !configured:
			unknown = append(unknown, fmt.Sprintf("%q", a))
		case !slices.Contains(base, a):
			outside = append(outside, fmt.Sprintf("%q", a))
		}
	}
	if len(unknown) > 0 {
		return nil, fmt.Errorf("unknown agents %s; %s", strings.Join(unknown, ", "), known("agents", c.AgentNames))
	}
	if len(outside) > 0 {
		return nil, fmt.Errorf("agents %s are not part of pipeline %q, which runs %s", strings.Join(outside, ", "), pipeline, oneOf(base))
	}
	return slices.DeleteFunc(slices.Clone(base), func(a string) bool { return !slices.Contains(agents, a) }), nil
}
