package github

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"path"
	"strings"
	"unicode/utf8"

	gh "github.com/google/go-github/v60/github"

	"github.com/optr-dev/optr/internal/gitdata"
)

// Tip is a branch's head commit and that commit's tree.
type Tip struct {
	Commit, Tree string
}

// BranchTip returns the head of branch (empty: the default branch), in one
// request.
func (c *Client) BranchTip(ctx context.Context, branch string) (Tip, error) {
	if branch == "" {
		b, err := c.DefaultBranch(ctx)
		if err != nil {
			return Tip{}, err
		}
		branch = b
	}
	t, err := c.ReadTip(ctx, branch)
	switch {
	case errors.Is(err, gitdata.ErrEmptyRepository):
		return Tip{}, fmt.Errorf("read branch %s of %s: the repository has no commit yet", branch, c.Repository())
	case errors.Is(err, gitdata.ErrNoBranch):
		return Tip{}, fmt.Errorf("read branch %s of %s: no such branch: check changes.base", branch, c.Repository())
	case err != nil:
		return Tip{}, fmt.Errorf("%s: %w", c.Repository(), err)
	}
	return Tip{Commit: t.SHA, Tree: t.Tree}, nil
}

// File is a repository file: its content and mode (100644, 100755, or
// 120000 for a symlink whose content is its target), or a deletion. It has
// the shape of worktree.File, so one converts to the other.
type File struct {
	Path    string
	Mode    string
	Content []byte
	Delete  bool
}

// ReadFiles returns those of paths that exist in tip's tree, with their
// modes and contents, in the order given. It reads one tree per directory
// on the way to the paths and one raw blob per file found, so its cost
// follows the paths asked for, not the repository's size.
func (c *Client) ReadFiles(ctx context.Context, tip Tip, paths []string) ([]File, error) {
	dirs := map[string]map[string]*gh.TreeEntry{}
	var list func(dir string) (map[string]*gh.TreeEntry, error)
	list = func(dir string) (map[string]*gh.TreeEntry, error) {
		if m, ok := dirs[dir]; ok {
			return m, nil
		}
		sha := tip.Tree
		if dir != "" {
			parent, err := list(parentDir(dir))
			if err != nil {
				return nil, err
			}
			e := parent[path.Base(dir)]
			if e == nil || e.GetType() != "tree" {
				dirs[dir] = nil
				return nil, nil
			}
			sha = e.GetSHA()
		}
		tree, _, err := c.gh.Git.GetTree(ctx, c.owner, c.repo, sha, false)
		if err != nil {
			return nil, fmt.Errorf("read tree %s at %.7s: %w", dir, tip.Commit, err)
		}
		m := map[string]*gh.TreeEntry{}
		for _, e := range tree.Entries {
			m[e.GetPath()] = e
		}
		dirs[dir] = m
		return m, nil
	}
	var out []File
	for _, p := range paths {
		if !gitdata.ValidPath(p) {
			return nil, fmt.Errorf("read files: %q is not a clean repository-relative path", p)
		}
		entries, err := list(parentDir(p))
		if err != nil {
			return nil, err
		}
		e := entries[path.Base(p)]
		if e == nil || e.GetType() == "tree" {
			continue
		}
		if e.GetType() != "blob" {
			return nil, fmt.Errorf("read files: %s is a %s at %.7s, not a file", p, e.GetType(), tip.Commit)
		}
		content, _, err := c.gh.Git.GetBlobRaw(ctx, c.owner, c.repo, e.GetSHA())
		if err != nil {
			return nil, fmt.Errorf("read %s at %.7s: %w", p, tip.Commit, err)
		}
		out = append(out, File{Path: p, Mode: e.GetMode(), Content: content})
	}
	return out, nil
}

func parentDir(p string) string {
	if d := path.Dir(p); d != "." {
		return d
	}
	return ""
}

// ChangeRequest is a code change to push as one commit on a new branch.
type ChangeRequest struct {
	// Tip is the commit the change goes on (the base branch's tip, from
	// BranchTip).
	Tip Tip
	// Branch is the branch to create, e.g. optr/<workflow>/<run-id>. It
	// must not exist: a change is never force-pushed.
	Branch string
	// Message is the commit message.
	Message string
	// Files are the files the change writes or deletes.
	Files []File
	// AuthorName and AuthorEmail set the commit's author; empty means the
	// token's identity.
	AuthorName, AuthorEmail string
	// Update moves the existing req.Branch from Tip to the new commit,
	// compare-and-swap (never forced), instead of creating it.
	Update bool
}

// ErrBranchExists marks a push to a branch that already exists (and does
// not already hold this very commit).
var ErrBranchExists = errors.New("the branch already exists")

