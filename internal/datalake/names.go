package datalake

import (
	"fmt"

	"github.com/optr-dev/optr/internal/lazyregexp"
)

// MaxNameLen bounds workflow, agent and run names: they become path segments.
const MaxNameLen = 64

var slugRE = lazyregexp.New(`^[a-z0-9][a-z0-9._-]*$`)

// ValidateWorkflow reports whether name is a workflow slug: [a-z0-9._-], at
// most 64 characters, no leading dot, and nothing that could leave the
// datalake ("..", "/", an absolute path).
func ValidateWorkflow(name string) error {
	return validateSegment("workflow", name, slugRE)
}

var runIDRE = lazyregexp.New(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// ValidateRunID reports whether id can name a run directory.
func ValidateRunID(id string) error {
	return validateSegment("run id", id, runIDRE)
}

// ValidateAgent reports whether name can name an agent output file.
func ValidateAgent(name string) error {
	return validateSegment("agent name", name, slugRE)
}

func validateSegment(what, name string, re *lazyregexp.Regexp) error {
	switch {
	case name == "":
		return fmt.Errorf("%s is empty", what)
	case len(name) > MaxNameLen:
		return fmt.Errorf("%s %q is %d characters long; at most %d are allowed", what, name, len(name), MaxNameLen)
	case name == "." || name == "..":
		return fmt.Errorf("%s %q would leave the datalake", what, name)
	case !re.MatchString(name):
		return fmt.Errorf("%s %q is not allowed: use lowercase letters, digits, '.', '_' and '-', not starting with '.', '-' or '_'", what, name)
	}
	return nil
}
