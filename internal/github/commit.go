package github

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	gh "github.com/google/go-github/v60/github"
	"github.com/sethvargo/go-retry"
)

// CommitRequest is one commit-back: the ledger, re-chained on the branch's
// current content, and a run's files, in one commit.
type CommitRequest struct {
	// Branch is the branch to commit to; empty means the repository's
	// default branch. A missing branch is created from the default branch.
	Branch string
	// Message is the commit message.
	Message string
	// LedgerPath is the ledger's repository-relative path, e.g.
	// ".optr/ledger.jsonl".
	LedgerPath string
	// Rechain is given the ledger as it is at the branch's tip (empty,
	// possibly nil, when the file does not exist) and returns the whole new ledger: the remote
	// entries followed by this run's entries chained onto them. It is
	// called again, with the new remote ledger, each time the branch moved
	// under the commit. It should return remote unchanged when remote
	// already holds this run's entries.
	Rechain func(remote []byte) ([]byte, error)
	// Files are other repository-relative paths to write, with their
	// content (e.g. the run's datalake files). Text goes into the tree
	// request inline; other bytes become blobs first.
	Files map[string][]byte
	// AuthorName and AuthorEmail set the commit's author; empty means the
	// token's identity (github-actions[bot] with GITHUB_TOKEN).
	AuthorName, AuthorEmail string
}

// CommitResult is what CommitBack committed.
type CommitResult struct {
	// CommitSHA is the commit that holds the ledger: the new commit, or the
	// tip when nothing changed.
	CommitSHA string
	// Branch is the branch committed to.
	Branch string
	// Ledger is exactly the ledger content that was committed.
	Ledger []byte
	// BranchCreated is true when the branch did not exist before.
	BranchCreated bool
	// Attempts counts read-rechain-update rounds; Conflicts counts those
	// lost to another writer moving the branch.
	Attempts, Conflicts int
	// Requests is the number of API requests this commit-back sent,
	// retries included.
	Requests int
}

// errConflict marks a round lost to another writer; errEmptyRepo a
// repository without commits.
var (
	errConflict  = errors.New("the branch moved")
	errEmptyRepo = errors.New("the repository is empty")
)

// ledgerStartMessage is the message of the commit that gives an empty
// repository its first commit.
const ledgerStartMessage = "optr: start the ledger"

// CommitBack commits the re-chained ledger and req.Files to the branch in
// one commit through the Git Data API, without a clone:
//
//  1. GET commits/heads/{branch}: the tip and its tree in one request;
//  2. GET contents/{ledger}?ref={tip}, raw (any size up to 100 MB);
//  3. Rechain(remote ledger);
//  4. POST git/trees with base_tree = the tip's tree, so every other file
//     is kept;
//  5. POST git/commits with the tip as parent;
//  6. PATCH git/refs/heads/{branch} with force=false: compare-and-swap.
//
// That is five requests when nothing races. When another writer moved the
// branch in between, GitHub answers 422 and CommitBack backs off with
// jitter and starts again from 1, so Rechain chains onto the new remote
// entries and nothing is lost or forked; it gives up after
// Options.CommitAttempts rounds. A missing branch is created from the
// default branch's tip (POST git/refs; 422 when a concurrent run created it
// first, which starts another round). An empty repository refuses the Git
// Data API (409), so CommitBack first gives it a root commit holding an
// empty ledger through the contents API, on the default branch.
func (c *Client) CommitBack(ctx context.Context, req CommitRequest) (res CommitResult, err error) {
	if err := req.validate(); err != nil {
		return CommitResult{}, err
	}
	ctx, requests := withRequestCount(ctx)
	defer func() { res.Requests = int(requests.Load()) }()
	res.Branch = req.Branch
	if res.Branch == "" {
		b, err := c.DefaultBranch(ctx)
		if err != nil {
			return res, fmt.Errorf("commit back: %w", err)
		}
		res.Branch = b
	}

	r := &round{c: c, req: req, branch: res.Branch, blobs: map[string]string{}, mine: map[string][]byte{}}
	wait := conflictBackoff()
	for res.Attempts < c.attempts {
		res.Attempts++
		err := r.run(ctx, &res)
		switch {
		case err == nil:
			return res, nil
		case errors.Is(err, errEmptyRepo):
			if err := c.startLedger(ctx, req); err != nil {
				return res, err
			}
		case errors.Is(err, errConflict):
			res.Conflicts++
			d, _ := wait.Next()
			if err := c.sleep(ctx, d); err != nil {
				return res, fmt.Errorf("commit to %s: %w", res.Branch, err)
			}
		default:
			return res, err
		}
	}
	return res, fmt.Errorf("commit to %s of %s: the branch kept moving under %d attempts; nothing was committed, re-run the job",
		res.Branch, c.Repository(), res.Attempts)
}

