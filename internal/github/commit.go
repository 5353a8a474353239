package github

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"path"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	gh "github.com/google/go-github/v60/github"
	"github.com/sethvargo/go-retry"

	"github.com/optr-dev/optr/internal/ledger"
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
	// Paths are other repository-relative paths to write from local files
	// (repository path → local path), for files too large to hold in
	// memory: each is stored once per CommitBack as a blob, streamed from
	// its file (CreateBlobFromFile), and the tree names it by sha.
	Paths map[string]string
	// AuthorName and AuthorEmail set the commit's author; empty means the
	// token's identity (github-actions[bot] with GITHUB_TOKEN).
	AuthorName, AuthorEmail string
	// VerifyPublished makes CommitBack verify before it writes (DESIGN
	// §4.13): the branch's ledger must still hold the head this repository
	// last published in the Optr-Ledger trailers of its commits (the
	// latest commit on the branch that has them) before Rechain is called;
	// if it does not, CommitBack fails with a *RewrittenLedgerError and
	// writes nothing.
	VerifyPublished bool
	// Known, when not nil, is the content the caller believes the branch's
	// ledger file (the active segment) has, e.g. what it read at the start
	// of the run. When the file's git blob sha at the tip is Known's,
	// CommitBack does not download it again: a few hundred bytes of
	// directory listing instead of up to 8 MiB.
	Known []byte
	// Published, when not zero, is a head published elsewhere (e.g. in the
	// last progress comment or ledger-checkpoint output) that the branch's
	// ledger must hold, checked like the trailers' head.
	Published ledger.Head
}

// CommitResult is what CommitBack committed.
type CommitResult struct {
	// CommitSHA is the commit that holds the ledger: the new commit, or the
	// tip when nothing changed.
	CommitSHA string
	// Branch is the branch committed to.
	Branch string
	// Ledger is exactly the content of the active ledger segment that was
	// committed (at LedgerPath).
	Ledger []byte
	// Head is the committed ledger's head, as the commit's Optr-Ledger
	// trailers say.
	Head ledger.Head
	// Sealed is set when this commit sealed the remote active segment
	// (DESIGN §4.3): it moved, unchanged, to Sealed.Path, and Ledger starts
	// the new active segment. The caller writes it into its workspace too.
	Sealed *SealedSegment
	// LastTree is the tree file of the newest sealed segment on the branch
	// (ledger.d/<first>-<last>.merkle), nil when the ledger has no sealed
	// segment or that file is missing: with Ledger, what
	// ledger.TreeHeadOf needs for the committed head.
	LastTree []byte
	// BranchCreated is true when the branch did not exist before.
	BranchCreated bool
	// Attempts counts read-rechain-update rounds; Conflicts counts those
	// lost to another writer moving the branch.
	Attempts, Conflicts int
	// Requests is the number of API requests this commit-back sent,
	// retries included.
	Requests int
}

// SealedSegment is a ledger segment a commit-back sealed.
type SealedSegment struct {
	// Path is its repository-relative path, ledger.d/<first>-<last>.jsonl
	// beside the ledger.
	Path string
	// Content is its content: the active segment as it was.
	Content []byte
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
//  1. GET commits/heads/{branch}: the tip, its tree and its message in one
//     request;
//  2. GET contents/{ledger}?ref={tip}, raw: the active segment only, at
//     most 8 MiB however long the ledger is (DESIGN §4.3);
//  3. with VerifyPublished, check that it still holds the head of the
//     latest Optr-Ledger trailers (no request when the tip has them);
//  4. Rechain(remote active segment);
//  5. POST git/trees with base_tree = the tip's tree, so every other file
//     is kept; when the new segment would pass ledger.SegmentLimit the
//     remote one is sealed into ledger.d/ by its blob sha (no upload),
//     with its tree file beside it (sealedTree), and the new entries start
//     a new active segment;
//  6. POST git/commits with the tip as parent, the message ending with the
//     Optr-Ledger-Size and Optr-Ledger-Head trailers of the new head;
//  7. PATCH git/refs/heads/{branch} with force=false: compare-and-swap.
//
// That is five requests when nothing races. When another writer moved the
// branch in between, GitHub answers 422 "not a fast forward" and CommitBack
// backs off with jitter and starts again from 1, so Rechain chains onto the
// new remote entries and nothing is lost or forked; it gives up after
// Options.CommitAttempts rounds. A 422 from a branch protection rule or
// ruleset is not a race: it fails at once with a *ProtectedBranchError. A
// missing branch is created as an orphan holding only the ledger and the
// files (POST git/trees without base_tree, a commit without parents, POST
// git/refs; 422 "already exists" when a concurrent run created it first,
// which starts another round). An empty repository refuses the Git Data
// API (409), so CommitBack first gives it a root commit holding an empty
// ledger through the contents API, on the default branch.
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

	r := &round{c: c, req: req, branch: res.Branch, blobs: map[string]string{}, mine: map[string]outcome{}}
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
	for p := range req.Paths {
		if _, dup := req.Files[p]; dup {
			return fmt.Errorf("commit back: %s is given both as content and as a local file", p)
		}
	}
	for p := range req.paths() {
		if !validPath(p) {
			return fmt.Errorf("commit back: file path %q is not a clean repository-relative path", p)
		}
		if p == req.LedgerPath {
			return fmt.Errorf("commit back: %s is the ledger; it cannot also be one of the files", p)
		}
	}
	return nil
}

