package checkpoint

import (
	"fmt"
)

// Where a decision was made.
const (
	SourceTerminal = "terminal" // the blocking prompt of optr run
	SourceCLI      = "cli"      // optr resume --checkpoint ID --choose N
	SourceComment  = "comment"  // /optr choose N or /optr abort on the issue
)

// Decision is a human's answer to a checkpoint.
type Decision struct {
	// Option is the number of the chosen option.
	Option int `json:"option"`
	// Action is the chosen option's action.
	Action Action `json:"action"`
	// By is who decided: a GitHub login, or the local user.
	By string `json:"by"`
	// Note is the human's optional note, untrusted text.
	Note string `json:"note"`
	// Source is where it was decided: SourceTerminal, SourceCLI or
	// SourceComment.
	Source string `json:"source"`
}

// ParseChoice returns the option numbered n of cp, or an error that names
// the options there are.
func ParseChoice(n int, cp Checkpoint) (Option, error) {
	o, ok := cp.Option(n)
	if !ok {
		return Option{}, fmt.Errorf("checkpoint %s has options %s; got %d", cp.ID, numbers(cp.Options), n)
	}
	return o, nil
}

// Decide turns an answer — option n, by whom, a note, and where — into a
// Decision, refusing an option cp does not have.
func Decide(cp Checkpoint, n int, by, note, source string) (Decision, error) {
	o, err := ParseChoice(n, cp)
	if err != nil {
		return Decision{}, err
	}
	return Decision{Option: o.N, Action: o.Action, By: by, Note: note, Source: source}, nil
}

// AbortDecision turns /optr abort into a Decision: cp's abort option.
func AbortDecision(cp Checkpoint, by, note, source string) (Decision, error) {
	o, ok := cp.OptionFor(ActionAbort)
	if !ok {
		return Decision{}, fmt.Errorf("checkpoint %s has no abort option; answer it with one of options %s", cp.ID, numbers(cp.Options))
	}
	return Decision{Option: o.N, Action: o.Action, By: by, Note: note, Source: source}, nil
}
