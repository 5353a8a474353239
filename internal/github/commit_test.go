package github

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/optr-dev/optr/internal/github/githubtest"
	"github.com/optr-dev/optr/internal/ledger"
)

const (
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

func TestCommitBackHappyPath(t *testing.T) {
	s := githubtest.NewServer(t)
	seed := ledgerOf(t, "1")
	s.Commit(repo, "main", map[string]string{ledgerPath: seed, "docs/keep.md": "keep\n"}, "before")
	before := s.Head(repo, "main")
	c := newClient(t, s, &sleeper{})
	s.ResetRequests()

	rc := &appendLine{line: "2"}
	res, err := c.CommitBack(t.Context(), CommitRequest{
		Branch:     "main",
		Message:    "optr: run 42-1",
		LedgerPath: ledgerPath,
		Rechain:    rc.rechain,
		Files: map[string][]byte{
			".optr/workflows/w/runs/42-1/result.md":            []byte("# result\n"),
			".optr/workflows/w/runs/42-1/agent-outputs/a.json": []byte(`{"agent":"a"}`),
		},
		AuthorName:  "optr",
		AuthorEmail: "optr@example.com",
	})
	if err != nil {
		t.Fatal(err)
	}
	wantLedger := ledgerOf(t, "1", "2")
	if diff := cmp.Diff(CommitResult{
		CommitSHA: s.Head(repo, "main"), Branch: "main", Ledger: []byte(wantLedger), Head: headOf(t, wantLedger), Attempts: 1, Requests: 5,
	}, res); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]int{opGetCommit: 1, opGetContent: 1, opTree: 1, opCommit: 1, opUpdateRef: 1}, s.Counts()); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	wantFiles := map[string]string{
		"README.md":                             "# octo-repo\n",
		"docs/keep.md":                          "keep\n",
		ledgerPath:                              wantLedger,
		".optr/workflows/w/runs/42-1/result.md": "# result\n",
		".optr/workflows/w/runs/42-1/agent-outputs/a.json": `{"agent":"a"}`,
	}
	if diff := cmp.Diff(wantFiles, s.Files(repo, "main")); diff != "" {
		t.Errorf("files after the commit (-want +got): base_tree must keep the others\n%s", diff)
	}
	log := s.Log(repo, "main")
	if log[0].Message != ledger.WithTrailers("optr: run 42-1", headOf(t, wantLedger)) || log[0].Author != "optr" || !slices.Equal(log[0].Parents, []string{before}) {
		t.Errorf("commit = %+v, want message, author optr and parent %s", log[0], before)
	}
	if diff := cmp.Diff([]string{seed}, rc.calls()); diff != "" {
		t.Errorf("Rechain was given (-want +got):\n%s", diff)
	}
	if st := c.Stats(); st.Requests != 5 || st.Retries != 0 {
		t.Errorf("Stats = %+v, want 5 requests and no retries", st)
	}
}

func TestCommitBackDefaultBranchAndNoLedger(t *testing.T) {
	s := githubtest.NewServer(t, githubtest.WithRepo(repo, "trunk"))
	s.Commit(repo, "trunk", map[string]string{"README.md": "hi\n"}, "init")
	c := newClient(t, s, &sleeper{})
	rc := &appendLine{line: "one"}
	res, err := c.CommitBack(t.Context(), CommitRequest{Message: "m", LedgerPath: ledgerPath, Rechain: rc.rechain})
	if err != nil {
		t.Fatal(err)
	}
	if res.Branch != "trunk" || res.Requests != 6 {
		t.Errorf("result = %+v, want branch trunk in 6 requests (5 + the repository once)", res)
	}
	if diff := cmp.Diff([]string{""}, rc.calls()); diff != "" {
		t.Errorf("Rechain was given (-want +got): an absent ledger is empty\n%s", diff)
	}
	res, err = c.CommitBack(t.Context(), CommitRequest{Message: "m", LedgerPath: ledgerPath, Rechain: (&appendLine{line: "two"}).rechain})
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests != 5 {
		t.Errorf("second commit-back took %d requests, want 5 (default branch kept)", res.Requests)
	}
	if got, _ := s.File(repo, "trunk", ledgerPath); got != ledgerOf(t, "one", "two") {
		t.Errorf("ledger = %q", got)
	}
}

