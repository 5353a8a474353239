package changes

import (
	"context"
	"errors"
	"fmt"

	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/github"
	"github.com/optr-dev/optr/internal/worktree"
)

// ErrNotApplicable marks a patch that no longer applies to the base
// branch's tip; nothing was pushed.
var ErrNotApplicable = worktree.ErrNotApplicable

// BranchName is the branch a run's pull request comes from:
// optr/<workflow>/<run-id>. A rerun has a new run id, so it never reuses
// (or force-pushes) a branch.
func BranchName(workflow, runID string) (string, error) {
	if err := datalake.ValidateWorkflow(workflow); err != nil {
		return "", err
	}
	if err := datalake.ValidateRunID(runID); err != nil {
		return "", err
	}
	return "optr/" + workflow + "/" + runID, nil
}

// PullRequest describes the pull request of one run.
type PullRequest struct {
	// Base is the branch the change goes into (changes.base); empty means
	// the repository's default branch.
	Base string
	// Branch is the new branch holding the change (BranchName).
	Branch string
	// Message is the commit message; Title and Body those of the pull
	// request. They are sent as given: redact them first.
	Message, Title, Body string
	// Draft opens the pull request as a draft (changes.draft).
	Draft bool
	// Git is the git binary; empty means "git" on PATH.
	Git string
	// Pushed, when set, is called once the branch is pushed and before the
	// pull request is opened; what it returns is added to Body (the CI
	// runs it started on the branch).
	Pushed func(ctx context.Context, branch string) string
}

// Opened is the pull request OpenPullRequest opened.
type Opened struct {
	Number int
	URL    string
	// Base is the base branch's name; BaseCommit its tip the change was
	// committed on; Commit the change's commit on Branch.
	Base, BaseCommit, Commit, Branch string
}

// OpenPullRequest carries patch onto the tip of pr.Base, pushes it as one
// commit on the new branch pr.Branch and opens the pull request, all with
// gh (whose token is the one that starts the repository's pull_request
// workflows, or not):
//
//	tip   := BranchTip(base)                       1 request
//	files := ReadFiles(tip, paths of the patch)    1 tree per directory, 1 blob per file
//	         worktree.Rebase(patch, files)         git apply --cached in a scratch repository
//	         PushChange(tip, branch, files)        blobs, tree, commit, new ref
//	         OpenPullRequest(base, branch)         1 request
//
// A patch that does not apply to the tip (the base moved under it) wraps
// ErrNotApplicable and pushes nothing; the base branch is never written.
func OpenPullRequest(ctx context.Context, gh *github.Client, patch []byte, pr PullRequest) (Opened, error) {
	base := pr.Base
	if base == "" {
		b, err := gh.DefaultBranch(ctx)
		if err != nil {
			return Opened{}, fmt.Errorf("open the pull request: %w", err)
		}
		base = b
	}
	if pr.Branch == "" || pr.Branch == base {
		return Opened{}, fmt.Errorf("open the pull request: the branch %q cannot hold the change: use BranchName", pr.Branch)
	}
	tip, err := gh.BranchTip(ctx, base)
	if err != nil {
		return Opened{}, fmt.Errorf("open the pull request: %w", err)
	}
	files, err := carry(ctx, gh, pr.Git, patch, tip)
	if err != nil {
		if errors.Is(err, worktree.ErrNotApplicable) {
			return Opened{}, fmt.Errorf("open the pull request: %s moved to %.7s since the run started: %w", base, tip.Commit, err)
		}
		return Opened{}, fmt.Errorf("open the pull request: %w", err)
	}
	commit, err := gh.PushChange(ctx, github.ChangeRequest{Tip: tip, Branch: pr.Branch, Message: pr.Message, Files: files})
	if err != nil {
		return Opened{}, fmt.Errorf("open the pull request: %w", err)
	}
	opened := Opened{Base: base, BaseCommit: tip.Commit, Commit: commit, Branch: pr.Branch}
	body := pr.Body
	if pr.Pushed != nil {
		body += pr.Pushed(ctx, pr.Branch)
	}
	p, err := gh.OpenPullRequest(ctx, github.PullRequestRequest{Base: base, Head: pr.Branch, Title: pr.Title, Body: body, Draft: pr.Draft})
	if err != nil {
		return opened, fmt.Errorf("open the pull request (the change is on branch %s): %w", pr.Branch, err)
	}
	opened.Number, opened.URL = p.Number, p.URL
	return opened, nil
}

// carry reads the files patch touches at tip and applies patch to them in
// a scratch repository (worktree.Rebase): the files of the change's
// commit on tip. A patch that does not apply there wraps ErrNotApplicable
// with git's reason.
func carry(ctx context.Context, gh *github.Client, git string, patch []byte, tip github.Tip) ([]github.File, error) {
	paths, err := worktree.PatchPaths(ctx, git, patch)
	if err != nil {
		return nil, err
	}
	pre, err := gh.ReadFiles(ctx, tip, paths)
	if err != nil {
		return nil, err
	}
	in := make([]worktree.File, len(pre))
	for i, f := range pre {
		in[i] = worktree.File(f)
	}
	post, err := worktree.Rebase(ctx, git, patch, in)
	if err != nil {
		return nil, err
	}
	files := make([]github.File, len(post))
	for i, f := range post {
		files[i] = github.File(f)
	}
	return files, nil
}
