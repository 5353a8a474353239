package changes

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/optr-dev/optr/internal/gitdata"
	"github.com/optr-dev/optr/internal/github"
	"github.com/optr-dev/optr/internal/worktree"
)

// ParseBranch reads a branch BranchName made: its workflow and run id. ok
// is false for any other branch.
func ParseBranch(branch string) (workflow, runID string, ok bool) {
	rest, found := strings.CutPrefix(branch, "optr/")
	if !found {
		return "", "", false
	}
	workflow, runID, found = strings.Cut(rest, "/")
	if !found {
		return "", "", false
	}
	if b, err := BranchName(workflow, runID); err != nil || b != branch {
		return "", "", false
	}
	return workflow, runID, true
}

// RunTrailer is the git trailer optr puts in the message of each commit
// it pushes onto a pull request's branch, naming the run: an iteration
// reads the review since optr's last commit, found by it.
const RunTrailer = "Optr-Run"

// Trailer returns the trailer line for run runID.
func Trailer(runID string) string { return RunTrailer + ": " + runID }

// HasTrailer reports whether a commit message carries a RunTrailer line.
func HasTrailer(message string) bool {
	for _, line := range strings.Split(message, "\n") {
		if strings.HasPrefix(line, RunTrailer+": ") {
			return true
		}
	}
	return false
}

// Iteration is a change pushed onto the branch of a pull request optr
// opened (architecture §4.16).
type Iteration struct {
	// Branch is the pull request's branch; From the commit the agents
	// started from (the branch's tip when the run began), "" when unknown.
	Branch, From string
	// Message is the commit message, sent as given: redact it first.
	Message string
	// Git is the git binary; empty means "git" on PATH.
	Git string
}

// Pushed is the commit PushIteration made.
type Pushed struct {
	// Commit is the new commit; Parent the branch tip it went on.
	Commit, Parent string
	// Rebased is true when the branch had moved since the agents started
	// (someone pushed to it): the change was carried onto its new tip.
	Rebased bool
}

// maxPushRounds bounds the rounds PushIteration loses to pushes by others.
const maxPushRounds = 3

// PushIteration pushes patch as one new commit on it.Branch, never
// forced:
//
//	tip   := BranchTip(branch)
//	files := the patch carried onto tip (worktree.Rebase)
//	         PushChange(tip, branch, files, Update)   compare-and-swap
//
// When someone pushed to the branch since the agents started, the patch is
// carried onto the new tip; when it does not apply there, the error wraps
// ErrNotApplicable with git's reason and nothing is pushed. A push lost to
// another push in the meantime is tried again from the new tip.
func PushIteration(ctx context.Context, gh *github.Client, patch []byte, it Iteration) (Pushed, error) {
	for round := 1; ; round++ {
		tip, err := gh.BranchTip(ctx, it.Branch)
		if err != nil {
			return Pushed{}, fmt.Errorf("push to the pull request's branch: %w", err)
		}
		files, err := carry(ctx, gh, it.Git, patch, tip)
		if err != nil {
			if errors.Is(err, worktree.ErrNotApplicable) && it.From != "" && tip.Commit != it.From {
				return Pushed{}, fmt.Errorf("push to the pull request's branch: %s moved from %.7s to %.7s since the run started, and the change does not apply onto it; nothing was pushed: %w",
					it.Branch, it.From, tip.Commit, err)
			}
			return Pushed{}, fmt.Errorf("push to the pull request's branch: %w", err)
		}
		commit, err := gh.PushChange(ctx, github.ChangeRequest{Tip: tip, Branch: it.Branch, Message: it.Message, Files: files, Update: true})
		if errors.Is(err, gitdata.ErrMoved) && round < maxPushRounds {
			continue
		}
		if err != nil {
			return Pushed{}, fmt.Errorf("push to the pull request's branch: %w", err)
		}
		return Pushed{Commit: commit, Parent: tip.Commit, Rebased: it.From != "" && tip.Commit != it.From}, nil
	}
}