func TestCommitBackCreatesMissingBranch(t *testing.T) {
	s := githubtest.NewServer(t)
	main := s.Head(repo, "main")
	c := newClient(t, s, &sleeper{})
	res, err := c.CommitBack(t.Context(), CommitRequest{
		Branch: "optr/ledger", Message: "m", LedgerPath: ledgerPath, Rechain: (&appendLine{line: "x"}).rechain,
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.BranchCreated || res.CommitSHA != s.Head(repo, "optr/ledger") {
		t.Errorf("result = %+v, want the branch created at the commit", res)
	}
	if s.Head(repo, "main") != main {
		t.Error("the default branch moved")
	}
	if diff := cmp.Diff(map[string]string{ledgerPath: ledgerOf(t, "x")}, s.Files(repo, "optr/ledger")); diff != "" {
		t.Errorf("files on the new branch (-want +got): an orphan holding only the datalake\n%s", diff)
	}
	if log := s.Log(repo, "optr/ledger"); len(log) != 1 || len(log[0].Parents) != 0 {
		t.Errorf("history of the new branch = %+v, want one root commit", log)
	}
	t.Logf("missing branch: %d requests: %v", res.Requests, s.Counts())
	if s.Count(opCreateRef) != 1 || s.Count(opUpdateRef) != 0 {
		t.Errorf("requests = %v, want one CreateRef and no UpdateRef", s.Counts())
	}
}

func TestCommitBackEmptyRepository(t *testing.T) {
	s := githubtest.NewServer(t, githubtest.WithRepo(repo, "main"))
	c := newClient(t, s, &sleeper{})
	rc := &appendLine{line: "first"}
	res, err := c.CommitBack(t.Context(), CommitRequest{
		Branch: "main", Message: "optr: run 1", LedgerPath: ledgerPath, Rechain: rc.rechain,
		Files: map[string][]byte{"out/a.txt": []byte("a")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{ledgerPath: ledgerOf(t, "first"), "out/a.txt": "a"}, s.Files(repo, "main")); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	var messages []string
	for _, l := range s.Log(repo, "main") {
		messages = append(messages, l.Message)
	}
	if diff := cmp.Diff([]string{ledger.WithTrailers("optr: run 1", res.Head), ledgerStartMessage}, messages); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
	t.Logf("empty repository: %d requests in %d rounds: %v", res.Requests, res.Attempts, s.Counts())
	if res.Conflicts != 0 || s.Count(opPutContent) != 1 {
		t.Errorf("result = %+v, requests %v", res, s.Counts())
	}
}

func TestCommitBackEmptyRepositoryOtherBranch(t *testing.T) {
	s := githubtest.NewServer(t, githubtest.WithRepo(repo, "main"))
	c := newClient(t, s, &sleeper{})
	res, err := c.CommitBack(t.Context(), CommitRequest{
		Branch: "ledger", Message: "m", LedgerPath: ledgerPath, Rechain: (&appendLine{line: "x"}).rechain,
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := s.File(repo, "ledger", ledgerPath); got != ledgerOf(t, "x") || !res.BranchCreated {
		t.Errorf("ledger on branch = %q, result %+v", got, res)
	}
}

// TestCommitBackConflict moves the branch between the client's read and its
// update: the update answers 422 and the next round re-chains on the new
// remote ledger.
func TestCommitBackConflict(t *testing.T) {
	s := githubtest.NewServer(t)
	s.Commit(repo, "main", map[string]string{ledgerPath: ledgerOf(t, "a")}, "a")
	s.BeforeNext(opUpdateRef, func() {
		s.Commit(repo, "main", map[string]string{ledgerPath: ledgerOf(t, "a", "b"), "other.txt": "from b"}, "b")
	})
	sl := &sleeper{}
	c := newClient(t, s, sl)
	rc := &appendLine{line: "c"}
	res, err := c.CommitBack(t.Context(), CommitRequest{Branch: "main", Message: "c", LedgerPath: ledgerPath, Rechain: rc.rechain})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{ledgerOf(t, "a"), ledgerOf(t, "a", "b")}, rc.calls()); diff != "" {
		t.Errorf("Rechain was given (-want +got):\n%s", diff)
	}
	if res.Attempts != 2 || res.Conflicts != 1 || string(res.Ledger) != ledgerOf(t, "a", "b", "c") || len(sl.recorded()) != 1 {
		t.Errorf("result = %+v, waits %v; want 2 attempts, 1 conflict, 1 backoff", res, sl.recorded())
	}
	if got, _ := s.File(repo, "main", "other.txt"); got != "from b" {
		t.Error("the other writer's file was lost")
	}
	statuses := map[int]int{}
	for _, r := range s.Requests() {
		if r.Operation == opUpdateRef {
			statuses[r.Status]++
		}
	}
	if diff := cmp.Diff(map[int]int{422: 1, 200: 1}, statuses); diff != "" {
		t.Errorf("UpdateRef answers (-want +got):\n%s", diff)
	}
}

func TestCommitBackGivesUp(t *testing.T) {
	s := githubtest.NewServer(t)
	c := newClient(t, s, &sleeper{}, func(o *Options) { o.CommitAttempts = 3 })
	for i := range 3 {
		s.BeforeNext(opUpdateRef, func() { s.Commit(repo, "main", map[string]string{"x": fmt.Sprint(i)}, "race") })
	}
	res, err := c.CommitBack(t.Context(), CommitRequest{Branch: "main", Message: "m", LedgerPath: ledgerPath, Rechain: (&appendLine{line: "x"}).rechain})
	if err == nil || !strings.Contains(err.Error(), "re-run") {
		t.Errorf("error = %v, want a give-up that says to re-run", err)
	}
	if res.Attempts != 3 || res.Conflicts != 3 {
		t.Errorf("result = %+v, want 3 attempts, 3 conflicts", res)
	}
}

// TestCommitBackConcurrent runs 16 commit-backs on one branch at once, each
// from its own client as separate jobs would: every line lands exactly
// once, on a linear history.
func TestCommitBackConcurrent(t *testing.T) {
	const n = 16
	s := githubtest.NewServer(t)
	start := s.Head(repo, "main")
	// Transient faults on top of the races: the transport absorbs them.
	s.FailNext(opTree, 3, githubtest.BadGateway())
	s.FailNext(opGetCommit, 2, githubtest.TooManyRequests(time.Second))
	var wg sync.WaitGroup
	results := make([]CommitResult, n)
	errs := make([]error, n)
	clients := make([]*Client, n)
	for i := range n {
		clients[i] = newClient(t, s, &sleeper{scale: 100})
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = clients[i].CommitBack(t.Context(), CommitRequest{
				Branch: "main", Message: fmt.Sprint("run ", i), LedgerPath: ledgerPath,
				Rechain: (&appendLine{line: fmt.Sprint("line ", i)}).rechain,
				Files:   map[string][]byte{fmt.Sprintf("runs/%d.txt", i): []byte("x")},
			})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("commit-back %d: %v", i, err)
		}
	}
	final, _ := s.File(repo, "main", ledgerPath)
	lines := runsOf(t, final)
	var want []string
	for i := range n {
		want = append(want, fmt.Sprint("line ", i))
	}
	slices.Sort(want)
	if diff := cmp.Diff(want, slices.Sorted(slices.Values(lines))); diff != "" {
		t.Errorf("ledger lines (-want +got): each exactly once\n%s", diff)
	}
	log := s.Log(repo, "main")
	if len(log) != n+1 || log[n].SHA != start {
		t.Fatalf("history has %d commits, want %d on top of the start", len(log), n)
	}
	for _, l := range log {
		if len(l.Parents) > 1 {
			t.Errorf("merge commit %s: history must be linear", l.SHA)
		}
	}
	// Each result's ledger is what its commit holds, a prefix of the final one.
	for i, r := range results {
		if !strings.HasPrefix(final, string(r.Ledger)) || !slices.Contains(runsOf(t, string(r.Ledger)), fmt.Sprint("line ", i)) {
			t.Errorf("result %d ledger %q is not a prefix of the final ledger holding its line", i, r.Ledger)
		}
	}
	files := s.Files(repo, "main")
	for i := range n {
		if _, ok := files[fmt.Sprintf("runs/%d.txt", i)]; !ok {
			t.Errorf("runs/%d.txt lost", i)
		}
	}
	attempts, conflicts, requests, retries, most := 0, 0, 0, 0, 0
	for i, r := range results {
		most = max(most, r.Attempts)
		attempts += r.Attempts
		conflicts += r.Conflicts
		requests += r.Requests
		retries += clients[i].Stats().Retries
	}
	t.Logf("16 concurrent commit-backs: %d rounds (at most %d for one), %d conflicts (422), %d requests, %d transport retries; UpdateRef answers: %v",
		attempts, most, conflicts, requests, retries, updateRefStatuses(s))
	if retries != 5 {
		t.Errorf("%d transport retries, want the 5 injected faults retried", retries)
	}
	if conflicts == 0 {
		t.Error("no conflicts: the test did not race")
	}
}

func updateRefStatuses(s *githubtest.Server) map[int]int {
	out := map[int]int{}
	for _, r := range s.Requests() {
		if r.Operation == opUpdateRef {
			out[r.Status]++
		}
	}
	return out
}

func TestCommitBackBinaryAndLargeFiles(t *testing.T) {
	s := githubtest.NewServer(t)
	var buf bytes.Buffer
	if _, err := ledger.WriteSynthetic(&buf, 1500); err != nil { // a 1.5 MB ledger
		t.Fatal(err)
	}
	big := buf.String()
	s.Commit(repo, "main", map[string]string{ledgerPath: big}, "big")
	c := newClient(t, s, &sleeper{})
	binary := []byte{0xff, 0x00, 0xfe, 'x'}
	s.ResetRequests()
	res, err := c.CommitBack(t.Context(), CommitRequest{
		Branch: "main", Message: "m", LedgerPath: ledgerPath, Rechain: (&appendLine{line: "end"}).rechain,
		Files: map[string][]byte{"bin/data": binary},
	})
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Ledger) != string(chainOnto(t, []byte(big), "end")) {
		t.Errorf("ledger has %d bytes, want the 1.5 MB remote plus one line", len(res.Ledger))
	}
	if got, _ := s.File(repo, "main", "bin/data"); got != string(binary) {
		t.Errorf("bin/data = %q, want %q byte for byte", got, binary)
	}
	if diff := cmp.Diff(map[string]int{opGetCommit: 1, opGetContent: 1, opBlob: 1, opTree: 1, opCommit: 1, opUpdateRef: 1}, s.Counts()); diff != "" {
		t.Errorf("requests (-want +got): one raw read for the large ledger, one blob for the binary\n%s", diff)
	}
}

func TestCommitBackNothingChanged(t *testing.T) {
	s := githubtest.NewServer(t)
	s.Commit(repo, "main", map[string]string{ledgerPath: ledgerOf(t, "a")}, "a")
	tip := s.Head(repo, "main")
	c := newClient(t, s, &sleeper{})
	same := func(remote []byte) ([]byte, error) { return remote, nil }
	res, err := c.CommitBack(t.Context(), CommitRequest{Branch: "main", Message: "m", LedgerPath: ledgerPath, Rechain: same})
	if err != nil {
		t.Fatal(err)
	}
	if res.CommitSHA != tip || s.Head(repo, "main") != tip || s.Count(opCommit) != 0 {
		t.Errorf("result %+v, head %s: want the tip %s and no new commit", res, s.Head(repo, "main"), tip)
	}
}

// TestCommitBackLostUpdate: GitHub moves the branch but the answer is a
// 502; the transport resends the same update, which is a fast-forward to
// itself, and the ledger line lands once.
func TestCommitBackLostUpdate(t *testing.T) {
	s := githubtest.NewServer(t)
	s.FailNext(opUpdateRef, 1, githubtest.Lost(githubtest.BadGateway()))
	c := newClient(t, s, &sleeper{})
	res, err := c.CommitBack(t.Context(), CommitRequest{Branch: "main", Message: "m", LedgerPath: ledgerPath, Rechain: (&appendLine{line: "once"}).rechain})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := s.File(repo, "main", ledgerPath); got != ledgerOf(t, "once") || res.CommitSHA != s.Head(repo, "main") {
		t.Errorf("ledger %q, result %+v", got, res)
	}
}

func TestCommitBackRejects(t *testing.T) {
	ok := func(remote []byte) ([]byte, error) { return remote, nil }
	tests := []struct {
		name string
		req  CommitRequest
		want string
	}{
		{"no message", CommitRequest{LedgerPath: ledgerPath, Rechain: ok}, "message"},
		{"no rechain", CommitRequest{Message: "m", LedgerPath: ledgerPath}, "Rechain"},
		{"absolute ledger", CommitRequest{Message: "m", LedgerPath: "/etc/ledger", Rechain: ok}, "ledger path"},
		{"escaping ledger", CommitRequest{Message: "m", LedgerPath: "../ledger", Rechain: ok}, "ledger path"},
		{"into .git", CommitRequest{Message: "m", LedgerPath: ledgerPath, Rechain: ok, Files: map[string][]byte{".git/config": nil}}, "file path"},
		{"ledger twice", CommitRequest{Message: "m", LedgerPath: ledgerPath, Rechain: ok, Files: map[string][]byte{ledgerPath: nil}}, "ledger"},
		{"half an author", CommitRequest{Message: "m", LedgerPath: ledgerPath, Rechain: ok, AuthorName: "x"}, "author"},
	}
	s := githubtest.NewServer(t)
	c := newClient(t, s, &sleeper{})
	for _, tc := range tests {
		_, err := c.CommitBack(t.Context(), tc.req)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error = %v, want one about %q", tc.name, err, tc.want)
		}
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("%d requests for invalid commit-backs, want 0", n)
	}
	failing := func([]byte) ([]byte, error) { return nil, fmt.Errorf("broken chain at line 3") }
	_, err := c.CommitBack(t.Context(), CommitRequest{Branch: "main", Message: "m", LedgerPath: ledgerPath, Rechain: failing})
	if err == nil || !strings.Contains(err.Error(), "broken chain at line 3") {
		t.Errorf("Rechain's error = %v, want it passed on", err)
	}
	if s.Count(opTree) != 0 {
		t.Error("a tree was created after Rechain failed")
	}
}

func TestCommitBackLedgerIsADirectory(t *testing.T) {
	s := githubtest.NewServer(t)
	s.Commit(repo, "main", map[string]string{".optr/ledger.jsonl/x": "oops"}, "dir")
	c := newClient(t, s, &sleeper{})
	res, err := c.CommitBack(t.Context(), CommitRequest{Branch: "main", Message: "m", LedgerPath: ledgerPath, Rechain: (&appendLine{line: "x"}).rechain})
	if err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("error = %v, want one saying the ledger path is a directory", err)
	}
	if res.Requests != 2 {
		t.Errorf("Requests = %d, want 2 counted on failure too", res.Requests)
	}
}