// paths yields the repository path of every file, given by content or by
// local path.
func (req CommitRequest) paths() map[string]bool {
	out := make(map[string]bool, len(req.Files)+len(req.Paths))
	for p := range req.Files {
		out[p] = true
	}
	for p := range req.Paths {
		out[p] = true
	}
	return out
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
	// mine holds what every commit this CommitBack created holds, by sha,
	// to recognise its own commit at the tip after an update whose answer
	// was lost.
	mine map[string]outcome
}

// tip is a branch's head commit, its tree and message.
type tip struct {
	sha, tree, message string
	// parent is the tip's first parent, "" for a root commit.
	parent string
	// missing is true when the branch does not exist; the other fields
	// are then empty.
	missing bool
}

func (r *round) run(ctx context.Context, res *CommitResult) error {
	c := r.c
	t, err := c.readTip(ctx, r.branch)
	if err != nil {
		return err
	}
	if done, ok := r.mine[t.sha]; ok && !t.missing {
		res.CommitSHA, res.Ledger, res.Head, res.Sealed = t.sha, done.ledger, done.head, done.sealed
		res.LastTree = done.lastTree
		return nil
	}
	var remote []byte
	if !t.missing {
		if remote, err = r.readLedger(ctx, t); err != nil {
			return fmt.Errorf("commit to %s: %w", r.branch, err)
		}
		if err := r.checkPublished(ctx, t, remote); err != nil {
			return err
		}
	}
	next, err := r.req.Rechain(remote)
	if err != nil {
		return fmt.Errorf("commit to %s: re-chain the ledger on %s at %.7s: %w", r.branch, r.req.LedgerPath, t.sha, err)
	}
	out, err := r.segment(remote, next)
	if err != nil {
		return err
	}
	if out.sealed != nil {
		out.sealedTree = r.sealedTree(ctx, t, out.sealed)
	}
	out.lastTree, out.lastTreePath = r.lastTree(ctx, t, out)
	entries, err := r.entries(ctx, out)
	if err != nil {
		return err
	}
	tree, _, err := c.gh.Git.CreateTree(ctx, c.owner, c.repo, t.tree, entries)
	if err != nil {
		if statusOf(err) == http.StatusConflict {
			return errEmptyRepo
		}
		return fmt.Errorf("commit to %s: create the tree: %w", r.branch, err)
	}

	commit := t.sha
	if t.missing || tree.GetSHA() != t.tree {
		nc := &gh.Commit{
			Message: gh.String(ledger.WithTrailers(r.req.Message, out.head) + ledger.TreeHintLine(out.lastTreePath)),
			Tree:    &gh.Tree{SHA: tree.SHA},
		}
		if !t.missing {
			nc.Parents = []*gh.Commit{{SHA: gh.String(t.sha)}}
		}
		if r.req.AuthorName != "" {
			nc.Author = &gh.CommitAuthor{Name: gh.String(r.req.AuthorName), Email: gh.String(r.req.AuthorEmail)}
		}
		created, _, err := c.gh.Git.CreateCommit(ctx, c.owner, c.repo, nc, nil)
		if err != nil {
			return fmt.Errorf("commit to %s: create the commit: %w", r.branch, err)
		}
		commit = created.GetSHA()
		r.mine[commit] = out
	}

	ref := &gh.Reference{Ref: gh.String("refs/heads/" + r.branch), Object: &gh.GitObject{SHA: gh.String(commit)}}
	if t.missing {
		_, _, err = c.gh.Git.CreateRef(ctx, c.owner, c.repo, ref)
	} else if commit != t.sha {
		_, _, err = c.gh.Git.UpdateRef(ctx, c.owner, c.repo, ref, false)
	}
	if err != nil {
		return r.refused(err, commit)
	}
	res.CommitSHA, res.Ledger, res.Head, res.Sealed, res.BranchCreated = commit, out.ledger, out.head, out.sealed, t.missing
	res.LastTree = out.lastTree
	return nil
}

