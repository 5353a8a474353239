package github

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/optr-dev/optr/internal/gitdata"
	"github.com/optr-dev/optr/internal/gitdata/gitdatatest"
	"github.com/optr-dev/optr/internal/github/githubtest"
)

const (
	opTree      = "POST /repos/{owner}/{repo}/git/trees"
	opCommit    = "POST /repos/{owner}/{repo}/git/commits"
	opBlob      = "POST /repos/{owner}/{repo}/git/blobs"
	opUpdateRef = "PATCH /repos/{owner}/{repo}/git/refs/{ref}"
	opCreateRef = "POST /repos/{owner}/{repo}/git/refs"
)

// seeded is a client with the fake GitHub behind it.
type seeded struct {
	*Client
	s *githubtest.Server
}

func (c seeded) Commit(branch string, files map[string]string, message string) string {
	return c.s.Commit(repo, branch, files, message)
}
func (c seeded) Head(branch string) string             { return c.s.Head(repo, branch) }
func (c seeded) Files(branch string) map[string]string { return c.s.Files(repo, branch) }

// The client answers the Git Data calls as the in-memory store does (the
// same checks pass on both).
func TestClientIsAStore(t *testing.T) {
	t.Parallel()
	gitdatatest.TestStore(t, func(t *testing.T) gitdatatest.Seeded {
		s := githubtest.NewServer(t)
		return seeded{newClient(t, s, &sleeper{}), s}
	}, func(t *testing.T) gitdatatest.Seeded {
		s := githubtest.NewServer(t, githubtest.WithRepo(repo, "main"))
		return seeded{newClient(t, s, &sleeper{}), s}
	})
}

// GitHub's refusals by a protection rule or ruleset (a 422, or a 403, that
// says so) are a *gitdata.RuleError naming the rule on one line; any other
// 422 is neither that nor a race.
func TestRefError(t *testing.T) {
	t.Parallel()
	s := githubtest.NewServer(t)
	c := newClient(t, s, &sleeper{})
	tip := s.Head(repo, "main")
	for _, tc := range []struct {
		fault githubtest.Fault
		rule  string
	}{
		{githubtest.ProtectedBranch("main"), "Protected branch update failed for refs/heads/main."},
		{githubtest.RulesetViolation("Changes must be made through a pull request."), "Repository rule violations found: Changes must be made through a pull request."},
		{githubtest.Fault{Status: 403, Message: "Cannot update this protected ref."}, "Cannot update this protected ref."},
	} {
		s.FailNext(opUpdateRef, 1, tc.fault)
		var rule *gitdata.RuleError
		if err := c.UpdateRef(t.Context(), "main", tip); !errors.As(err, &rule) || rule.Rule != tc.rule {
			t.Errorf("UpdateRef refused with %q = %v, want a *RuleError naming %q", tc.fault.Message, err, tc.rule)
		}
	}
	s.FailNext(opUpdateRef, 1, githubtest.Fault{Status: 422, Message: "Object does not exist"})
	var rule *gitdata.RuleError
	if err := c.UpdateRef(t.Context(), "main", tip); err == nil || errors.Is(err, gitdata.ErrMoved) || errors.As(err, &rule) {
		t.Errorf("UpdateRef answered another 422 = %v, want a plain error: only a moved ref is a race", err)
	}
}

// A blob is streamed from what open gives, and opened again when the
// transport sends it again.
func TestCreateBlobResends(t *testing.T) {
	t.Parallel()
	s := githubtest.NewServer(t)
	c := newClient(t, s, &sleeper{})
	content := bytes.Repeat([]byte("caf\xe9 "), 100000)
	s.FailNext(opBlob, 1, githubtest.BadGateway())
	opened := 0
	sha, err := c.CreateBlob(t.Context(), int64(len(content)), func() (io.ReadCloser, error) {
		opened++
		return io.NopCloser(bytes.NewReader(content)), nil
	})
	if err != nil || opened != 2 || sha != gitdata.BlobSHA(content) {
		t.Fatalf("CreateBlob = %s, %v after %d opens; want the content's sha, sent twice", sha, err, opened)
	}
}