// PushChange commits req.Files on top of req.Tip as one commit and creates
// req.Branch pointing at it, through the Git Data API only: one blob per
// written file, one tree on the tip's tree (deletions as entries with a
// null sha), one commit, one new ref. It never moves an existing branch:
// when req.Branch exists, the error wraps ErrBranchExists, unless it
// already points at the commit (a retry whose answer was lost). With
// req.Update it moves req.Branch from req.Tip instead, compare-and-swap:
// a branch that moved meanwhile wraps gitdata.ErrMoved, one a rule
// protects is a *gitdata.RuleError. It returns the commit's sha.
func (c *Client) PushChange(ctx context.Context, req ChangeRequest) (string, error) {
	switch {
	case req.Tip.Commit == "" || req.Tip.Tree == "":
		return "", errors.New("push the change: no base commit given: read it with BranchTip")
	case !gitdata.ValidPath(req.Branch) || strings.Contains(req.Branch, ".."):
		return "", fmt.Errorf("push the change: %q is not a valid branch name", req.Branch)
	case req.Message == "":
		return "", errors.New("push the change: the commit message is empty")
	case len(req.Files) == 0:
		return "", errors.New("push the change: it changes no file")
	case (req.AuthorName == "") != (req.AuthorEmail == ""):
		return "", errors.New("push the change: give both the author's name and email, or neither")
	}
	entries := make([]*gh.TreeEntry, 0, len(req.Files))
	seen := map[string]bool{}
	for _, f := range req.Files {
		if !gitdata.ValidPath(f.Path) || seen[f.Path] {
			return "", fmt.Errorf("push the change: file path %q is not a clean repository-relative path, or is given twice", f.Path)
		}
		seen[f.Path] = true
		e := &gh.TreeEntry{Path: gh.String(f.Path), Type: gh.String("blob")}
		if f.Delete {
			e.Mode = gh.String("100644") // with sha null: GitHub deletes the path
			entries = append(entries, e)
			continue
		}
		switch f.Mode {
		case "100644", "100755", "120000":
		default:
			return "", fmt.Errorf("push the change: %s has mode %q; only files (100644, 100755) and symlinks (120000) can be pushed", f.Path, f.Mode)
		}
		blob, _, err := c.gh.Git.CreateBlob(ctx, c.owner, c.repo, &gh.Blob{
			Content:  gh.String(base64.StdEncoding.EncodeToString(f.Content)),
			Encoding: gh.String("base64"),
		})
		if err != nil {
			return "", fmt.Errorf("push the change: store %s: %w", f.Path, err)
		}
		e.Mode, e.SHA = gh.String(f.Mode), blob.SHA
		entries = append(entries, e)
	}
	tree, _, err := c.gh.Git.CreateTree(ctx, c.owner, c.repo, req.Tip.Tree, entries)
	if err != nil {
		return "", fmt.Errorf("push the change: create the tree: %w", err)
	}
	commit, err := c.CreateCommit(ctx, gitdata.NewCommit{
		Message: req.Message, Tree: tree.GetSHA(), Parent: req.Tip.Commit,
		Author: gitdata.Author{Name: req.AuthorName, Email: req.AuthorEmail},
	})
	if err != nil {
		return "", fmt.Errorf("push the change: %w", err)
	}
	if req.Update {
		if err := c.UpdateRef(ctx, req.Branch, commit); err != nil {
			return "", fmt.Errorf("push the change: %w", err)
		}
		return commit, nil
	}
	ref := "refs/heads/" + req.Branch
	_, _, err = c.gh.Git.CreateRef(ctx, c.owner, c.repo, &gh.Reference{Ref: gh.String(ref), Object: &gh.GitObject{SHA: gh.String(commit)}})
	if err == nil {
		return commit, nil
	}
	if statusOf(err) != http.StatusUnprocessableEntity {
		return "", fmt.Errorf("push the change: create branch %s: %w", req.Branch, err)
	}
	existing, _, gerr := c.gh.Git.GetRef(ctx, c.owner, c.repo, "heads/"+req.Branch)
	if gerr == nil && existing.GetObject().GetSHA() == commit {
		return commit, nil
	}
	return "", fmt.Errorf("push the change: branch %s of %s: %w (%s); optr never force-pushes, a new run gets a new branch",
		req.Branch, c.Repository(), ErrBranchExists, messageOf(err))
}

// maxPullBody is GitHub's limit on a pull request body, in characters.
const maxPullBody = 65536

// PullRequestRequest opens a pull request.
type PullRequestRequest struct {
	// Base is the branch the change goes into; Head the branch holding it.
	Base, Head string
	// Title and Body are posted as given: redact them first.
	Title, Body string
	// Draft opens the pull request as a draft.
	Draft bool
}

// PullRequest is an opened pull request.
type PullRequest struct {
	Number int
	// URL is its page on GitHub (html_url).
	URL string
}

// OpenPullRequest opens a pull request from req.Head into req.Base. When
// one is already open for that head and base (a retry whose answer was
// lost), it returns that one.
func (c *Client) OpenPullRequest(ctx context.Context, req PullRequestRequest) (PullRequest, error) {
	switch {
	case req.Base == "" || req.Head == "":
		return PullRequest{}, errors.New("open the pull request: both the base and the head branch are required")
	case strings.TrimSpace(req.Title) == "":
		return PullRequest{}, errors.New("open the pull request: the title is empty")
	case utf8.RuneCountInString(req.Body) > maxPullBody:
		return PullRequest{}, fmt.Errorf("open the pull request: the body has %d characters; GitHub takes at most %d", utf8.RuneCountInString(req.Body), maxPullBody)
	}
	pr, _, err := c.gh.PullRequests.Create(ctx, c.owner, c.repo, &gh.NewPullRequest{
		Title: gh.String(req.Title),
		Head:  gh.String(req.Head),
		Base:  gh.String(req.Base),
		Body:  gh.String(req.Body),
		Draft: gh.Bool(req.Draft),
	})
	if err == nil {
		return PullRequest{Number: pr.GetNumber(), URL: pr.GetHTMLURL()}, nil
	}
	if statusOf(err) == http.StatusUnprocessableEntity {
		open, _, lerr := c.gh.PullRequests.List(ctx, c.owner, c.repo, &gh.PullRequestListOptions{
			State: "open", Head: c.owner + ":" + req.Head, Base: req.Base,
		})
		if lerr == nil && len(open) > 0 {
			return PullRequest{Number: open[0].GetNumber(), URL: open[0].GetHTMLURL()}, nil
		}
	}
	return PullRequest{}, fmt.Errorf("open the pull request from %s into %s of %s: %w", req.Head, req.Base, c.Repository(), err)
}
