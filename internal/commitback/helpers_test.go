package commitback

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/optr-dev/optr/internal/gitdata"
	"github.com/optr-dev/optr/internal/gitdata/gitdatatest"
	"github.com/optr-dev/optr/internal/github"
	"github.com/optr-dev/optr/internal/github/githubtest"
	"github.com/optr-dev/optr/internal/ledger"
)

const (
	repo         = githubtest.DefaultRepo
	ledgerPath   = ".optr/ledger.jsonl"
	opGetCommit  = "GET /repos/{owner}/{repo}/commits/{ref}"
	opGetContent = "GET /repos/{owner}/{repo}/contents/{path}"
	opPutContent = "PUT /repos/{owner}/{repo}/contents/{path}"
	opTree       = "POST /repos/{owner}/{repo}/git/trees"
	opCommit     = "POST /repos/{owner}/{repo}/git/commits"
	opBlob       = "POST /repos/{owner}/{repo}/git/blobs"
	opUpdateRef  = "PATCH /repos/{owner}/{repo}/git/refs/{ref}"
	opCreateRef  = "POST /repos/{owner}/{repo}/git/refs"
)

var entryTime = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// draftFor is the ledger entry a test writes for run.
func draftFor(run string) ledger.Draft {
	return ledger.Draft{Kind: ledger.KindRun, Run: run, Workflow: "w", Time: entryTime, Fields: map[string]any{"selected": "a"}}
}

// draftsFor is what a run hands a commit-back: its entry.
func draftsFor(run string) []ledger.Draft { return []ledger.Draft{draftFor(run)} }

// draftsOf is drafts, as a request takes them.
func draftsOf(drafts ...ledger.Draft) []ledger.Draft { return drafts }

// chainOnto returns remote with entries for runs chained onto its head.
func chainOnto(t testing.TB, remote []byte, runs ...string) []byte {
	t.Helper()
	head, err := ledger.HeadOf(remote)
	if err != nil {
		t.Fatalf("the remote ledger: %v", err)
	}
	out := bytes.Clone(remote)
	for _, r := range runs {
		es, err := ledger.Chain(head, draftFor(r))
		if err != nil {
			t.Fatal(err)
		}
		line, _ := es[0].Line()
		out = append(out, line...)
		head = es[0].Head()
	}
	return out
}

// ledgerOf is a ledger of one entry per run, from the start.
func ledgerOf(t testing.TB, runs ...string) string {
	return string(chainOnto(t, nil, runs...))
}

// runsOf lists the run of each entry of a ledger.
func runsOf(t testing.TB, l string) []string {
	t.Helper()
	var runs []string
	if err := ledger.Scan(strings.NewReader(l), func(e ledger.Entry) error { runs = append(runs, e.Run); return nil }); err != nil {
		t.Fatalf("ledger %q: %v", l, err)
	}
	return runs
}

