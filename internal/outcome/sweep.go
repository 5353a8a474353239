package outcome

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/optr-dev/optr/internal/github"
	"github.com/optr-dev/optr/internal/lazyregexp"
)

func earlier(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// SweepWindow is how far back a run looks for pull requests optr opened
// whose outcome the ledger does not hold: optr's pull requests are drafts
// by default, and a draft may wait weeks for review. One that stays open
// longer is recorded by its pull_request.closed event only.
const SweepWindow = 90 * 24 * time.Hour

// MaxPatchChecks bounds the merged pull requests a sweep checks for a
// revert by patch (a few requests each); the others wait for a later
// run, taken in turn.
const MaxPatchChecks = 3

// GitHub is what a sweep reads through the API; *github.Client is one.
type GitHub interface {
	Repository() string
	DefaultBranch(ctx context.Context) (string, error)
	PullRequest(ctx context.Context, number int) (github.PullRequestInfo, error)
	ClosedBy(ctx context.Context, number int) (login, typ string, err error)
	ClosedPullRequests(ctx context.Context, since time.Time) ([]github.PullRequestInfo, bool, error)
	Commits(ctx context.Context, q github.CommitQuery) ([]github.Commit, bool, error)
	DatedCommit(ctx context.Context, sha string) (github.DatedCommit, error)
	ChangedFiles(ctx context.Context, base, head string) ([]string, error)
}

// Close is Of for pull request number, read through gh: the pull
// request, and who closed it when it was not merged.
func Close(ctx context.Context, gh GitHub, h *History, number int, source string) (Outcome, string, error) {
	pr, err := gh.PullRequest(ctx, number)
	if err != nil {
		return Outcome{}, "", err
	}
	return CloseRead(ctx, gh, h, pr, source)
}

// CloseRead is Close of a pull request already read: who closed it is
// read when it was not merged.
func CloseRead(ctx context.Context, gh GitHub, h *History, pr github.PullRequestInfo, source string) (Outcome, string, error) {
	c := Closing{Pull: pr}
	if pr.State == "closed" && !pr.Merged {
		var err error
		if c.ClosedBy, c.ClosedByType, err = gh.ClosedBy(ctx, pr.Number); err != nil {
			return Outcome{}, "", err
		}
	}
	o, why := Of(h, gh.Repository(), c, source)
	return o, why, nil
}

// Sweep finds through gh what became of the pull requests in h the
// ledger holds no merge or close of (those opened within SweepWindow of
// now), and which merged ones a later commit on the default branch undid
// within RevertWindow of their merge. It returns the outcomes to record,
// in order, and notes for the log on what it could not tell.
//
// Its requests: none when nothing is pending; else one listing of the
// closed pull requests (more pages only for a busy repository) and, for
// each one found, one to read who merged or closed it; one listing of the
// default branch's commits since the oldest merge still in its revert
// window; and, for at most MaxPatchChecks merges, three or four to see
// whether their files are back to what they were.
func Sweep(ctx context.Context, gh GitHub, h *History, now time.Time) ([]Outcome, []string, error) {
	var out []Outcome
	var notes []string
	var pending []*Pull
	oldest := now
	for _, p := range h.Pulls {
		if !p.Decided() && now.Sub(p.Opened) <= SweepWindow {
			pending = append(pending, p)
			oldest = earlier(oldest, p.Opened)
		}
	}
	if len(pending) > 0 {
		// A pull request is updated when it closes: one closed since the
		// oldest pending one opened is in this list.
		closed, more, err := gh.ClosedPullRequests(ctx, oldest.Add(-time.Hour))
		if err != nil {
			return out, notes, err
		}
		if more {
			notes = append(notes, fmt.Sprintf("more pull requests were closed since %s than one run reads; the rest are read at the next run", oldest.Format(time.DateOnly)))
		}
		for _, pr := range closed {
			p := h.Pulls[pr.Number]
			if p == nil || p.Decided() {
				continue
			}
			if pr.Merged { // a listing does not say who merged it
				var err error
				if pr, err = gh.PullRequest(ctx, pr.Number); err != nil {
					return out, notes, err
				}
			}
			o, why, err := CloseRead(ctx, gh, h, pr, FromAPI)
			if err != nil {
				return out, notes, err
			}
			if why != "" {
				notes = append(notes, why)
				continue
			}
			out = append(out, o)
		}
	}
	reverts, more, err := sweepReverts(ctx, gh, h, now)
	notes = append(notes, more...)
	return append(out, reverts...), notes, err
}

// sweepReverts finds the reverts of the merges in h still in their revert
// window.
func sweepReverts(ctx context.Context, gh GitHub, h *History, now time.Time) ([]Outcome, []string, error) {
	var merges []Outcome
	oldest := now
	for _, p := range h.Pulls {
		m, merged := p.Outcomes[Merged]
		if _, done := p.Outcomes[Reverted]; merged && !done && m.Commit != "" && now.Sub(m.At) <= RevertWindow {
			merges = append(merges, m)
			oldest = earlier(oldest, m.At)
		}
	}
	if len(merges) == 0 {
		return nil, nil, nil
	}
	slices.SortFunc(merges, func(a, b Outcome) int { return a.At.Compare(b.At) })
	branch, err := gh.DefaultBranch(ctx)
	if err != nil {
		return nil, nil, err
	}
	commits, more, err := gh.Commits(ctx, github.CommitQuery{Branch: branch, Since: oldest})
	if err != nil {
		return nil, nil, err
	}
	var notes []string
	if more {
		notes = append(notes, fmt.Sprintf("more commits landed on %s since %s than one run reads; reverts among the oldest are looked for by patch only", branch, oldest.Format(time.DateOnly)))
	}
	var out []Outcome
	var unseen []Outcome
	for _, m := range merges {
		if c, ok := revertIn(commits, m); ok {
			out = append(out, reverted(h, m, c, ByMessage))
			continue
		}
		unseen = append(unseen, m)
	}
	// By patch, a few a run, in turn: which few moves every hour.
	start := 0
	if len(unseen) > 0 {
		start = int(now.Unix()/3600) % len(unseen)
	}
	for i := range min(MaxPatchChecks, len(unseen)) {
		m := unseen[(start+i)%len(unseen)]
		c, ok, err := undone(ctx, gh, branch, m)
		if err != nil {
			notes = append(notes, fmt.Sprintf("could not tell whether #%d was reverted: %v", m.PullRequest, err))
			continue
		}
		if ok {
			out = append(out, reverted(h, m, c, ByPatch))
		}
	}
	return out, notes, nil
}

// reverted is the revert, by commit c, of merge m.
func reverted(h *History, m Outcome, c github.Commit, how string) Outcome {
	o := m
	o.Outcome, o.By, o.ByType, o.At, o.Elapsed, o.Commit, o.Source, o.How = Reverted, c.Author, "", c.Time, c.Time.Sub(m.At), c.SHA, FromAPI, how
	if p := h.Pulls[m.PullRequest]; p != nil {
		p.Outcomes[Reverted] = o
	}
	return o
}

// revertLine is the line git revert writes in the message, naming the
// commit it reverts (full or abbreviated).
var revertLine = lazyregexp.New(`(?m)^This reverts commit ([0-9a-f]{7,40})\b`)

// revertIn finds, among commits, git's revert of merge m within its
// revert window: a commit whose message says "This reverts commit <m's
// merge commit>". GitHub's Revert button writes the same message, and a
// squash merge of the revert keeps it in the body.
func revertIn(commits []github.Commit, m Outcome) (github.Commit, bool) {
	for i := len(commits) - 1; i >= 0; i-- { // oldest first: the first revert counts
		c := commits[i]
		if !c.Time.After(m.At) || c.Time.Sub(m.At) > RevertWindow || c.SHA == m.Commit {
			continue
		}
		for _, sub := range revertLine.Regexp().FindAllStringSubmatch(c.Message, -1) {
			if strings.HasPrefix(m.Commit, sub[1]) {
				return c, true
			}
		}
	}
	return github.Commit{}, false
}

// undone reports whether the files merge m changed are, on branch's tip,
// what they were before m, and which commit made them so: the newest
// commit on the first of them after the merge, if it came within m's
// revert window. A change of more files than GitHub lists is not judged.
func undone(ctx context.Context, gh GitHub, branch string, m Outcome) (github.Commit, bool, error) {
	mc, err := gh.DatedCommit(ctx, m.Commit)
	if err != nil || mc.Parent == "" {
		return github.Commit{}, false, err
	}
	changed, err := gh.ChangedFiles(ctx, mc.Parent, m.Commit)
	if err != nil || len(changed) == 0 || len(changed) >= github.MaxChangedFiles {
		return github.Commit{}, false, err
	}
	since, err := gh.ChangedFiles(ctx, mc.Parent, branch)
	if err != nil || len(since) >= github.MaxChangedFiles {
		return github.Commit{}, false, err
	}
	for _, f := range changed {
		if slices.Contains(since, f) {
			return github.Commit{}, false, nil // still differs from before the merge: kept, or changed on
		}
	}
	commits, _, err := gh.Commits(ctx, github.CommitQuery{Branch: branch, Path: changed[0], Since: m.At})
	if err != nil {
		return github.Commit{}, false, err
	}
	for _, c := range commits { // newest first
		if c.SHA != m.Commit && c.Time.After(m.At) {
			return c, c.Time.Sub(m.At) <= RevertWindow, nil
		}
	}
	return github.Commit{}, false, nil
}
