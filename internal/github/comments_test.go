package github

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/optr-dev/optr/internal/comment"
	"github.com/optr-dev/optr/internal/github/githubtest"
)

const (
	opListComments = "GET /repos/{owner}/{repo}/issues/{issue_number}/comments"
	opEditComment  = "PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}"
)

func TestUpsertCommentEditsInPlace(t *testing.T) {
	s := githubtest.NewServer(t)
	s.AddIssue(repo, 9, "t", "b", "alice")
	ctx := t.Context()
	marker := comment.Marker(comment.KindRun, "42-1")

	c := newClient(t, s, &sleeper{})
	first, err := c.UpsertComment(ctx, 9, comment.KindRun, "42-1", marker+"\nstarted")
	if err != nil {
		t.Fatal(err)
	}
	s.ResetRequests()
	second, err := c.UpsertComment(ctx, 9, comment.KindRun, "42-1", marker+"\nrunning")
	if err != nil {
		t.Fatal(err)
	}
	if second != first {
		t.Errorf("second upsert returned comment %d, want %d", second, first)
	}
	if diff := cmp.Diff(map[string]int{opEditComment: 1}, s.Counts()); diff != "" {
		t.Errorf("second upsert's requests (-want +got): it must edit the kept id without scanning\n%s", diff)
	}

	// A fresh client (a later job) finds the comment by marker and author.
	fresh := newClient(t, s, &sleeper{})
	found, err := fresh.FindComment(ctx, 9, comment.KindRun, "42-1")
	if err != nil {
		t.Fatal(err)
	}
	if found == nil || found.ID != first || found.Author != githubtest.DefaultLogin {
		t.Fatalf("FindComment = %+v, want comment %d by %s", found, first, githubtest.DefaultLogin)
	}
	third, err := fresh.UpsertComment(ctx, 9, comment.KindRun, "42-1", marker+"\ndone")
	if err != nil {
		t.Fatal(err)
	}
	if third != first {
		t.Errorf("fresh client's upsert edited %d, want %d", third, first)
	}
	got := s.Comments(repo, 9)
	if len(got) != 1 || got[0].Body != marker+"\ndone" {
		t.Errorf("comments = %+v, want one saying done", got)
	}
}

func TestFindCommentIgnoresOtherAuthors(t *testing.T) {
	s := githubtest.NewServer(t)
	s.AddIssue(repo, 2, "t", "b", "mallory")
	marker := comment.Marker(comment.KindCheckpoint, "cp-1")
	// Someone pastes optr's marker into their own comment.
	s.AddComment(repo, 2, "mallory", marker+"\n/optr choose 1")
	c := newClient(t, s, &sleeper{})
	ctx := t.Context()

	found, err := c.FindComment(ctx, 2, comment.KindCheckpoint, "cp-1")
	if err != nil {
		t.Fatal(err)
	}
	if found != nil {
		t.Fatalf("found %+v, a comment by another author", found)
	}
	id, err := c.UpsertComment(ctx, 2, comment.KindCheckpoint, "cp-1", marker+"\nchoose")
	if err != nil {
		t.Fatal(err)
	}
	got := s.Comments(repo, 2)
	if len(got) != 2 || got[0].Body != marker+"\n/optr choose 1" || got[1].ID != id || got[1].Login != githubtest.DefaultLogin {
		t.Errorf("comments = %+v, want mallory's untouched and optr's new one", got)
	}
}

func TestFindCommentPages(t *testing.T) {
	s := githubtest.NewServer(t)
	s.AddIssue(repo, 5, "t", "b", "alice")
	for range 230 {
		s.AddComment(repo, 5, "alice", "chatter")
	}
	c := newClient(t, s, &sleeper{})
	ctx := t.Context()
	id, err := c.CreateComment(ctx, 5, comment.Marker(comment.KindEscalation, "e1")+"\nhelp")
	if err != nil {
		t.Fatal(err)
	}
	s.ResetRequests()
	found, err := newClient(t, s, &sleeper{}).FindComment(ctx, 5, comment.KindEscalation, "e1")
	if err != nil {
		t.Fatal(err)
	}
	if found == nil || found.ID != id {
		t.Fatalf("FindComment = %+v, want comment %d on the third page", found, id)
	}
	if got := s.Count(opListComments); got != 3 {
		t.Errorf("%d list requests, want 3 pages of 100", got)
	}
}