// headOf is a ledger's head.
func headOf(t testing.TB, l string) ledger.Head {
	t.Helper()
	h, err := ledger.HeadOf([]byte(l))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// remote is a repository a commit-back test runs against, with what the
// test needs to seed it and look at it: the fake GitHub over HTTP
// (overHTTP) or the in-memory store (inMemory).
type remote interface {
	gitdata.Store
	Commit(branch string, files map[string]string, message string) string
	Head(branch string) string
	Files(branch string) map[string]string
	File(branch, path string) (string, bool)
	// Log is the branch's history from its tip.
	Log(branch string) []logEntry
	// BeforeNextUpdate runs fn before the next ref update acts.
	BeforeNextUpdate(fn func())
	// Refuse makes the next update of branch fail as a protection rule
	// does, and returns the rule as the error must name it.
	Refuse(branch string) string
	// Count is how many calls of a gitdata.Store method were served
	// (not ReadFileAt and ListDir: see Reads and Listings).
	Count(op string) int
	// Reads and Listings count the reads of file p and the listings of
	// directory dir.
	Reads(p string) int
	Listings(dir string) int
	// Sent is the bytes the calls carried.
	Sent() int64
	// ResetCounts forgets the calls served so far.
	ResetCounts()
}

// logEntry is one commit of a remote's history.
type logEntry struct {
	SHA, Message, Author, Parent string
	// Merge is true for a commit with more than one parent.
	Merge bool
}

// forEachRemote runs test against a fresh repository of each kind, holding
// README.md on main (empty: none at all, default branch main).
func forEachRemote(t *testing.T, empty bool, test func(t *testing.T, r remote)) {
	t.Run("in memory", func(t *testing.T) {
		var opts []gitdatatest.Option
		if empty {
			opts = append(opts, gitdatatest.Empty())
		}
		test(t, inMemory{gitdatatest.New(opts...)})
	})
	t.Run("over HTTP", func(t *testing.T) {
		var opts []githubtest.Option
		if empty {
			opts = append(opts, githubtest.WithRepo(repo, "main"))
		}
		s := githubtest.NewServer(t, opts...)
		test(t, overHTTP{Client: newClient(t, s), s: s})
	})
}

type inMemory struct{ *gitdatatest.Repo }

func (m inMemory) Log(branch string) []logEntry {
	var out []logEntry
	for _, e := range m.Repo.Log(branch) {
		out = append(out, logEntry{SHA: e.SHA, Message: e.Message, Author: e.Author, Parent: e.Parent})
	}
	return out
}

func (m inMemory) BeforeNextUpdate(fn func()) { m.BeforeNext("UpdateRef", fn) }

func (m inMemory) Refuse(branch string) string {
	const rule = "Cannot update this protected ref."
	m.Protect(branch, rule)
	return rule
}

func (m inMemory) Count(op string) int { return m.Counts()[op] }

func (m inMemory) Reads(p string) int { return m.calls("ReadFileAt", p) }

func (m inMemory) Listings(dir string) int { return m.calls("ListDir", dir) }

func (m inMemory) calls(op, p string) int {
	n := 0
	for _, c := range m.Calls() {
		if c.Op == op && c.Path == p {
			n++
		}
	}
	return n
}

func (m inMemory) Sent() int64 {
	var n int64
	for _, c := range m.Calls() {
		n += c.Sent
	}
	return n
}

func (m inMemory) ResetCounts() { m.ResetCalls() }

type overHTTP struct {
	*github.Client
	s *githubtest.Server
}

func (h overHTTP) Commit(branch string, files map[string]string, message string) string {
	return h.s.Commit(repo, branch, files, message)
}
func (h overHTTP) Head(branch string) string               { return h.s.Head(repo, branch) }
func (h overHTTP) Files(branch string) map[string]string   { return h.s.Files(repo, branch) }
func (h overHTTP) File(branch, path string) (string, bool) { return h.s.File(repo, branch, path) }
func (h overHTTP) BeforeNextUpdate(fn func())              { h.s.BeforeNext(opUpdateRef, fn) }
func (h overHTTP) Refuse(branch string) string {
	h.s.FailNext(opUpdateRef, 1, githubtest.ProtectedBranch(branch))
	return "Protected branch update failed for refs/heads/" + branch + "."
}

// operations are the REST operations of the gitdata.Store methods.
var operations = map[string]string{
	"ReadTip":      opGetCommit,
	"ReadCommit":   "GET /repos/{owner}/{repo}/git/commits/{commit_sha}",
	"CreateBlob":   opBlob,
	"CreateTree":   opTree,
	"CreateCommit": opCommit,
	"CreateRef":    opCreateRef,
	"UpdateRef":    opUpdateRef,
	"CreateFile":   opPutContent,
}

func (h overHTTP) Count(op string) int {
	if operations[op] == "" {
		panic("overHTTP.Count: no operation for " + op)
	}
	return h.s.Count(operations[op])
}

func (h overHTTP) Reads(p string) int      { return h.contents(p) }
func (h overHTTP) Listings(dir string) int { return h.contents(dir) }

// contents counts the requests for contents/p: a file's or a directory's.
func (h overHTTP) contents(p string) int {
	n := 0
	for _, r := range h.s.Requests() {
		if r.Method == http.MethodGet && strings.HasSuffix(r.Path, "/contents/"+p) {
			n++
		}
	}
	return n
}

func (h overHTTP) Sent() int64 {
	var n int64
	for _, r := range h.s.Requests() {
		n += r.RequestBytes
	}
	return n
}

func (h overHTTP) ResetCounts() { h.s.ResetRequests() }

func (h overHTTP) Log(branch string) []logEntry {
	var out []logEntry
	for _, c := range h.s.Log(repo, branch) {
		e := logEntry{SHA: c.SHA, Message: c.Message, Author: c.Author, Merge: len(c.Parents) > 1}
		if len(c.Parents) > 0 {
			e.Parent = c.Parents[0]
		}
		out = append(out, e)
	}
	return out
}

// newClient returns a GitHub client for the fake server's default
// repository whose transport retries without waiting.
func newClient(t *testing.T, s *githubtest.Server, edit ...func(*github.Options)) *github.Client {
	t.Helper()
	opts := github.Options{
		APIURL:     s.URL(),
		Token:      "ghs_test",
		Repository: repo,
		HTTPClient: s.Client(),
		Sleep:      func(ctx context.Context, _ time.Duration) error { return ctx.Err() },
	}
	for _, e := range edit {
		e(&opts)
	}
	c, err := github.New(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// committer commits through store without waiting between rounds.
func committer(store gitdata.Store) *Committer {
	return &Committer{Store: store, Backoff: func(int, time.Duration) time.Duration { return 0 }}
}