// lastTree is the tree file of the newest sealed segment once out is
// committed, and its path: the one this commit sealed, else the one at t
// that ends just before the active segment (treeEndingAt; the commit
// carries its hint on). Nil and "" when the ledger has no sealed segment
// or the file is missing.
func (r *round) lastTree(ctx context.Context, t tip, out outcome) ([]byte, string) {
	if out.sealed != nil {
		if out.sealedTree == nil {
			return nil, ""
		}
		return out.sealedTree, ledger.Segment{Path: out.sealed.Path}.TreePath()
	}
	first, err := ledger.FirstSeq(out.ledger)
	if err != nil || first <= 1 || t.missing {
		return nil, ""
	}
	return r.treeEndingAt(ctx, t, first-1)
}

// readLedger reads the ledger file at the tip: Known when the tip's blob
// is the same, else the raw file.
func (r *round) readLedger(ctx context.Context, t tip) ([]byte, error) {
	c := r.c
	if r.req.Known != nil {
		dir, name := path.Split(r.req.LedgerPath)
		_, list, _, err := c.gh.Repositories.GetContents(ctx, c.owner, c.repo, escapePath(strings.TrimSuffix(dir, "/")), &gh.RepositoryContentGetOptions{Ref: t.sha})
		if err == nil {
			for _, e := range list {
				if e.GetName() == name && e.GetSHA() == gitBlobSHA(r.req.Known) {
					return r.req.Known, nil
				}
			}
		}
		// Anything else (changed, absent, an error) reads the file itself.
	}
	return c.readFile(ctx, r.req.LedgerPath, t.sha)
}

// refused classifies a failed ref update: a protection rule or ruleset
// fails at once; a ref that moved (or was created meanwhile) is a race.
func (r *round) refused(err error, commit string) error {
	s, msg := statusOf(err), messageOf(err)
	switch {
	case s == http.StatusUnprocessableEntity && protectionRefusal(msg):
		return &ProtectedBranchError{Branch: r.branch, Rule: oneLine(msg)}
	case s == http.StatusUnprocessableEntity || s == http.StatusConflict:
		return fmt.Errorf("%w: %s", errConflict, msg)
	case s == http.StatusForbidden && protectionRefusal(msg):
		return &ProtectedBranchError{Branch: r.branch, Rule: oneLine(msg)}
	}
	return fmt.Errorf("commit to %s: move the branch to %.7s: %w", r.branch, commit, err)
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

// outcome is what one round commits for the ledger.
type outcome struct {
	ledger []byte // the active segment
	head   ledger.Head
	sealed *SealedSegment
	// sealedSHA is the sealed segment's blob sha: the remote active
	// segment's, which GitHub already has.
	sealedSHA string
	// sealedTree is the sealed segment's tree file, committed beside it
	// (nil: none).
	sealedTree []byte
	// lastTree is the newest sealed segment's tree file once committed,
	// lastTreePath its path (see round.lastTree); nil and "" when none.
	lastTree     []byte
	lastTreePath string
}

// segment decides what the ledger files of the commit are: next as the
// active segment, or, when next would pass ledger.SegmentLimit and extends
// remote, remote sealed into ledger.d/ and the new entries as a new active
// segment.
func (r *round) segment(remote, next []byte) (outcome, error) {
	out := outcome{ledger: next}
	if len(remote) > 0 && len(next) > ledger.SegmentLimit && bytes.HasPrefix(next, remote) && len(next) > len(remote) {
		first, err := ledger.FirstSeq(remote)
		if err != nil {
			return out, fmt.Errorf("commit to %s: seal %s: %w", r.branch, r.req.LedgerPath, err)
		}
		last, err := ledger.HeadOf(remote)
		if err != nil {
			return out, fmt.Errorf("commit to %s: seal %s: %w", r.branch, r.req.LedgerPath, err)
		}
		out.sealed = &SealedSegment{
			Path:    path.Join(ledger.SegmentDir(r.req.LedgerPath), ledger.SegmentName(first, last.Seq)),
			Content: remote,
		}
		out.sealedSHA = gitBlobSHA(remote)
		out.ledger = next[len(remote):]
	}
	head, err := ledger.HeadOf(out.ledger)
	if err != nil {
		return out, fmt.Errorf("commit to %s: the ledger to commit has a bad tail: %w", r.branch, err)
	}
	if len(out.ledger) == 0 && len(remote) > 0 {
		// Nothing of it left active (Rechain returned nothing): the head is
		// the remote's.
		if head, err = ledger.HeadOf(remote); err != nil {
			return out, fmt.Errorf("commit to %s: the remote ledger has a bad tail: %w", r.branch, err)
		}
	}
	out.head = head
	return out, nil
}

// gitBlobSHA is the sha git gives a blob with this content.
func gitBlobSHA(content []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(content))
	h.Write(content)
	return hex.EncodeToString(h.Sum(nil))
}

