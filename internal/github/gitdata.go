package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	gh "github.com/google/go-github/v60/github"

	"github.com/optr-dev/optr/internal/gitdata"
)

// Client implements gitdata.Store: commit-back (package commitback) writes
// through it.
var _ gitdata.Store = (*Client)(nil)

// ReadTip reads the branch's head commit, its tree and its message in one
// request (GET commits/heads/{branch}, asking for a single file of the
// commit's diff to keep the answer small). A missing branch is
// gitdata.ErrNoBranch; an empty repository (409) gitdata.ErrEmptyRepository.
func (c *Client) ReadTip(ctx context.Context, branch string) (gitdata.Commit, error) {
	rc, _, err := c.gh.Repositories.GetCommit(ctx, c.owner, c.repo, "heads/"+escapePath(branch), &gh.ListOptions{PerPage: 1})
	switch s := statusOf(err); {
	case err == nil:
	case s == http.StatusConflict:
		return gitdata.Commit{}, fmt.Errorf("read branch %s: %w", branch, gitdata.ErrEmptyRepository)
	case s == http.StatusNotFound || s == http.StatusUnprocessableEntity:
		return gitdata.Commit{}, fmt.Errorf("read branch %s: %w", branch, gitdata.ErrNoBranch)
	default:
		return gitdata.Commit{}, fmt.Errorf("read branch %s: %w", branch, err)
	}
	if rc.GetSHA() == "" || rc.GetCommit().GetTree().GetSHA() == "" {
		return gitdata.Commit{}, fmt.Errorf("read branch %s: GitHub answered without the tip's commit or tree", branch)
	}
	t := gitdata.Commit{SHA: rc.GetSHA(), Tree: rc.GetCommit().GetTree().GetSHA(), Message: rc.GetCommit().GetMessage()}
	if len(rc.Parents) > 0 {
		t.Parent = rc.Parents[0].GetSHA()
	}
	return t, nil
}

// ReadCommit reads commit sha (GET git/commits/{sha}).
func (c *Client) ReadCommit(ctx context.Context, sha string) (gitdata.Commit, error) {
	gc, _, err := c.gh.Git.GetCommit(ctx, c.owner, c.repo, sha)
	if err != nil {
		return gitdata.Commit{}, fmt.Errorf("read commit %.7s: %w", sha, err)
	}
	out := gitdata.Commit{SHA: sha, Tree: gc.GetTree().GetSHA(), Message: gc.GetMessage()}
	if len(gc.Parents) > 0 {
		out.Parent = gc.Parents[0].GetSHA()
	}
	return out, nil
}

// ReadFileAt returns the content of the file path at ref (a commit sha or
// heads/<branch>), nil when there is none, in one raw read of up to 100 MB.
func (c *Client) ReadFileAt(ctx context.Context, ref, path string) ([]byte, error) {
	return c.readFile(ctx, path, ref)
}

// ListDir lists the directory dir at ref (GET contents/{dir}), nil when
// there is none.
func (c *Client) ListDir(ctx context.Context, ref, dir string) ([]gitdata.DirEntry, error) {
	_, list, _, err := c.gh.Repositories.GetContents(ctx, c.owner, c.repo, escapePath(dir), &gh.RepositoryContentGetOptions{Ref: ref})
	if err != nil {
		if statusOf(err) == http.StatusNotFound {
			return nil, nil
		}
		return nil, fmt.Errorf("list %s at %.7s: %w", dir, ref, err)
	}
	out := make([]gitdata.DirEntry, 0, len(list))
	for _, e := range list {
		out = append(out, gitdata.DirEntry{Name: e.GetName(), SHA: e.GetSHA()})
	}
	return out, nil
}

// CreateTree creates a tree on base (POST git/trees with base_tree, so
// every other file is kept): text inline, other files by blob sha.
func (c *Client) CreateTree(ctx context.Context, base string, entries []gitdata.TreeEntry) (string, error) {
	list := make([]*gh.TreeEntry, 0, len(entries))
	for _, e := range entries {
		te := &gh.TreeEntry{Path: gh.String(e.Path), Mode: gh.String("100644"), Type: gh.String("blob")}
		if e.SHA != "" {
			te.SHA = gh.String(e.SHA)
		} else {
			te.Content = gh.String(string(e.Content))
		}
		list = append(list, te)
	}
	tree, _, err := c.gh.Git.CreateTree(ctx, c.owner, c.repo, base, list)
	if err != nil {
		if statusOf(err) == http.StatusConflict {
			return "", fmt.Errorf("create the tree: %w", gitdata.ErrEmptyRepository)
		}
		return "", fmt.Errorf("create the tree: %w", err)
	}
	return tree.GetSHA(), nil
}

