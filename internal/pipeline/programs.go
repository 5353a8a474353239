package pipeline

import (
	"errors"

	"github.com/optr-dev/optr/internal/agent/command"
	"github.com/optr-dev/optr/internal/config"
)

// programsRun checks, once the sandbox knows what it enforces and before
// any agent starts, that every command agent of the run can start its
// program as it will run (architecture §4.14): found on its PATH,
// executable, readable under the sandbox and by the user it runs as. One
// that cannot is a configuration error naming the agent and the fix,
// never an attempt that fails and asks a human whether to go on.
func (p *Prepared) programsRun() error {
	cfg := p.Spec.Config
	var errs []error
	for _, name := range p.AgentNames {
		ac, ok := cfg.Agents[name]
		if !ok || ac.Provider != config.ProviderCommand {
			continue
		}
		if err := command.CanRun(name, ac, p.Spec.Dir, p.sandbox, p.deps.Environ); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
