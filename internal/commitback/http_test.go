package commitback

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/github"
	"github.com/optr-dev/optr/internal/github/githubtest"
	"github.com/optr-dev/optr/internal/ledger"
)

// Over GitHub's API a commit-back is five requests: the tip, the raw
// ledger, the tree, the commit and the compare-and-swap; a binary file
// adds its blob.
func TestCommitRequestsOverHTTP(t *testing.T) {
	t.Parallel()
	s := githubtest.NewServer(t)
	var buf bytes.Buffer
	if _, err := ledger.WriteSynthetic(&buf, 1500); err != nil { // a 1.5 MB ledger
		t.Fatal(err)
	}
	big := buf.String()
	s.Commit(repo, "main", map[string]string{ledgerPath: big}, "big")
	c := newClient(t, s)
	s.ResetRequests()
	res, err := Commit(t.Context(), c, Request{Branch: "main", Message: "m", LedgerPath: ledgerPath, Drafts: draftsFor("text"),
		Files: map[string][]byte{"out/result.md": []byte("# result\n")}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]int{opGetCommit: 1, opGetContent: 1, opTree: 1, opCommit: 1, opUpdateRef: 1}, s.Counts()); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	if st := c.Stats(); st.Requests != 5 || st.Retries != 0 || res.Requests != 5 {
		t.Errorf("Stats = %+v, result %d requests; want 5 and no retries", st, res.Requests)
	}
	if string(res.Ledger) != string(chainOnto(t, []byte(big), "text")) {
		t.Errorf("ledger has %d bytes, want the 1.5 MB remote plus one line", len(res.Ledger))
	}

	binary := []byte{0xff, 0x00, 0xfe, 'x'}
	s.ResetRequests()
	if _, err := Commit(t.Context(), c, Request{Branch: "main", Message: "m", LedgerPath: ledgerPath, Drafts: draftsFor("binary"),
		Files: map[string][]byte{"bin/data": binary}}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.File(repo, "main", "bin/data"); got != string(binary) {
		t.Errorf("bin/data = %q, want %q byte for byte", got, binary)
	}
	if diff := cmp.Diff(map[string]int{opGetCommit: 1, opGetContent: 1, opBlob: 1, opTree: 1, opCommit: 1, opUpdateRef: 1}, s.Counts()); diff != "" {
		t.Errorf("requests (-want +got): one raw read for the large ledger, one blob for the binary\n%s", diff)
	}
}

// GitHub moves the branch but the answer is a 502; the transport resends
// the same update, which is a fast-forward to itself, and the ledger line
// lands once.
func TestCommitLostUpdate(t *testing.T) {
	t.Parallel()
	s := githubtest.NewServer(t)
	s.FailNext(opUpdateRef, 1, githubtest.Lost(githubtest.BadGateway()))
	res, err := Commit(t.Context(), newClient(t, s), Request{Branch: "main", Message: "m", LedgerPath: ledgerPath, Drafts: draftsFor("once")})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := s.File(repo, "main", ledgerPath); got != ledgerOf(t, "once") || res.CommitSHA != s.Head(repo, "main") {
		t.Errorf("ledger %q, result %+v", got, res)
	}
}

// A file given by local path is stored once as a blob, streamed from the
// file, however many rounds the commit-back takes and even when the first
// upload fails; the branch holds its exact bytes.
func TestCommitStreamsLocalFilesAsBlobs(t *testing.T) {
	t.Parallel()
	s := githubtest.NewServer(t)
	s.Commit(repo, "main", map[string]string{ledgerPath: ledgerOf(t, "a")}, "a")
	content := bytes.Repeat([]byte("{\"output\":\"caf\xe9 <big> \\u0026\"}\n"), 100000) // ~3.2 MB, not UTF-8
	local := filepath.Join(t.TempDir(), "a.json")
	if err := os.WriteFile(local, content, 0o644); err != nil {
		t.Fatal(err)
	}
	s.FailNext(opBlob, 1, githubtest.BadGateway())
	s.BeforeNext(opUpdateRef, func() {
		s.Commit(repo, "main", map[string]string{ledgerPath: ledgerOf(t, "a", "b")}, "b")
	})
	c := newClient(t, s)
	s.ResetRequests()
	const rel = ".optr/workflows/w/runs/1-1/agent-outputs/a.json"
	res, err := committer(c).Commit(t.Context(), Request{
		Branch: "main", Message: "m", LedgerPath: ledgerPath, Drafts: draftsFor("c"),
		Files: map[string][]byte{".optr/workflows/w/runs/1-1/result.md": []byte("small\n")},
		Paths: map[string]string{rel: local},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Attempts != 2 {
		t.Errorf("%d attempts, want 2 (one lost to the other writer)", res.Attempts)
	}
	if got, _ := s.File(repo, "main", rel); got != string(content) {
		t.Errorf("%s holds %d bytes, want the file's %d byte for byte", rel, len(got), len(content))
	}
	if got, _ := s.File(repo, "main", ".optr/workflows/w/runs/1-1/result.md"); got != "small\n" {
		t.Errorf("result.md = %q", got)
	}
	statuses := map[int]int{}
	for _, r := range s.Requests() {
		if r.Operation == opBlob {
			statuses[r.Status]++
		}
	}
	if diff := cmp.Diff(map[int]int{502: 1, 201: 1}, statuses); diff != "" {
		t.Errorf("blob uploads by status (-want +got): one failed and retried, none repeated for the second round\n%s", diff)
	}
}

// TestCommitConcurrentOverHTTP runs 16 commit-backs on one branch at once,
// each from its own client as separate jobs would, with transient faults
// on top of the races: every line lands exactly once, on a linear
// history.
func TestCommitConcurrentOverHTTP(t *testing.T) {
	const n = 16
	s := githubtest.NewServer(t)
	start := s.Head(repo, "main")
	// The transport absorbs these.
	s.FailNext(opTree, 3, githubtest.BadGateway())
	s.FailNext(opGetCommit, 2, githubtest.TooManyRequests(time.Second))
	var wg sync.WaitGroup
	results := make([]Result, n)
	errs := make([]error, n)
	clients := make([]*github.Client, n)
	for i := range n {
		clients[i] = newClient(t, s)
		wg.Go(func() {
			results[i], errs[i] = Commit(t.Context(), clients[i], Request{
				Branch: "main", Message: fmt.Sprint("run ", i), LedgerPath: ledgerPath,
				Drafts: draftsFor(fmt.Sprint("line ", i)),
				Files:  map[string][]byte{fmt.Sprintf("runs/%d.txt", i): []byte("x")},
			})
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("commit-back %d: %v", i, err)
		}
	}
	final, _ := s.File(repo, "main", ledgerPath)
	var want []string
	for i := range n {
		want = append(want, fmt.Sprint("line ", i))
	}
	slices.Sort(want)
	if diff := cmp.Diff(want, slices.Sorted(slices.Values(runsOf(t, final)))); diff != "" {
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
	files := s.Files(repo, "main")
	rounds, conflicts, requests, retries := 0, 0, 0, 0
	for i, r := range results {
		// Each result's ledger is what its commit holds, a prefix of the
		// final one.
		if !strings.HasPrefix(final, string(r.Ledger)) || !slices.Contains(runsOf(t, string(r.Ledger)), fmt.Sprint("line ", i)) {
			t.Errorf("result %d ledger %q is not a prefix of the final ledger holding its line", i, r.Ledger)
		}
		if _, ok := files[fmt.Sprintf("runs/%d.txt", i)]; !ok {
			t.Errorf("runs/%d.txt lost", i)
		}
		rounds += r.Attempts
		conflicts += r.Conflicts
		requests += r.Requests
		retries += clients[i].Stats().Retries
	}
	t.Logf("%d concurrent commit-backs: %d rounds, %d lost, %d requests, %d transport retries", n, rounds, conflicts, requests, retries)
	if retries != 5 {
		t.Errorf("%d transport retries, want the 5 injected faults retried", retries)
	}
	if conflicts == 0 {
		t.Error("no conflicts: the test did not race")
	}
}
