package checkpoint

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/lazyregexp"
	"github.com/optr-dev/optr/internal/markdown"
)

// MaxOptions bounds the options of a checkpoint: a person reads them all.
const MaxOptions = 9

// maxLabelLen bounds an option's label and maxDescriptionLen its
// description, in characters.
const (
	maxLabelLen       = 40
	maxDescriptionLen = 200
)

var triggerRE = lazyregexp.New(`^[A-Z][A-Z0-9_]{0,39}$`)

// ValidTrigger reports whether t can name a trigger: an upper-case word of
// letters, digits and '_' (at most 40 characters), such as NO_ADMISSIBLE.
func ValidTrigger(t Trigger) bool { return triggerRE.MatchString(string(t)) }

// Valid reports whether a is one of the four actions.
func (a Action) Valid() bool {
	switch a {
	case ActionProceed, ActionSkip, ActionPause, ActionAbort:
		return true
	}
	return false
}

// Validate reports the first thing wrong with cp: a bad id, trigger, run
// id or workflow name, no creation time, options that are not numbered 1,
// 2, 3, … with a one-line label and a known action, a recommended option
// that does not exist, or a State that is not JSON.
func (cp Checkpoint) Validate() error {
	if err := ValidateID(cp.ID); err != nil {
		return err
	}
	if !ValidTrigger(cp.Trigger) {
		return fmt.Errorf("checkpoint %s: trigger %q is not an upper-case word such as %s", cp.ID, markdown.Shorten(string(cp.Trigger), 40), TriggerNoAdmissible)
	}
	if err := datalake.ValidateRunID(cp.Run); err != nil {
		return fmt.Errorf("checkpoint %s: %w", cp.ID, err)
	}
	if err := datalake.ValidateWorkflow(cp.Workflow); err != nil {
		return fmt.Errorf("checkpoint %s: %w", cp.ID, err)
	}
	if cp.Created.IsZero() {
		return fmt.Errorf("checkpoint %s: creation time is not set", cp.ID)
	}
	if !utf8.ValidString(cp.Context) {
		return fmt.Errorf("checkpoint %s: context is not valid UTF-8", cp.ID)
	}
	if err := validateOptions(cp.Options); err != nil {
		return fmt.Errorf("checkpoint %s: %w", cp.ID, err)
	}
	if _, ok := cp.Option(cp.Recommended); !ok {
		return fmt.Errorf("checkpoint %s: recommended option %d does not exist; it has options %s", cp.ID, cp.Recommended, numbers(cp.Options))
	}
	if !oneLine(cp.Recommendation, maxDescriptionLen) {
		return fmt.Errorf("checkpoint %s: recommendation %q must be one line of at most %d characters", cp.ID, markdown.Shorten(cp.Recommendation, 40), maxDescriptionLen)
	}
	if len(cp.State) > 0 && !json.Valid(cp.State) {
		return fmt.Errorf("checkpoint %s: state is not valid JSON", cp.ID)
	}
	return nil
}

func validateOptions(opts []Option) error {
	if len(opts) == 0 {
		return fmt.Errorf("it has no options")
	}
	if len(opts) > MaxOptions {
		return fmt.Errorf("it has %d options; at most %d are allowed", len(opts), MaxOptions)
	}
	for i, o := range opts {
		switch {
		case o.N != i+1:
			return fmt.Errorf("option %d is numbered %d; options are numbered 1, 2, 3, … in order", i+1, o.N)
		case strings.TrimSpace(o.Label) == "" || !oneLine(o.Label, maxLabelLen):
			return fmt.Errorf("option %d: label %q must be one line of 1 to %d characters", o.N, markdown.Shorten(o.Label, 40), maxLabelLen)
		case !oneLine(o.Description, maxDescriptionLen):
			return fmt.Errorf("option %d: description %q must be one line of at most %d characters", o.N, markdown.Shorten(o.Description, 40), maxDescriptionLen)
		case !o.Action.Valid():
			return fmt.Errorf("option %d: action %q is not one of proceed, skip, pause, abort", o.N, markdown.Shorten(string(o.Action), 20))
		}
	}
	return nil
}

// oneLine reports whether s is valid UTF-8 of at most n characters
// without control characters.
func oneLine(s string, n int) bool {
	return utf8.ValidString(s) && utf8.RuneCountInString(s) <= n &&
		strings.IndexFunc(s, unicode.IsControl) < 0
}

// numbers renders the range of option numbers: "1–4".
func numbers(opts []Option) string {
	switch len(opts) {
	case 0:
		return "none"
	case 1:
		return "1"
	}
	return fmt.Sprintf("1–%d", len(opts))
}
