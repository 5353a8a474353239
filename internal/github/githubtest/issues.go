package githubtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Issues: the issue itself, comments, reactions and labels.

// maxCommentBody is GitHub's limit on a comment body, in characters.
const maxCommentBody = 65536

func (s *Server) issueOf(c *call) (*issue, reply, bool) {
	n, err := strconv.Atoi(c.params["issue_number"])
	if err != nil {
		return nil, errorReply(http.StatusNotFound, "Not Found"), false
	}
	is := c.repo.issues[n]
	if is == nil {
		return nil, errorReply(http.StatusNotFound, "Not Found"), false
	}
	return is, reply{}, true
}

func (s *Server) commentOf(c *call) (*issueComment, reply, bool) {
	id, err := strconv.ParseInt(c.params["comment_id"], 10, 64)
	if err != nil {
		return nil, errorReply(http.StatusNotFound, "Not Found"), false
	}
	cm := c.repo.comments[id]
	if cm == nil {
		return nil, errorReply(http.StatusNotFound, "Not Found"), false
	}
	return cm, reply{}, true
}

func (s *Server) issueJSON(r *repo, is *issue) map[string]any {
	labels := []map[string]any{}
	for _, l := range is.labels {
		labels = append(labels, s.labelJSON(r, l))
	}
	title, body := is.title, is.body
	if is.pull != nil {
		title, body = is.pull.title, is.pull.body
	}
	out := map[string]any{
		"id":                 is.id,
		"node_id":            "I_" + strconv.FormatInt(is.id, 10),
		"number":             is.number,
		"title":              title,
		"body":               body,
		"user":               s.userJSON(is.user),
		"labels":             labels,
		"state":              "open",
		"locked":             false,
		"comments":           len(is.comments),
		"author_association": association(r, is.user),
		"created_at":         stamp(is.created),
		"updated_at":         stamp(is.created),
		"url":                s.apiURL("repos", r.owner, r.name, "issues", strconv.Itoa(is.number)),
		"html_url":           s.htmlURL(r.owner, r.name, "issues", strconv.Itoa(is.number)),
	}
	if is.pull != nil {
		n := strconv.Itoa(is.number)
		if p := is.pull; p.closed {
			out["state"], out["closed_at"], out["updated_at"] = "closed", stamp(p.closedAt), stamp(p.closedAt)
			if p.closedBy.login != "" {
				out["closed_by"] = s.userJSON(p.closedBy)
			}
		}
		out["html_url"] = s.htmlURL(r.owner, r.name, "pull", n)
		out["pull_request"] = map[string]any{
			"url":      s.apiURL("repos", r.owner, r.name, "pulls", n),
			"html_url": s.htmlURL(r.owner, r.name, "pull", n),
			"diff_url": s.htmlURL(r.owner, r.name, "pull", n+".diff"),
		}
	}
	return out
}

func (s *Server) commentJSON(r *repo, cm *issueComment) map[string]any {
	id := strconv.FormatInt(cm.id, 10)
	issueNumber := strconv.Itoa(cm.issue.number)
	return map[string]any{
		"id":                 cm.id,
		"node_id":            "IC_" + id,
		"body":               cm.body,
		"user":               s.userJSON(cm.user),
		"author_association": association(r, cm.user),
		"created_at":         stamp(cm.created),
		"updated_at":         stamp(cm.updated),
		"url":                s.apiURL("repos", r.owner, r.name, "issues", "comments", id),
		"html_url":           s.htmlURL(r.owner, r.name, "issues", issueNumber) + "#issuecomment-" + id,
		"issue_url":          s.apiURL("repos", r.owner, r.name, "issues", issueNumber),
	}
}

// association is the author_association GitHub shows for u on r.
func association(r *repo, u identity) string {
	switch {
	case strings.EqualFold(u.login, r.owner):
		return "OWNER"
	case r.roles[strings.ToLower(u.login)] != "" && r.roles[strings.ToLower(u.login)] != "none":
		return "COLLABORATOR"
	}
	return "NONE"
}

func (s *Server) getIssue(c *call) reply {
	is, rep, ok := s.issueOf(c)
	if !ok {
		return rep
	}
	return jsonReply(http.StatusOK, s.issueJSON(c.repo, is))
}

