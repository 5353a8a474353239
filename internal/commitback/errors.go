package commitback

import (
	"fmt"

	"github.com/optr-dev/optr/internal/ledger"
)

// ProtectedBranchError is a ref update the store refused because a branch
// protection rule or a ruleset forbids it. It is not a race: retrying
// cannot help, so the commit-back fails at once.
type ProtectedBranchError struct {
	// Branch is the branch that refused the update.
	Branch string
	// Rule is GitHub's message naming the rule that refused it.
	Rule string
}

func (e *ProtectedBranchError) Error() string {
	return fmt.Sprintf("commit to %s: GitHub refused the update because of a branch protection rule or ruleset: %s; set the `ledger-branch` input to a branch of its own that no rule protects (default optr-ledger), or allow the workflow's token to push to %s",
		e.Branch, e.Rule, e.Branch)
}

// RewrittenLedgerError means the ledger on the branch does not extend the
// head this repository last published (its latest Optr-Ledger trailers, or
// Request.Published): someone rewrote or truncated it since. The Action
// stops with an escalation instead of chaining onto it.
type RewrittenLedgerError struct {
	// Branch is the ledger branch.
	Branch string
	// Commit is where the published head was read (a commit sha), or
	// "the request" for Request.Published.
	Commit string
	// Published is the head that was published.
	Published ledger.Head
	// Found says what the branch's ledger holds instead.
	Found string
}

func (e *RewrittenLedgerError) Error() string {
	return fmt.Sprintf("commit to %s: the ledger on the branch does not extend the head published in %s (entry %d, hash %s): %s; nothing was committed — run `optr ledger verify --witness` on a clone of %s to find the rewrite",
		e.Branch, e.Commit, e.Published.Seq, e.Published.Hash, e.Found, e.Branch)
}