// conflictBackoff spreads writers that lost a race on the branch: full
// jitter over an exponential schedule from 250ms, capped at 8s.
func conflictBackoff() retry.Backoff {
	return retry.WithFullJitter(retry.WithCappedDuration(8*time.Second, retry.NewExponential(250*time.Millisecond)))
}

func (req CommitRequest) validate() error {
	switch {
	case req.Message == "":
		return errors.New("commit back: the commit message is empty")
	case req.Rechain == nil:
		return errors.New("commit back: no Rechain function given")
	case !validPath(req.LedgerPath):
		return fmt.Errorf("commit back: ledger path %q is not a clean repository-relative path", req.LedgerPath)
	case (req.AuthorName == "") != (req.AuthorEmail == ""):
		return errors.New("commit back: give both the author's name and email, or neither")
	}
	for p := range req.Files {
		if !validPath(p) {
			return fmt.Errorf("commit back: file path %q is not a clean repository-relative path", p)
		}
		if p == req.LedgerPath {
			return fmt.Errorf("commit back: %s is the ledger; it cannot also be one of the files", p)
		}
	}
	return nil
}

// validPath accepts clean slash-separated relative paths outside .git.
func validPath(p string) bool {
	return fs.ValidPath(p) && p != "." && p != ".git" && !strings.HasPrefix(p, ".git/") && !strings.Contains(p, "\\")
}

// round is the state one CommitBack keeps across its rounds.
type round struct {
	c      *Client
	req    CommitRequest
	branch string
	// blobs caches the blob shas of non-text files, by path.
	blobs map[string]string
	// mine holds the ledger of every commit this CommitBack created, by
	// sha, to recognise its own commit at the tip after an update whose
	// answer was lost.
	mine map[string][]byte
}

// tip is a branch's head commit and its tree.
type tip struct {
	sha, tree string
	// missing is true when the branch does not exist and tip is the
	// default branch's head.
	missing bool
}

func (r *round) run(ctx context.Context, res *CommitResult) error {
	c := r.c
	t, err := c.readTip(ctx, r.branch)
	if err != nil {
		return err
	}
	if ledger, ok := r.mine[t.sha]; ok && !t.missing {
		res.CommitSHA, res.Ledger = t.sha, ledger
		return nil
	}
	remote, err := c.readFile(ctx, r.req.LedgerPath, t.sha)
	if err != nil {
		return fmt.Errorf("commit to %s: %w", r.branch, err)
	}
	ledger, err := r.req.Rechain(remote)
	if err != nil {
		return fmt.Errorf("commit to %s: re-chain the ledger on %s at %.7s: %w", r.branch, r.req.LedgerPath, t.sha, err)
	}
	entries, err := r.entries(ctx, ledger)
	if err != nil {
		return err
	}
	tree, _, err := c.gh.Git.CreateTree(ctx, c.owner, c.repo, t.tree, entries)
	if err != nil {
		return fmt.Errorf("commit to %s: create the tree: %w", r.branch, err)
	}

	commit := t.sha
	if tree.GetSHA() != t.tree {
		nc := &gh.Commit{
			Message: gh.String(r.req.Message),
			Tree:    &gh.Tree{SHA: tree.SHA},
			Parents: []*gh.Commit{{SHA: gh.String(t.sha)}},
		}
		if r.req.AuthorName != "" {
			nc.Author = &gh.CommitAuthor{Name: gh.String(r.req.AuthorName), Email: gh.String(r.req.AuthorEmail)}
		}
		created, _, err := c.gh.Git.CreateCommit(ctx, c.owner, c.repo, nc, nil)
		if err != nil {
			return fmt.Errorf("commit to %s: create the commit: %w", r.branch, err)
		}
		commit = created.GetSHA()
		r.mine[commit] = ledger
	}

	ref := &gh.Reference{Ref: gh.String("refs/heads/" + r.branch), Object: &gh.GitObject{SHA: gh.String(commit)}}
	if t.missing {
		_, _, err = c.gh.Git.CreateRef(ctx, c.owner, c.repo, ref)
	} else if commit != t.sha {
		_, _, err = c.gh.Git.UpdateRef(ctx, c.owner, c.repo, ref, false)
	}
	if err != nil {
		if s := statusOf(err); s == http.StatusUnprocessableEntity || s == http.StatusConflict {
			return fmt.Errorf("%w: %s", errConflict, messageOf(err))
		}
		return fmt.Errorf("commit to %s: move the branch to %.7s: %w", r.branch, commit, err)
	}
	res.CommitSHA, res.Ledger, res.BranchCreated = commit, ledger, t.missing
	return nil
}