func (s *Server) listComments(c *call) reply {
	is, rep, ok := s.issueOf(c)
	if !ok {
		return rep
	}
	since, rep, ok := sinceOf(c.r.URL.Query())
	if !ok {
		return rep
	}
	all := make([]map[string]any, 0, len(is.comments))
	for _, cm := range is.comments {
		if !cm.updated.Before(since) {
			all = append(all, s.commentJSON(c.repo, cm))
		}
	}
	return s.page(c, all)
}

// listRepoComments is GET …/issues/comments: every issue comment of the
// repository, by creation (ids grow with it), oldest first unless
// direction=desc, from since (updated at or after) when given.
func (s *Server) listRepoComments(c *call) reply {
	q := c.r.URL.Query()
	var since time.Time
	if v := q.Get("since"); v != "" {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			return errorReply(http.StatusUnprocessableEntity, "Invalid request.\n\nsince is not a timestamp")
		}
		since = t
	}
	ids := make([]int64, 0, len(c.repo.comments))
	for id, cm := range c.repo.comments {
		if since.IsZero() || !cm.updated.Before(since) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	if q.Get("direction") == "desc" {
		slices.Reverse(ids)
	}
	page, perPage := paging(q)
	from := min((page-1)*perPage, len(ids))
	to := min(from+perPage, len(ids))
	items := make([]map[string]any, 0, to-from)
	for _, id := range ids[from:to] {
		items = append(items, s.commentJSON(c.repo, c.repo.comments[id]))
	}
	out := jsonReply(http.StatusOK, items)
	out.header = http.Header{}
	if link := s.linkHeader(c.r, page, perPage, len(ids)); link != "" {
		out.header.Set("Link", link)
	}
	return out
}

// paging reads page (from 1) and per_page (default 30, at most 100).
func paging(q url.Values) (page, perPage int) {
	page, perPage = 1, 30
	if n, err := strconv.Atoi(q.Get("page")); err == nil && n > 0 {
		page = n
	}
	if n, err := strconv.Atoi(q.Get("per_page")); err == nil && n > 0 {
		perPage = min(n, 100)
	}
	return page, perPage
}

// linkHeader is GitHub's pagination Link header for a list of total items.
func (s *Server) linkHeader(r *http.Request, page, perPage, total int) string {
	last := max(1, (total+perPage-1)/perPage)
	link := func(p int, rel string) string {
		q := r.URL.Query()
		q.Set("page", strconv.Itoa(p))
		q.Set("per_page", strconv.Itoa(perPage))
		return fmt.Sprintf("<%s%s?%s>; rel=%q", s.ts.URL, r.URL.Path, q.Encode(), rel)
	}
	var parts []string
	if page > 1 {
		parts = append(parts, link(page-1, "prev"), link(1, "first"))
	}
	if page < last {
		parts = append(parts, link(page+1, "next"), link(last, "last"))
	}
	return strings.Join(parts, ", ")
}

func (s *Server) createComment(c *call) reply {
	is, rep, ok := s.issueOf(c)
	if !ok {
		return rep
	}
	body, rep, ok := commentBody(c)
	if !ok {
		return rep
	}
	cm := s.addCommentLocked(c.repo, is, c.who, body)
	return jsonReply(http.StatusCreated, s.commentJSON(c.repo, cm))
}

// checkBody applies GitHub's rules for a comment body.
func checkBody(body string) (reply, bool) {
	switch {
	case strings.TrimSpace(body) == "":
		return validationFailed("IssueComment", "body", "missing_field", "body cannot be blank"), false
	case utf8.RuneCountInString(body) > maxCommentBody:
		return validationFailed("IssueComment", "body", "custom", fmt.Sprintf("body is too long (maximum is %d characters)", maxCommentBody)), false
	}
	return reply{}, true
}

func (s *Server) addCommentLocked(r *repo, is *issue, who identity, body string) *issueComment {
	now := s.now().UTC()
	cm := &issueComment{id: s.newIDLocked(), issue: is, body: body, user: who, created: now, updated: now}
	is.comments = append(is.comments, cm)
	r.comments[cm.id] = cm
	return cm
}

