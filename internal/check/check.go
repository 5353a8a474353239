package check

import (
	"context"

	"github.com/optr-dev/optr/internal/status"
)

// Checker verifies one constraint against one output. Implementations are
// safe for concurrent use: one checker judges every agent's output of a run.
type Checker interface {
	// Check judges output. A non-nil error means the check itself could not
	// run (a program that is gone, a judge that did not answer): Evaluate
	// then fails a hard constraint with the error as the reason, and leaves
	// a soft one unverified.
	Check(ctx context.Context, output string) (Outcome, error)
}

// Outcome is the verdict of one check.
type Outcome struct {
	// Pass is true when the output satisfies the constraint.
	Pass bool
	// Reason says why it failed (or, for judges, why it passed).
	Reason string
}

// Constraint is a named constraint bound to its checker.
type Constraint struct {
	// Name is the constraint's name in the config or intent.
	Name string
	// Hard constraints decide admissibility; soft ones only score.
	Hard bool
	// Checker is nil when the constraint is unverified: named by an intent,
	// not defined in the config, and no judge agent is available.
	Checker Checker
	// Description is a human sentence for prompts and tables.
	Description string
	// Undefined marks a constraint nobody defined: named by an intent, not
	// by the config, and judged by the default judge. Its verdict that
	// cannot be had leaves it unverified; a defined hard constraint's fails
	// (Evaluate).
	Undefined bool
	// Deterministic marks a check whose verdict depends on the output
	// alone — it neither asks an agent nor runs a program (contains,
	// regex, not-regex, max-length, json, json-schema): anyone holding the
	// output can judge it again and must get the same verdict (Recheck).
	Deterministic bool
	// Program marks a check that runs a program (command): its verdict
	// depends on the directory it runs in as well as the output, so only
	// a fresh tree holding the same change can judge it again (Rerun).
	Program bool
}

// Verdict is the outcome of one constraint for one result.
type Verdict struct {
	// Constraint is the constraint's name.
	Constraint string `json:"constraint"`
	// Hard is copied from the constraint.
	Hard bool `json:"hard"`
	// Status is passed, failed or unverified.
	Status status.Status `json:"status"`
	// Reason explains a failure, a judge's verdict, or why the constraint
	// could not be verified.
	Reason string `json:"reason,omitempty"`
}
