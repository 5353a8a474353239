package check

import (
	"fmt"

	"github.com/optr-dev/optr/internal/lazyregexp"
)

// MaxNameLen bounds a constraint name.
const MaxNameLen = 64

var nameRE = lazyregexp.New(`^[a-z0-9][a-z0-9._-]*$`)

// ValidateName reports whether name is a constraint slug: lowercase letters,
// digits, '.', '_' and '-', starting with a letter or digit, at most
// MaxNameLen characters.
func ValidateName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("constraint name is empty")
	case len(name) > MaxNameLen:
		return fmt.Errorf("constraint name %q is %d characters long; at most %d are allowed", name, len(name), MaxNameLen)
	case !nameRE.MatchString(name):
		return fmt.Errorf("constraint name %q is not a slug: use lowercase letters, digits, '.', '_' and '-', starting with a letter or digit", name)
	}
	return nil
}