// entries lists the tree entries for the ledger and the files, in path
// order. Text goes inline; other bytes, which JSON would mangle, and files
// given by local path go through a blob created once per CommitBack.
func (r *round) entries(ctx context.Context, out outcome) ([]*gh.TreeEntry, error) {
	all := map[string][]byte{r.req.LedgerPath: out.ledger}
	if out.sealed != nil {
		all[out.sealed.Path] = nil // by sha, below
		if out.sealedTree != nil {
			all[ledger.Segment{Path: out.sealed.Path}.TreePath()] = out.sealedTree
		}
	}
	for p, b := range r.req.Files {
		all[p] = b
	}
	for p := range r.req.Paths {
		all[p] = nil // by sha, below
	}
	paths := make([]string, 0, len(all))
	for p := range all {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	list := make([]*gh.TreeEntry, 0, len(paths))
	for _, p := range paths {
		e := &gh.TreeEntry{Path: gh.String(p), Mode: gh.String("100644"), Type: gh.String("blob")}
		if out.sealed != nil && p == out.sealed.Path {
			e.SHA = gh.String(out.sealedSHA)
			list = append(list, e)
			continue
		}
		if local, ok := r.req.Paths[p]; ok {
			sha, ok := r.blobs[p]
			if !ok {
				var err error
				if sha, err = r.c.CreateBlobFromFile(ctx, local); err != nil {
					return nil, fmt.Errorf("commit to %s: store %s: %w", r.branch, p, err)
				}
				r.blobs[p] = sha
			}
			e.SHA = gh.String(sha)
			list = append(list, e)
			continue
		}
		content := all[p]
		if utf8.Valid(content) {
			e.Content = gh.String(string(content))
			list = append(list, e)
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
		list = append(list, e)
	}
	return list, nil
}

// readTip reads the branch's head commit, its tree and its message in one
// request (a single file of the commit's diff is asked for, to keep the
// answer small). A missing branch gives a tip marked missing.
func (c *Client) readTip(ctx context.Context, branch string) (tip, error) {
	t, err := c.headOf(ctx, branch)
	if err == nil || errors.Is(err, errEmptyRepo) {
		return t, err
	}
	if s := statusOf(err); s != http.StatusNotFound && s != http.StatusUnprocessableEntity {
		return tip{}, fmt.Errorf("commit to %s: read the branch: %w", branch, err)
	}
	return tip{missing: true}, nil
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
	t := tip{sha: rc.GetSHA(), tree: rc.GetCommit().GetTree().GetSHA(), message: rc.GetCommit().GetMessage()}
	if len(rc.Parents) > 0 {
		t.parent = rc.Parents[0].GetSHA()
	}
	return t, nil
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
