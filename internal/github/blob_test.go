package github

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/github/githubtest"
)

// A file given by local path is stored once as a blob, streamed from the
// file, however many rounds the commit-back takes and even when the first
// upload fails; the branch holds its exact bytes.
func TestCommitBackStreamsLocalFilesAsBlobs(t *testing.T) {
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
	c := newClient(t, s, &sleeper{})
	s.ResetRequests()
	const rel = ".optr/workflows/w/runs/1-1/agent-outputs/a.json"
	res, err := c.CommitBack(t.Context(), CommitRequest{
		Branch: "main", Message: "m", LedgerPath: ledgerPath, Rechain: (&appendLine{line: "c"}).rechain,
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

func TestCommitBackRejectsAFileGivenTwice(t *testing.T) {
	t.Parallel()
	s := githubtest.NewServer(t)
	c := newClient(t, s, &sleeper{})
	for _, tc := range []struct {
		name  string
		files map[string][]byte
		paths map[string]string
		want  string
	}{
		{"a path as content and as a local file", map[string][]byte{"x/a.json": nil}, map[string]string{"x/a.json": "/tmp/a.json"}, "x/a.json is given both as content and as a local file"},
		{"the ledger as a local file", nil, map[string]string{ledgerPath: "/tmp/l"}, ledgerPath + " is the ledger; it cannot also be one of the files"},
	} {
		_, err := c.CommitBack(t.Context(), CommitRequest{
			Branch: "main", Message: "m", LedgerPath: ledgerPath, Rechain: (&appendLine{line: "c"}).rechain,
			Files: tc.files, Paths: tc.paths,
		})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: CommitBack = %v, want %q", tc.name, err, tc.want)
		}
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("refused requests made %d GitHub requests", n)
	}
}
