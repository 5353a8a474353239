package outcome

import (
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/tidwall/gjson"

	"github.com/optr-dev/optr/internal/ledger"
)

// What an outcome entry says happened.
const (
	// Merged: the pull request was merged.
	Merged = "merged"
	// Closed: it was closed without being merged.
	Closed = "closed"
	// Reverted: a later commit on the default branch undid its merge.
	Reverted = "reverted"
)

// How optr learned of an outcome.
const (
	// FromEvent: the pull_request.closed event.
	FromEvent = "event"
	// FromAPI: read through the API at a later run.
	FromAPI = "api"
)

// How a revert was found.
const (
	// ByMessage: the commit's message is git's or GitHub's revert of it.
	ByMessage = "revert-message"
	// ByPatch: the files the pull request changed are again what they
	// were before its merge.
	ByPatch = "patch"
)

// RevertWindow is how long after a merge a revert counts against the
// change.
const RevertWindow = 30 * 24 * time.Hour

// Outcome is what one outcome entry records (its members in parentheses).
type Outcome struct {
	// Run and Workflow name the run that opened the pull request: the
	// entry's run and workflow.
	Run, Workflow string
	// PullRequest is its number (pull_request).
	PullRequest int
	// Outcome is Merged, Closed or Reverted (outcome).
	Outcome string
	// Agent and Model are π*'s of the run that opened it (agent, model).
	Agent, Model string
	// By is who merged, closed or reverted it: a login, or for a revert
	// the commit's author name (by); ByType is the login's type, User or
	// Bot, when GitHub says (by_type).
	By, ByType string
	// At is when it happened (at).
	At time.Time
	// Elapsed is, for a merge or a close, how long the pull request was
	// open (open_ms); for a revert, how long after the merge it came
	// (after_merge_ms).
	Elapsed time.Duration
	// Iterations counts the runs that worked on it, the opening one
	// included (iterations).
	Iterations int
	// CostUSD is what those runs cost, every agent of each; nil when any
	// of them has no known cost (change_cost_usd, absent then).
	CostUSD *float64
	// Commit is the merge commit of a merge, the commit that undid it of
	// a revert (commit).
	Commit string
	// Source is FromEvent or FromAPI (source); How, for a revert,
	// ByMessage or ByPatch (how).
	Source, How string
}

// The members of an outcome entry.
const (
	memberPull       = "pull_request"
	memberOutcome    = "outcome"
	memberAgent      = "agent"
	memberModel      = "model"
	memberBy         = "by"
	memberByType     = "by_type"
	memberAt         = "at"
	memberOpenMS     = "open_ms"
	memberAfterMerge = "after_merge_ms"
	memberIterations = "iterations"
	memberCost       = "change_cost_usd"
	memberCommit     = "commit"
	memberSource     = "source"
	memberHow        = "how"
)

// Key is what makes the outcome one (ledger.OutcomeKey): the run that
// opened the pull request and what happened to it.
func (o Outcome) Key() string { return ledger.OutcomeKey(o.Run, o.Outcome) }

// Draft is the outcome's ledger entry, recorded at now.
func (o Outcome) Draft(now time.Time) ledger.Draft {
	f := map[string]any{
		memberPull:       int64(o.PullRequest),
		memberOutcome:    o.Outcome,
		memberAgent:      o.Agent,
		memberAt:         o.At.UTC().Format(time.RFC3339),
		memberIterations: int64(o.Iterations),
		memberSource:     o.Source,
	}
	elapsed := memberOpenMS
	if o.Outcome == Reverted {
		elapsed = memberAfterMerge
		f[memberHow] = o.How
	}
	f[elapsed] = o.Elapsed.Milliseconds()
	for k, v := range map[string]string{memberModel: o.Model, memberBy: o.By, memberByType: o.ByType, memberCommit: o.Commit} {
		if v != "" {
			f[k] = v
		}
	}
	if o.CostUSD != nil {
		f[memberCost] = *o.CostUSD
	}
	return ledger.Draft{Kind: ledger.KindOutcome, Run: o.Run, Workflow: o.Workflow, Time: now.UTC(), Fields: f}
}

// Decode reads an outcome entry's line (its common members in e, as
// ledger.ReadWindow gives them). A member of another type than optr
// writes reads as its zero value; ok is false when the line records no
// outcome optr knows. The line is read in place (a window reads many), and
// each string kept is a copy: the outcome outlives the line's buffer.
func Decode(e ledger.WindowEntry) (o Outcome, ok bool) {
	if e.Kind != ledger.KindOutcome {
		return Outcome{}, false
	}
	o.Run, o.Workflow = e.Run, e.Workflow
	str := func(v gjson.Result) string { return strings.Clone(v.String()) }
	gjson.Parse(unsafe.String(unsafe.SliceData(e.Line), len(e.Line))).ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case memberPull:
			o.PullRequest = int(v.Int())
		case memberOutcome:
			o.Outcome = str(v)
		case memberAgent:
			o.Agent = str(v)
		case memberModel:
			o.Model = str(v)
		case memberBy:
			o.By = str(v)
		case memberByType:
			o.ByType = str(v)
		case memberAt:
			o.At, _ = time.Parse(time.RFC3339, v.String())
		case memberOpenMS, memberAfterMerge:
			o.Elapsed = time.Duration(v.Int()) * time.Millisecond
		case memberIterations:
			o.Iterations = int(v.Int())
		case memberCost:
			if v.Type == gjson.Number {
				usd := v.Float()
				o.CostUSD = &usd
			}
		case memberCommit:
			o.Commit = str(v)
		case memberSource:
			o.Source = str(v)
		case memberHow:
			o.How = str(v)
		}
		return true
	})
	switch o.Outcome {
	case Merged, Closed, Reverted:
		return o, true
	}
	return Outcome{}, false
}

// Describe says in a few words what happened, for the log and the step
// summary: "#12 merged by octocat after 3h0m0s".
func (o Outcome) Describe() string {
	var b strings.Builder
	b.WriteString("#" + strconv.Itoa(o.PullRequest) + " " + o.Outcome)
	if o.By != "" {
		b.WriteString(" by " + o.By)
		if o.ByType == "Bot" {
			b.WriteString(" (a bot)")
		}
	}
	switch {
	case o.Outcome == Reverted:
		b.WriteString(" " + o.Elapsed.Round(time.Minute).String() + " after the merge")
	case o.Elapsed > 0:
		b.WriteString(" after " + o.Elapsed.Round(time.Minute).String())
	}
	return b.String()
}
