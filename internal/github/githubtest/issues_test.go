package githubtest

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	gh "github.com/google/go-github/v60/github"
)

func TestComments(t *testing.T) {
	s := NewServer(t, WithToken("pat", "octocat", "User"))
	s.AddIssue(DefaultRepo, 7, "title", "body", "alice")
	bot := newClient(t, s, "ghs_anything")
	user := newClient(t, s, "pat")
	ctx := t.Context()

	first, _, err := bot.Issues.CreateComment(ctx, owner, name, 7, &gh.IssueComment{Body: gh.String("one")})
	if err != nil {
		t.Fatal(err)
	}
	if first.GetUser().GetLogin() != DefaultLogin || first.GetUser().GetType() != "Bot" {
		t.Errorf("author = %s (%s), want %s (Bot)", first.GetUser().GetLogin(), first.GetUser().GetType(), DefaultLogin)
	}
	for i := range 149 {
		if _, _, err := user.Issues.CreateComment(ctx, owner, name, 7, &gh.IssueComment{Body: gh.String(fmt.Sprint("n", i))}); err != nil {
			t.Fatal(err)
		}
	}
	edited, _, err := bot.Issues.EditComment(ctx, owner, name, first.GetID(), &gh.IssueComment{Body: gh.String("one, edited")})
	if err != nil {
		t.Fatal(err)
	}
	if edited.GetID() != first.GetID() {
		t.Errorf("edit changed the id: %d → %d", first.GetID(), edited.GetID())
	}

	var all []*gh.IssueComment
	opts := &gh.IssueListCommentsOptions{ListOptions: gh.ListOptions{PerPage: 100}}
	pages := 0
	for {
		page, resp, err := bot.Issues.ListComments(ctx, owner, name, 7, opts)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		all = append(all, page...)
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	if len(all) != 150 || pages != 2 {
		t.Fatalf("listed %d comments in %d pages, want 150 in 2", len(all), pages)
	}
	if all[0].GetBody() != "one, edited" || all[1].GetUser().GetLogin() != "octocat" {
		t.Errorf("first comments: %q by %s, %q by %s", all[0].GetBody(), all[0].GetUser().GetLogin(), all[1].GetBody(), all[1].GetUser().GetLogin())
	}

	_, _, err = bot.Issues.CreateComment(ctx, owner, name, 7, &gh.IssueComment{Body: gh.String(strings.Repeat("x", 65537))})
	if statusOf(err) != http.StatusUnprocessableEntity {
		t.Errorf("body over 65536 characters: %v, want 422", err)
	}
	_, _, err = bot.Issues.CreateComment(ctx, owner, name, 8, &gh.IssueComment{Body: gh.String("x")})
	if statusOf(err) != http.StatusNotFound {
		t.Errorf("comment on a missing issue: %v, want 404", err)
	}
}

func TestReactionsAndLabels(t *testing.T) {
	s := NewServer(t)
	s.AddIssue(DefaultRepo, 3, "t", "b", "alice")
	id := s.AddComment(DefaultRepo, 3, "alice", "/optr run")
	c := newClient(t, s, "token")
	ctx := t.Context()

	_, first, err := c.Reactions.CreateIssueReaction(ctx, owner, name, 3, "eyes")
	if err != nil {
		t.Fatal(err)
	}
	_, again, err := c.Reactions.CreateIssueReaction(ctx, owner, name, 3, "eyes")
	if err != nil {
		t.Fatal(err)
	}
	if first.StatusCode != http.StatusCreated || again.StatusCode != http.StatusOK {
		t.Errorf("reacting twice: %d then %d, want 201 then 200", first.StatusCode, again.StatusCode)
	}
	if _, _, err := c.Reactions.CreateIssueCommentReaction(ctx, owner, name, id, "rocket"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"eyes"}, s.IssueReactions(DefaultRepo, 3)); diff != "" {
		t.Errorf("issue reactions (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Comment{{ID: id, Login: "alice", Body: "/optr run", Reactions: []string{"rocket"}}}, s.Comments(DefaultRepo, 3)); diff != "" {
		t.Errorf("comments (-want +got):\n%s", diff)
	}

	// go-github v60 sends a bare array here, which GitHub takes although
	// its description does not say so.
	if _, _, err := c.Issues.AddLabelsToIssue(ctx, owner, name, 3, []string{"optr", "bug"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Issues.RemoveLabelForIssue(ctx, owner, name, 3, "bug"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"optr"}, s.Labels(DefaultRepo, 3)); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}
}

// TestRepositoryComments: GET …/issues/comments lists the comments of every
// issue, oldest first (or newest with direction=desc), a page at a time.
func TestRepositoryComments(t *testing.T) {
	s := NewServer(t)
	s.AddIssue(DefaultRepo, 1, "one", "", "alice")
	s.AddIssue(DefaultRepo, 2, "two", "", "alice")
	for i := range 5 {
		s.AddComment(DefaultRepo, 1+i%2, "alice", fmt.Sprint("c", i))
	}
	c := newClient(t, s, "ghs_anything")
	var bodies []string
	opts := &gh.IssueListCommentsOptions{Sort: gh.String("created"), Direction: gh.String("asc"), ListOptions: gh.ListOptions{PerPage: 2}}
	for {
		page, resp, err := c.Issues.ListComments(t.Context(), owner, name, 0, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, cm := range page {
			bodies = append(bodies, cm.GetBody())
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	if diff := cmp.Diff([]string{"c0", "c1", "c2", "c3", "c4"}, bodies); diff != "" {
		t.Errorf("comments (-want +got):\n%s", diff)
	}
	desc, _, err := c.Issues.ListComments(t.Context(), owner, name, 0, &gh.IssueListCommentsOptions{Sort: gh.String("created"), Direction: gh.String("desc")})
	if err != nil || len(desc) != 5 || desc[0].GetBody() != "c4" {
		t.Errorf("direction=desc: %d comments, first %q, %v", len(desc), desc[0].GetBody(), err)
	}
}
