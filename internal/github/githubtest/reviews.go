package githubtest

import (
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Pull request reviews: review comments (on a line of the diff) and
// submitted reviews, listed oldest first and paged; reactions on review
// comments.

// reviewComment is one comment on a line of a pull request's diff.
type reviewComment struct {
	id               int64
	pull             *pull
	review           int64 // the review it belongs to
	path             string
	line             int
	body             string
	commit           string
	user             identity
	created, updated time.Time
	reactions        []*reaction
}

// review is one submitted review.
type review struct {
	id          int64
	pull        *pull
	state, body string
	commit      string
	user        identity
	submitted   time.Time
}

func (s *Server) pullOf(c *call) (*pull, reply, bool) {
	n, err := strconv.Atoi(c.params["pull_number"])
	p := c.repo.pulls[n]
	if err != nil || p == nil {
		return nil, errorReply(http.StatusNotFound, "Not Found"), false
	}
	return p, reply{}, true
}

// listReviewComments answers GET …/pulls/{n}/comments: oldest first (the
// default sort), those updated at or after since when it is given.
func (s *Server) listReviewComments(c *call) reply {
	p, rep, ok := s.pullOf(c)
	if !ok {
		return rep
	}
	q := c.r.URL.Query()
	since, rep, ok := sinceOf(q)
	if !ok {
		return rep
	}
	var all []map[string]any
	for _, rc := range p.reviewComments {
		if !rc.updated.Before(since) {
			all = append(all, s.reviewCommentJSON(c.repo, rc))
		}
	}
	return s.page(c, all)
}

// listReviews answers GET …/pulls/{n}/reviews, in chronological order.
func (s *Server) listReviews(c *call) reply {
	p, rep, ok := s.pullOf(c)
	if !ok {
		return rep
	}
	var all []map[string]any
	for _, rv := range p.reviews {
		all = append(all, s.reviewJSON(c.repo, rv))
	}
	return s.page(c, all)
}

func (s *Server) createReviewCommentReaction(c *call) reply {
	id, err := strconv.ParseInt(c.params["comment_id"], 10, 64)
	rc := c.repo.reviewComments[id]
	if err != nil || rc == nil {
		return errorReply(http.StatusNotFound, "Not Found")
	}
	return s.react(c, &rc.reactions)
}

// sinceOf reads the since parameter (an ISO 8601 time); the zero time
// when absent.
func sinceOf(q url.Values) (time.Time, reply, bool) {
	v := q.Get("since")
	if v == "" {
		return time.Time{}, reply{}, true
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Time{}, validationFailed("Comment", "since", "invalid", "since is not an ISO 8601 time"), false
	}
	return t, reply{}, true
}

// page answers one page of all, with GitHub's Link header.
func (s *Server) page(c *call, all []map[string]any) reply {
	page, perPage := paging(c.r.URL.Query())
	from := min((page-1)*perPage, len(all))
	to := min(from+perPage, len(all))
	out := jsonReply(http.StatusOK, append([]map[string]any{}, all[from:to]...))
	out.header = http.Header{}
	if link := s.linkHeader(c.r, page, perPage, len(all)); link != "" {
		out.header.Set("Link", link)
	}
	return out
}

func (s *Server) reviewCommentJSON(r *repo, rc *reviewComment) map[string]any {
	id := strconv.FormatInt(rc.id, 10)
	n := strconv.Itoa(rc.pull.number)
	pullURL := s.apiURL("repos", r.owner, r.name, "pulls", n)
	return map[string]any{
		"id":                     rc.id,
		"node_id":                "PRRC_" + id,
		"pull_request_review_id": rc.review,
		"path":                   rc.path,
		"line":                   rc.line,
		"original_line":          rc.line,
		"side":                   "RIGHT",
		"diff_hunk":              "@@ -1 +1 @@",
		"commit_id":              rc.commit,
		"original_commit_id":     rc.commit,
		"body":                   rc.body,
		"user":                   s.userJSON(rc.user),
		"author_association":     association(r, rc.user),
		"created_at":             stamp(rc.created),
		"updated_at":             stamp(rc.updated),
		"url":                    s.apiURL("repos", r.owner, r.name, "pulls", "comments", id),
		"html_url":               s.htmlURL(r.owner, r.name, "pull", n) + "#discussion_r" + id,
		"pull_request_url":       pullURL,
		"_links": map[string]any{
			"self":         map[string]any{"href": s.apiURL("repos", r.owner, r.name, "pulls", "comments", id)},
			"html":         map[string]any{"href": s.htmlURL(r.owner, r.name, "pull", n) + "#discussion_r" + id},
			"pull_request": map[string]any{"href": pullURL},
		},
	}
}

func (s *Server) reviewJSON(r *repo, rv *review) map[string]any {
	id := strconv.FormatInt(rv.id, 10)
	n := strconv.Itoa(rv.pull.number)
	return map[string]any{
		"id":                 rv.id,
		"node_id":            "PRR_" + id,
		"user":               s.userJSON(rv.user),
		"body":               rv.body,
		"state":              rv.state,
		"commit_id":          rv.commit,
		"author_association": association(r, rv.user),
		"submitted_at":       stamp(rv.submitted),
		"html_url":           s.htmlURL(r.owner, r.name, "pull", n) + "#pullrequestreview-" + id,
		"pull_request_url":   s.apiURL("repos", r.owner, r.name, "pulls", n),
		"_links": map[string]any{
			"html":         map[string]any{"href": s.htmlURL(r.owner, r.name, "pull", n) + "#pullrequestreview-" + id},
			"pull_request": map[string]any{"href": s.apiURL("repos", r.owner, r.name, "pulls", n)},
		},
	}
}

// Review states a submitted review can have.
const (
	ReviewCommented        = "COMMENTED"
	ReviewApproved         = "APPROVED"
	ReviewChangesRequested = "CHANGES_REQUESTED"
)

// AddReview submits a review of pull request number by login (a User),
// in state (ReviewCommented, …) with body, on the pull request's current
// head, and returns its id.
func (s *Server) AddReview(repo string, number int, login, state, body string) int64 {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	r, p := s.pullLocked(repo, number)
	rv := &review{
		id: s.newIDLocked(), pull: p, state: state, body: body, commit: headOf(r, p),
		user: s.identityLocked(login, "User"), submitted: s.now().UTC(),
	}
	p.reviews = append(p.reviews, rv)
	return rv.id
}

// AddReviewComment comments on line of path in pull request number's
// diff, as login (a User), in a review of its own, and returns the
// comment's id.
func (s *Server) AddReviewComment(repo string, number int, login, path string, line int, body string) int64 {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	r, p := s.pullLocked(repo, number)
	now := s.now().UTC()
	who := s.identityLocked(login, "User")
	rv := &review{id: s.newIDLocked(), pull: p, state: ReviewCommented, commit: headOf(r, p), user: who, submitted: now}
	p.reviews = append(p.reviews, rv)
	rc := &reviewComment{
		id: s.newIDLocked(), pull: p, review: rv.id, path: path, line: line, body: body,
		commit: rv.commit, user: who, created: now, updated: now,
	}
	p.reviewComments = append(p.reviewComments, rc)
	r.reviewComments[rc.id] = rc
	return rc.id
}

// ReviewCommentReactions returns the contents of the reactions on a
// review comment.
func (s *Server) ReviewCommentReactions(repo string, id int64) []string {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	rc := s.repoLocked(repo).reviewComments[id]
	if rc == nil {
		return nil
	}
	return contents(rc.reactions)
}

func (s *Server) pullLocked(fullName string, number int) (*repo, *pull) {
	r := s.repoLocked(fullName)
	p := r.pulls[number]
	if p == nil {
		s.t.Fatalf("githubtest: no pull request %s#%d", fullName, number)
	}
	return r, p
}

func headOf(r *repo, p *pull) string {
	if p.fork != "" {
		return p.forkSHA
	}
	return r.refs["refs/heads/"+p.head]
}