func (s *Server) getComment(c *call) reply {
	cm, rep, ok := s.commentOf(c)
	if !ok {
		return rep
	}
	return jsonReply(http.StatusOK, s.commentJSON(c.repo, cm))
}

func (s *Server) updateComment(c *call) reply {
	cm, rep, ok := s.commentOf(c)
	if !ok {
		return rep
	}
	body, rep, ok := commentBody(c)
	if !ok {
		return rep
	}
	cm.body, cm.updated = body, s.now().UTC()
	return jsonReply(http.StatusOK, s.commentJSON(c.repo, cm))
}

// react adds a reaction by c.who unless it is already there: 201 for a new
// reaction, 200 with the existing one otherwise, as GitHub answers.
func (s *Server) react(c *call, list *[]*reaction) reply {
	var in struct {
		Content string `json:"content"`
	}
	if rep, ok := c.decode(&in); !ok {
		return rep
	}
	for _, x := range *list {
		if x.content == in.Content && x.user.id == c.who.id {
			return jsonReply(http.StatusOK, s.reactionJSON(x))
		}
	}
	x := &reaction{id: s.newIDLocked(), content: in.Content, user: c.who, created: s.now().UTC()}
	*list = append(*list, x)
	return jsonReply(http.StatusCreated, s.reactionJSON(x))
}

func (s *Server) createIssueReaction(c *call) reply {
	is, rep, ok := s.issueOf(c)
	if !ok {
		return rep
	}
	return s.react(c, &is.reactions)
}

func (s *Server) createCommentReaction(c *call) reply {
	cm, rep, ok := s.commentOf(c)
	if !ok {
		return rep
	}
	return s.react(c, &cm.reactions)
}

func (s *Server) labelsReply(r *repo, is *issue) reply {
	out := []map[string]any{}
	for _, l := range is.labels {
		out = append(out, s.labelJSON(r, l))
	}
	return jsonReply(http.StatusOK, out)
}

func (s *Server) listLabels(c *call) reply {
	is, rep, ok := s.issueOf(c)
	if !ok {
		return rep
	}
	return s.labelsReply(c.repo, is)
}

func (s *Server) addLabels(c *call) reply {
	is, rep, ok := s.issueOf(c)
	if !ok {
		return rep
	}
	names, ok := labelNames(c.body)
	if !ok {
		return errorReply(http.StatusBadRequest, "Problems parsing JSON")
	}
	for _, n := range names {
		if !slices.ContainsFunc(is.labels, func(l string) bool { return strings.EqualFold(l, n) }) {
			is.labels = append(is.labels, n)
		}
	}
	return s.labelsReply(c.repo, is)
}

func (s *Server) removeLabel(c *call) reply {
	is, rep, ok := s.issueOf(c)
	if !ok {
		return rep
	}
	name := c.params["name"]
	i := slices.IndexFunc(is.labels, func(l string) bool { return strings.EqualFold(l, name) })
	if i < 0 {
		return errorReply(http.StatusNotFound, "Label does not exist")
	}
	is.labels = slices.Delete(is.labels, i, i+1)
	return s.labelsReply(c.repo, is)
}

// labelNames reads every shape GitHub takes for labels to add: a bare
// array or {"labels": [...]}, of names or of {"name": …} objects.
func labelNames(body []byte) ([]string, bool) {
	var items []any
	if err := json.Unmarshal(body, &items); err != nil {
		var wrapped struct {
			Labels []any `json:"labels"`
		}
		if err := json.Unmarshal(body, &wrapped); err != nil {
			return nil, false
		}
		items = wrapped.Labels
	}
	names := make([]string, 0, len(items))
	for _, it := range items {
		switch v := it.(type) {
		case string:
			names = append(names, v)
		case map[string]any:
			n, ok := v["name"].(string)
			if !ok {
				return nil, false
			}
			names = append(names, n)
		default:
			return nil, false
		}
	}
	return names, true
}

// commentBody decodes and checks the body of a comment request.
func commentBody(c *call) (string, reply, bool) {
	var in struct {
		Body string `json:"body"`
	}
	if rep, ok := c.decode(&in); !ok {
		return "", rep, false
	}
	if rep, ok := checkBody(in.Body); !ok {
		return "", rep, false
	}
	return in.Body, reply{}, true
}