// entries lists the tree entries for the ledger and the files, in path
// order. Text goes inline; other bytes, which JSON would mangle, go
// through a blob created once per CommitBack.
func (r *round) entries(ctx context.Context, ledger []byte) ([]*gh.TreeEntry, error) {
	all := map[string][]byte{r.req.LedgerPath: ledger}
	for p, b := range r.req.Files {
		all[p] = b
	}
	paths := make([]string, 0, len(all))
	for p := range all {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	out := make([]*gh.TreeEntry, 0, len(paths))
	for _, p := range paths {
		e := &gh.TreeEntry{Path: gh.String(p), Mode: gh.String("100644"), Type: gh.String("blob")}
		content := all[p]
		if utf8.Valid(content) {
			e.Content = gh.String(string(content))
			out = append(out, e)
			continue
		}
		sha, ok := r.blobs[p]
		if !ok {
			c := r.c
			blob, _, err := c.gh.Git.CreateBlob(ctx, c.owner, c.repo, &gh.Blob{
				Content:  gh.String(base64.StdEncoding.EncodeToString(content)),
				Encoding: gh.String("base64"),
			})
			if err != nil {
				return nil, fmt.Errorf("commit to %s: store %s: %w", r.branch, p, err)
			}
			sha = blob.GetSHA()
			r.blobs[p] = sha
		}
		e.SHA = gh.String(sha)
		out = append(out, e)
	}
	return out, nil
}

// readTip reads the branch's head commit and its tree in one request (a
// single file of the commit's diff is asked for, to keep the answer small).
// A missing branch gives the default branch's head, marked missing.
func (c *Client) readTip(ctx context.Context, branch string) (tip, error) {
	t, err := c.headOf(ctx, branch)
	if err == nil || errors.Is(err, errEmptyRepo) {
		return t, err
	}
	if s := statusOf(err); s != http.StatusNotFound && s != http.StatusUnprocessableEntity {
		return tip{}, fmt.Errorf("commit to %s: read the branch: %w", branch, err)
	}
	def, derr := c.DefaultBranch(ctx)
	if derr != nil {
		return tip{}, fmt.Errorf("commit to %s: the branch does not exist and %w", branch, derr)
	}
	if def == branch {
		return tip{}, fmt.Errorf("commit to %s: the default branch has no commit: %w", branch, err)
	}
	t, err = c.headOf(ctx, def)
	if err != nil {
		if errors.Is(err, errEmptyRepo) {
			return t, err
		}
		return tip{}, fmt.Errorf("commit to %s: the branch does not exist, and reading the default branch %s failed: %w", branch, def, err)
	}
	t.missing = true
	return t, nil
}

func (c *Client) headOf(ctx context.Context, branch string) (tip, error) {
	rc, _, err := c.gh.Repositories.GetCommit(ctx, c.owner, c.repo, "heads/"+escapePath(branch), &gh.ListOptions{PerPage: 1})
	if err != nil {
		if statusOf(err) == http.StatusConflict {
			return tip{}, errEmptyRepo
		}
		return tip{}, err
	}
	if rc.GetSHA() == "" || rc.GetCommit().GetTree().GetSHA() == "" {
		return tip{}, fmt.Errorf("commit to %s: GitHub answered without the tip's commit or tree", branch)
	}
	return tip{sha: rc.GetSHA(), tree: rc.GetCommit().GetTree().GetSHA()}, nil
}

// startLedger gives an empty repository its first commit, an empty ledger
// on the default branch, through the contents API (the only write GitHub
// accepts there). A concurrent run that did it first answers 409 or 422,
// which is as good.
func (c *Client) startLedger(ctx context.Context, req CommitRequest) error {
	opts := &gh.RepositoryContentFileOptions{Message: gh.String(ledgerStartMessage), Content: []byte{}}
	if req.AuthorName != "" {
		opts.Author = &gh.CommitAuthor{Name: gh.String(req.AuthorName), Email: gh.String(req.AuthorEmail)}
	}
	_, _, err := c.gh.Repositories.CreateFile(ctx, c.owner, c.repo, escapePath(req.LedgerPath), opts)
	if s := statusOf(err); err != nil && s != http.StatusConflict && s != http.StatusUnprocessableEntity {
		return fmt.Errorf("commit back: give the empty repository %s its first commit: %w", c.Repository(), err)
	}
	return nil
}
