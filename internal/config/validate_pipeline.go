package config

func (v *validator) pipelines() {
	for _, name := range sortedKeys(v.c.Pipelines) {
		v.pipeline("pipelines."+name, name, v.c.Pipelines[name])
	}
}

func (v *validator) pipeline(key, name string, p Pipeline) {
	v.name(key, "pipeline", name)
	v.names(key+".agents", p.Agents, func(k, n string) { v.agentRef(k, n) })
	v.names(key+".constraints", p.Constraints, v.constraintRef)
	if !v.enum(key+".mode", "mode", p.Mode, modes) {
		return
	}
	if p.Mode == ModeStages {
		v.stages(key, p)
	} else {
		v.notUsed(key, p.Mode+" pipelines (only stages)", stagesOnly...)
	}
	if p.Mode != ModeDelegate {
		v.notUsed(key, p.Mode+" pipelines (only delegate)", delegateOnly...)
		return
	}
	v.delegate(key, p)
}
