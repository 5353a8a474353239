package config

// keepDefaultAgents gives a config file that does not write agents the
// embedded default's agents (architecture §4.8), so that a file may hold only
// constraints or selection settings. A file that writes agents, even as an
// empty mapping, gets exactly the agents it writes. getenv decides which
// default agents there are, as for Default; nil means an empty environment.
func keepDefaultAgents(c *Config, written func(string) bool, getenv func(string) string) {
	if written("agents") {
		return
	}
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	d := Default(getenv)
	c.Agents, c.AgentNames = d.Agents, d.AgentNames
}
