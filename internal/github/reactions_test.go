package github

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/optr-dev/optr/internal/github/githubtest"
)

func TestReact(t *testing.T) {
	s := githubtest.NewServer(t)
	s.AddIssue(repo, 4, "t", "b", "alice")
	cid := s.AddComment(repo, 4, "alice", "/optr run")
	c := newClient(t, s, &sleeper{})
	ctx := t.Context()
	if err := c.React(ctx, 4, 0, "eyes"); err != nil {
		t.Fatal(err)
	}
	if err := c.React(ctx, 4, 0, "eyes"); err != nil {
		t.Fatalf("reacting twice: %v", err)
	}
	if err := c.React(ctx, 4, cid, "rocket"); err != nil {
		t.Fatal(err)
	}
	if err := c.React(ctx, 4, 0, "smile"); err == nil {
		t.Error("React with smile: no error")
	}
	if diff := cmp.Diff([]string{"eyes"}, s.IssueReactions(repo, 4)); diff != "" {
		t.Errorf("issue reactions (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"rocket"}, s.Comments(repo, 4)[0].Reactions); diff != "" {
		t.Errorf("comment reactions (-want +got):\n%s", diff)
	}
	if got := len(s.Requests()); got != 3 {
		t.Errorf("%d requests, want 3 (the invalid reaction sends none)", got)
	}
}

func TestReadFile(t *testing.T) {
	t.Parallel()
	s := githubtest.NewServer(t)
	c := newClient(t, s, &sleeper{})
	got, err := c.ReadFile(t.Context(), "", "README.md")
	if err != nil || len(got) == 0 {
		t.Fatalf("ReadFile(README.md) = %q, %v", got, err)
	}
	if got, err := c.ReadFile(t.Context(), "main", "missing.txt"); err != nil || got != nil {
		t.Fatalf("ReadFile(missing) = %q, %v; want nil, nil", got, err)
	}
}
