package outcome

import (
	"fmt"
	"strings"

	"github.com/optr-dev/optr/internal/changes"
	"github.com/optr-dev/optr/internal/github"
)

// Closing is a closed pull request as GitHub reports it, and who closed
// it when it was not merged (github.Client.ClosedBy).
type Closing struct {
	Pull github.PullRequestInfo
	// ClosedBy and ClosedByType are who closed it unmerged, when known.
	ClosedBy, ClosedByType string
}

// Of returns the outcome of the pull request c, learned from source, or
// why there is none to record: it is open, it is not one optr opened (not
// from a branch optr/<workflow>/<run-id> of repository, or no run of the
// ledger in h opened it), or its outcome is recorded already (a merge
// also stands for a close). Only what GitHub reports is used, never an
// event's word alone.
func Of(h *History, repository string, c Closing, source string) (Outcome, string) {
	pr := c.Pull
	if pr.State != "closed" {
		return Outcome{}, fmt.Sprintf("#%d is %s: it was reopened since", pr.Number, pr.State)
	}
	workflow, run, ok := changes.ParseBranch(pr.HeadRef)
	if !ok || !strings.EqualFold(pr.HeadRepo, repository) {
		return Outcome{}, fmt.Sprintf("#%d is not a pull request optr opened: it comes from %s:%s, not from a branch optr/<workflow>/<run-id> of %s", pr.Number, pr.HeadRepo, pr.HeadRef, repository)
	}
	p := h.Pulls[pr.Number]
	if p == nil || p.Run != run || p.Workflow != workflow {
		return Outcome{}, fmt.Sprintf("#%d comes from %s, but the ledger holds no run %s of %s that opened it since %s", pr.Number, pr.HeadRef, run, workflow, h.Since.Format("2006-01-02"))
	}
	what, by, byType := Closed, c.ClosedBy, c.ClosedByType
	if pr.Merged {
		what, by, byType = Merged, pr.MergedBy, pr.MergedByType
	}
	if o, done := p.Outcomes[what]; done {
		return Outcome{}, fmt.Sprintf("#%d is %s, as the ledger records already (%s)", pr.Number, what, o.At.Format("2006-01-02 15:04 UTC"))
	}
	if _, merged := p.Outcomes[Merged]; merged && what == Closed {
		return Outcome{}, fmt.Sprintf("#%d is closed, but the ledger records it merged", pr.Number)
	}
	o := Outcome{
		Run: p.Run, Workflow: p.Workflow, PullRequest: pr.Number, Outcome: what,
		Agent: p.Agent, Model: p.Model, By: by, ByType: byType, At: pr.Closed,
		Iterations: p.Iterations, CostUSD: p.Cost(), Source: source,
	}
	if !pr.Created.IsZero() && pr.Closed.After(pr.Created) {
		o.Elapsed = pr.Closed.Sub(pr.Created)
	}
	if pr.Merged {
		o.Commit = pr.MergeCommit
	}
	p.Outcomes[what] = o // recorded once, even when asked again
	return o, ""
}
