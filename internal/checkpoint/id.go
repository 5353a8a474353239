package checkpoint

import (
	"fmt"
	"strconv"

	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/lazyregexp"
)

// idPrefix starts every checkpoint id optr makes.
const idPrefix = "cp-"

// MaxIDLen bounds a checkpoint id: "cp-", a run id of at most
// datalake.MaxNameLen characters, "-" and the checkpoint's number.
const MaxIDLen = len(idPrefix) + datalake.MaxNameLen + 1 + 9

// idRE is what a checkpoint id may look like: a file name that cannot leave
// its directory or hide (no leading dot, no slash) and that the comment
// marker accepts ([A-Za-z0-9._-]).
var idRE = lazyregexp.New(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// NewID returns the id of a run's checkpoint number seq:
// cp-<run-id>-<seq>, e.g. cp-9876543210-1-1 for the first checkpoint of
// run 9876543210-1.
func NewID(run string, seq int) (string, error) {
	if err := datalake.ValidateRunID(run); err != nil {
		return "", fmt.Errorf("checkpoint id: %w", err)
	}
	if seq < 1 || seq > 999_999_999 {
		return "", fmt.Errorf("checkpoint id: number %d of run %s is out of range: checkpoints are numbered from 1", seq, run)
	}
	return idPrefix + run + "-" + strconv.Itoa(seq), nil
}

// ValidateID reports whether id can name a checkpoint: at most MaxIDLen
// characters of [A-Za-z0-9._-], starting with a letter or digit.
func ValidateID(id string) error {
	switch {
	case id == "":
		return fmt.Errorf("checkpoint id is empty")
	case len(id) > MaxIDLen:
		return fmt.Errorf("checkpoint id %q is %d characters long; at most %d are allowed", id, len(id), MaxIDLen)
	case !idRE.MatchString(id):
		return fmt.Errorf("checkpoint id %q is not allowed: use letters, digits, '.', '_' and '-', starting with a letter or digit", id)
	}
	return nil
}
