package gitdata

import (
	"errors"
	"fmt"
)

var (
	// ErrEmptyRepository is a repository without commits: the Git Data
	// API refuses it until CreateFile gives it a first commit.
	ErrEmptyRepository = errors.New("the repository is empty")
	// ErrNoBranch is a branch that does not exist.
	ErrNoBranch = errors.New("no such branch")
	// ErrMoved is a compare-and-swap lost to another writer: the branch is
	// not where the caller read it (GitHub's 422 "Update is not a fast
	// forward"), or was created or deleted meanwhile. It is the one race a
	// writer retries, after reading the branch again.
	ErrMoved = errors.New("the branch moved")
)

// RuleError is a ref update refused by a branch protection rule or a
// ruleset. It is not a race: trying again cannot help.
type RuleError struct {
	// Rule is the store's message naming the rule, on one line.
	Rule string
}

func (e *RuleError) Error() string { return fmt.Sprintf("refused by a rule: %s", e.Rule) }