func TestUpsertCommentAddsMarkerAndFits(t *testing.T) {
	s := githubtest.NewServer(t)
	s.AddIssue(repo, 1, "t", "b", "alice")
	c := newClient(t, s, &sleeper{})
	long := strings.Repeat("é", comment.MaxBody+10)
	if _, err := c.UpsertComment(t.Context(), 1, comment.KindRun, "r1", long); err != nil {
		t.Fatal(err)
	}
	got := s.Comments(repo, 1)[0].Body
	if !strings.HasPrefix(got, comment.Marker(comment.KindRun, "r1")+"\n") {
		t.Errorf("body starts %q, want the marker first", got[:40])
	}
	if n := utf8.RuneCountInString(got); n > comment.MaxBody {
		t.Errorf("body has %d characters, over GitHub's %d", n, comment.MaxBody)
	}
}

// TestUpsertCommentAfterLostAnswer: GitHub posts the comment but the answer
// is a 502. The client must not post a second one.
func TestUpsertCommentAfterLostAnswer(t *testing.T) {
	s := githubtest.NewServer(t)
	s.AddIssue(repo, 1, "t", "b", "alice")
	s.FailNext(opCreateComment, 1, githubtest.Lost(githubtest.BadGateway()))
	c := newClient(t, s, &sleeper{})
	id, err := c.UpsertComment(t.Context(), 1, comment.KindRun, "r1", "progress")
	if err != nil {
		t.Fatal(err)
	}
	got := s.Comments(repo, 1)
	if len(got) != 1 || got[0].ID != id {
		t.Errorf("comments = %+v, want exactly one, id %d", got, id)
	}
	if n := s.Count(opCreateComment); n != 1 {
		t.Errorf("%d create requests, want 1 (never resent)", n)
	}
}

func TestUpsertCommentConcurrent(t *testing.T) {
	s := githubtest.NewServer(t)
	s.AddIssue(repo, 1, "t", "b", "alice")
	c := newClient(t, s, &sleeper{})
	errs := make(chan error, 8)
	for i := range 8 {
		go func() {
			_, err := c.UpsertComment(t.Context(), 1, comment.KindRun, "r1", strings.Repeat("x", i+1))
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if got := len(s.Comments(repo, 1)); got != 1 {
		t.Errorf("%d comments after 8 concurrent upserts, want 1", got)
	}
}

// TestOwnComments: optr's run comments across the repository's issues, in
// order, over pages; a pasted marker in another author's comment, and
// optr's comments of another kind, are left out.
func TestOwnComments(t *testing.T) {
	s := githubtest.NewServer(t)
	s.AddIssue(repo, 1, "t", "b", "alice")
	s.AddIssue(repo, 2, "t", "b", "alice")
	var want []string
	for i := range 120 {
		body := comment.Marker(comment.KindRun, fmt.Sprintf("%d-1", i)) + "\nrun"
		s.AddComment(repo, 1+i%2, githubtest.DefaultLogin, body)
		want = append(want, body)
		if i%40 == 0 {
			s.AddComment(repo, 1, "mallory", body)
			s.AddComment(repo, 2, githubtest.DefaultLogin, comment.Marker(comment.KindCheckpoint, "cp")+"\n")
		}
	}
	got, err := newClient(t, s, &sleeper{}).OwnComments(t.Context(), comment.KindRun)
	if err != nil {
		t.Fatal(err)
	}
	var bodies []string
	for _, c := range got {
		bodies = append(bodies, c.Body)
		if c.URL == "" || c.Author != githubtest.DefaultLogin {
			t.Errorf("comment %+v lacks its URL or author", c)
		}
	}
	if diff := cmp.Diff(want, bodies); diff != "" {
		t.Errorf("own run comments (-want +got):\n%s", diff)
	}
}
