package changes

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"

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

// AssistedTrailer is the git trailer that names the agent and the model
// that wrote a commit's change (architecture §4.19): the Linux kernel's
// convention for AI-assisted commits, "Assisted-by: AGENT_NAME:MODEL_VERSION"
// (Documentation/process/coding-assistants.rst).
const AssistedTrailer = "Assisted-by"

// UnknownModel stands for the model in an Assisted-by trailer when no
// model is known (a command agent that names none).
const UnknownModel = "unknown"

// Attribution is who wrote π*'s change: the run that selected it, the
// agent, and the model it answered with ("" when unknown).
type Attribution struct {
	Run, Agent, Model string
}

// Trailers returns the trailer lines that end the message of every commit
// optr makes for π*'s change: "Assisted-by: <agent>:<model>" and
// "Optr-Run: <run id>". The names are kept to one token each (a blank or a
// control character becomes "-"), so a name cannot add a trailer of its
// own.
func (a Attribution) Trailers() string {
	model := a.Model
	if strings.TrimSpace(model) == "" {
		model = UnknownModel
	}
	return AssistedTrailer + ": " + token(a.Agent) + ":" + token(model) + "\n" + RunTrailer + ": " + token(a.Run)
}

// Message is a commit message: subject, a blank line, body (when not
// empty), a blank line and a's trailers.
func (a Attribution) Message(subject, body string) string {
	msg := strings.TrimSpace(subject) + "\n\n"
	if body = strings.TrimSpace(body); body != "" {
		msg += body + "\n\n"
	}
	return msg + a.Trailers() + "\n"
}

// token is s as one trailer token: blanks and control characters become
// "-".
func token(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			return '-'
		}
		return r
	}, s)
}

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