// CreateCommit creates a commit (POST git/commits).
func (c *Client) CreateCommit(ctx context.Context, nc gitdata.NewCommit) (string, error) {
	in := &gh.Commit{Message: gh.String(nc.Message), Tree: &gh.Tree{SHA: gh.String(nc.Tree)}}
	if nc.Parent != "" {
		in.Parents = []*gh.Commit{{SHA: gh.String(nc.Parent)}}
	}
	if nc.Author.Name != "" {
		in.Author = &gh.CommitAuthor{Name: gh.String(nc.Author.Name), Email: gh.String(nc.Author.Email)}
	}
	created, _, err := c.gh.Git.CreateCommit(ctx, c.owner, c.repo, in, nil)
	if err != nil {
		return "", fmt.Errorf("create the commit: %w", err)
	}
	return created.GetSHA(), nil
}

// CreateRef creates refs/heads/{branch} at sha (POST git/refs).
func (c *Client) CreateRef(ctx context.Context, branch, sha string) error {
	ref := &gh.Reference{Ref: gh.String("refs/heads/" + branch), Object: &gh.GitObject{SHA: gh.String(sha)}}
	if _, _, err := c.gh.Git.CreateRef(ctx, c.owner, c.repo, ref); err != nil {
		return fmt.Errorf("create branch %s at %.7s: %w", branch, sha, refError(err))
	}
	return nil
}

// UpdateRef moves refs/heads/{branch} to sha with force=false (PATCH
// git/refs/heads/{branch}): compare-and-swap, GitHub answers 422 "Update is
// not a fast forward" when the branch moved.
func (c *Client) UpdateRef(ctx context.Context, branch, sha string) error {
	ref := &gh.Reference{Ref: gh.String("refs/heads/" + branch), Object: &gh.GitObject{SHA: gh.String(sha)}}
	if _, _, err := c.gh.Git.UpdateRef(ctx, c.owner, c.repo, ref, false); err != nil {
		return fmt.Errorf("move branch %s to %.7s: %w", branch, sha, refError(err))
	}
	return nil
}

// CreateFile commits a new file on the default branch through the contents
// API (PUT contents/{path}), the only write GitHub accepts in an empty
// repository. GitHub's 409 or 422 (the file exists, or the branch moved
// meanwhile) is gitdata.ErrMoved.
func (c *Client) CreateFile(ctx context.Context, path, message string, content []byte, author gitdata.Author) error {
	opts := &gh.RepositoryContentFileOptions{Message: gh.String(message), Content: content}
	if content == nil {
		opts.Content = []byte{}
	}
	if author.Name != "" {
		opts.Author = &gh.CommitAuthor{Name: gh.String(author.Name), Email: gh.String(author.Email)}
	}
	_, _, err := c.gh.Repositories.CreateFile(ctx, c.owner, c.repo, escapePath(path), opts)
	switch s := statusOf(err); {
	case err == nil:
		return nil
	case s == http.StatusConflict || s == http.StatusUnprocessableEntity:
		return fmt.Errorf("create %s: %w: %s", path, gitdata.ErrMoved, messageOf(err))
	default:
		return fmt.Errorf("create %s: %w", path, err)
	}
}

// refError says in gitdata's terms why GitHub refused a ref write, from
// its answer (architecture §6): a protection rule or ruleset (422, or 403, whose
// message says so) is a *gitdata.RuleError; a ref that moved, or was
// created or deleted meanwhile, is gitdata.ErrMoved; 409 is an empty
// repository. Anything else is returned as it is.
func refError(err error) error {
	s, msg := statusOf(err), messageOf(err)
	switch {
	case (s == http.StatusUnprocessableEntity || s == http.StatusForbidden) && protectionRefusal(msg):
		return &gitdata.RuleError{Rule: oneLine(msg)}
	case s == http.StatusUnprocessableEntity && raced(msg):
		return fmt.Errorf("%w: %s", gitdata.ErrMoved, msg)
	case s == http.StatusConflict:
		return errors.Join(gitdata.ErrEmptyRepository, err)
	}
	return err
}

// raced reports whether a 422 to a ref write says that the ref is not
// where the writer read it: "Update is not a fast forward", "Reference
// already exists", "Reference does not exist".
func raced(msg string) bool {
	m := strings.ToLower(msg)
	return strings.Contains(m, "not a fast forward") || strings.Contains(m, "reference already exists") || strings.Contains(m, "reference does not exist")
}

// protectionRefusal reports whether a 422 message is a protection rule or
// ruleset refusing an update, not a ref that moved. GitHub's texts:
// "Protected branch update failed for refs/heads/main.", "Repository rule
// violations found …", "Required status check … is expected.", "Changes
// must be made through a pull request.", "Cannot update this protected
// ref.".
func protectionRefusal(msg string) bool {
	m := strings.ToLower(msg)
	for _, s := range []string{"protected branch", "protected ref", "rule violation", "ruleset", "required status check", "must be made through a pull request", "review required"} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}

// oneLine joins the lines of GitHub's message ("Repository rule
// violations found\n\nChanges must be made through a pull request.").
func oneLine(msg string) string {
	var parts []string
	for _, l := range strings.Split(msg, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, ": ")
}
