package githubtest

import (
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Pull requests: create, get, list and edit, with GitHub's refusals. A
// pull request is an issue too, as on GitHub: its conversation is the
// issue's comments.

// pull is one pull request.
type pull struct {
	number      int
	id          int64
	title, body string
	// head and base are branch names; head is in the same repository
	// unless fork names the repository it comes from (whose head commit
	// is forkSHA).
	head, base    string
	fork, forkSHA string
	// headSHA is the head's commit when it closed.
	headSHA string
	draft   bool
	// closed is set by ClosePull and MergePull; closedAt is when, and
	// closedBy who (zero when unknown). merged, mergedBy and mergeCommit
	// are set by MergePull.
	closed      bool
	closedAt    time.Time
	closedBy    identity
	merged      bool
	mergedBy    identity
	mergeCommit string
	user        identity
	created     time.Time
	// reviewComments and reviews are the review's comments and the
	// reviews submitted, oldest first.
	reviewComments []*reviewComment
	reviews        []*review
}

// nextNumberLocked returns the next issue or pull request number: they
// share one sequence, as on GitHub.
func (r *repo) nextNumberLocked() int {
	n := 0
	for k := range r.issues {
		n = max(n, k)
	}
	for k := range r.pulls {
		n = max(n, k)
	}
	return n + 1
}

func (s *Server) createPull(c *call) reply {
	if c.repo.empty() {
		return validationFailed("PullRequest", "base", "invalid", "")
	}
	var in struct {
		Title string  `json:"title"`
		Head  string  `json:"head"`
		Base  string  `json:"base"`
		Body  *string `json:"body"`
		Draft bool    `json:"draft"`
	}
	if rep, ok := c.decode(&in); !ok {
		return rep
	}
	r := c.repo
	head := in.Head
	if owner, branch, ok := strings.Cut(head, ":"); ok {
		if !strings.EqualFold(owner, r.owner) {
			return validationFailed("PullRequest", "head", "invalid", "")
		}
		head = branch
	}
	headSHA, ok := r.refs["refs/heads/"+head]
	if !ok {
		return validationFailed("PullRequest", "head", "invalid", "")
	}
	baseSHA, ok := r.refs["refs/heads/"+in.Base]
	if !ok {
		return validationFailed("PullRequest", "base", "invalid", "")
	}
	if strings.TrimSpace(in.Title) == "" {
		return validationFailed("PullRequest", "title", "missing_field", "")
	}
	if in.Body != nil && utf8.RuneCountInString(*in.Body) > maxCommentBody {
		return validationFailed("PullRequest", "body", "custom", "body is too long (maximum is 65536 characters)")
	}
	if headSHA == baseSHA || r.git.isAncestor(headSHA, baseSHA) {
		return validationFailed("PullRequest", "", "custom", "No commits between "+in.Base+" and "+head)
	}
	for _, p := range r.pulls {
		if p.head == head && p.base == in.Base && !p.closed {
			return validationFailed("PullRequest", "", "custom", "A pull request already exists for "+r.owner+":"+head+".")
		}
	}
	p := &pull{
		number: r.nextNumberLocked(), id: s.newIDLocked(), title: in.Title,
		head: head, base: in.Base, draft: in.Draft, user: c.who, created: s.now().UTC(),
	}
	if in.Body != nil {
		p.body = *in.Body
	}
	s.addPullLocked(r, p)
	return jsonReply(http.StatusCreated, s.pullJSON(r, p))
}

// addPullLocked files p under its number, as a pull request and as the
// issue that holds its conversation.
func (s *Server) addPullLocked(r *repo, p *pull) {
	r.pulls[p.number] = p
	r.issues[p.number] = &issue{number: p.number, id: p.id, user: p.user, created: p.created, pull: p}
}

// updatePull edits a pull request's title and body; the other fields
// (state, base, maintainer_can_modify) are accepted and ignored.
func (s *Server) updatePull(c *call) reply {
	n, err := strconv.Atoi(c.params["pull_number"])
	p := c.repo.pulls[n]
	if err != nil || p == nil {
		return errorReply(http.StatusNotFound, "Not Found")
	}
	var in struct {
		Title *string `json:"title"`
		Body  *string `json:"body"`
	}
	if rep, ok := c.decode(&in); !ok {
		return rep
	}
	if in.Title != nil {
		if strings.TrimSpace(*in.Title) == "" {
			return validationFailed("PullRequest", "title", "missing_field", "")
		}
		p.title = *in.Title
	}
	if in.Body != nil {
		if utf8.RuneCountInString(*in.Body) > maxCommentBody {
			return validationFailed("PullRequest", "body", "custom", "body is too long (maximum is 65536 characters)")
		}
		p.body = *in.Body
	}
	return jsonReply(http.StatusOK, s.pullJSON(c.repo, p))
}

func (s *Server) getPull(c *call) reply {
	n, err := strconv.Atoi(c.params["pull_number"])
	p := c.repo.pulls[n]
	if err != nil || p == nil {
		return errorReply(http.StatusNotFound, "Not Found")
	}
	return jsonReply(http.StatusOK, s.pullJSON(c.repo, p))
}

// listPulls lists pull requests of a state (open unless the query says
// closed or all), filtered by head (owner:branch) and base, oldest first.
func (s *Server) listPulls(c *call) reply {
	q := c.r.URL.Query()
	state := q.Get("state")
	if state == "" {
		state = "open"
	}
	r := c.repo
	var out []map[string]any
	for n := 1; n <= r.nextNumberLocked(); n++ {
		p := r.pulls[n]
		if p == nil || state != "all" && state != p.state() {
			continue
		}
		if h := q.Get("head"); h != "" && !strings.EqualFold(h, r.owner+":"+p.head) {
			continue
		}
		if b := q.Get("base"); b != "" && b != p.base {
			continue
		}
		out = append(out, s.pullJSON(r, p))
	}
	if q.Get("sort") == "updated" { // by updated_at, newest first unless direction=asc
		asc := q.Get("direction") == "asc"
		sort.SliceStable(out, func(i, j int) bool {
			a, b := out[i]["updated_at"].(string), out[j]["updated_at"].(string)
			if asc {
				return a < b
			}
			return a > b
		})
	}
	return s.page(c, out)
}

// updated is when p last changed: its closing, else its opening.
func (p *pull) updated() time.Time {
	if p.closed {
		return p.closedAt
	}
	return p.created
}

func (p *pull) state() string {
	if p.closed {
		return "closed"
	}
	return "open"
}

func (s *Server) pullJSON(r *repo, p *pull) map[string]any {
	n := strconv.Itoa(p.number)
	side := func(branch string) map[string]any {
		return map[string]any{
			"label": r.owner + ":" + branch,
			"ref":   branch,
			"sha":   r.refs["refs/heads/"+branch],
			"user":  s.userJSON(identity{login: r.owner, typ: "Organization", id: r.ownerID}),
			"repo":  s.repoJSON(r),
		}
	}
	head := side(p.head)
	if p.closed {
		// A closed pull request's branch may be gone: its head is the
		// commit it had when it closed.
		head["sha"] = p.headSHA
	}
	if p.fork != "" {
		owner, name, _ := strings.Cut(p.fork, "/")
		forkOwner := s.identityLocked(owner, "User")
		repo := s.repoJSON(r)
		repo["name"], repo["full_name"], repo["fork"] = name, p.fork, true
		repo["owner"] = s.userJSON(forkOwner)
		repo["id"], repo["node_id"] = forkOwner.id+1, "R_"+p.fork
		repo["url"], repo["html_url"] = s.apiURL("repos", owner, name), s.htmlURL(owner, name)
		head = map[string]any{"label": owner + ":" + p.head, "ref": p.head, "sha": p.forkSHA, "user": s.userJSON(forkOwner), "repo": repo}
	}
	out := map[string]any{
		"id":                 p.id,
		"node_id":            "PR_" + strconv.FormatInt(p.id, 10),
		"number":             p.number,
		"state":              p.state(),
		"locked":             false,
		"title":              p.title,
		"body":               p.body,
		"draft":              p.draft,
		"user":               s.userJSON(p.user),
		"head":               head,
		"base":               side(p.base),
		"merged":             p.merged,
		"merged_at":          nil,
		"merged_by":          nil,
		"merge_commit_sha":   nil,
		"closed_at":          nil,
		"author_association": association(r, p.user),
		"created_at":         stamp(p.created),
		"updated_at":         stamp(p.updated()),
		"url":                s.apiURL("repos", r.owner, r.name, "pulls", n),
		"html_url":           s.htmlURL(r.owner, r.name, "pull", n),
		"issue_url":          s.apiURL("repos", r.owner, r.name, "issues", n),
		"diff_url":           s.htmlURL(r.owner, r.name, "pull", n+".diff"),
	}
	if p.closed {
		out["closed_at"] = stamp(p.closedAt)
	}
	if p.merged {
		out["merged_at"], out["merged_by"], out["merge_commit_sha"] = stamp(p.closedAt), s.userJSON(p.mergedBy), p.mergeCommit
	}
	return out
}

// PullRequest is a pull request as the server keeps it.
type PullRequest struct {
	Number      int
	Title, Body string
	// Head and Base are branch names.
	Head, Base string
	Draft      bool
	// Login is who opened it.
	Login string
}

// AddPull opens a pull request from branch head into base of repo, both
// of repo, by login (a User), and returns its number.
func (s *Server) AddPull(repo, head, base, title, login string) int {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repoLocked(repo)
	for _, b := range []string{head, base} {
		if _, ok := r.refs["refs/heads/"+b]; !ok {
			s.t.Fatalf("githubtest: AddPull: no branch %s in %s", b, repo)
		}
	}
	p := &pull{number: r.nextNumberLocked(), id: s.newIDLocked(), title: title, head: head, base: base, user: s.identityLocked(login, "User"), created: s.now().UTC()}
	s.addPullLocked(r, p)
	return p.number
}

// AddForkPull opens pull request from branch head of the fork forkRepo
// ("owner/name", whose head commit is headSHA) into base of repo, by
// login, and returns its number. The fork's commits are not in repo.
func (s *Server) AddForkPull(repo, forkRepo, head, headSHA, base, title, login string) int {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repoLocked(repo)
	if _, ok := r.refs["refs/heads/"+base]; !ok {
		s.t.Fatalf("githubtest: AddForkPull: no branch %s in %s", base, repo)
	}
	p := &pull{
		number: r.nextNumberLocked(), id: s.newIDLocked(), title: title, head: head, base: base,
		fork: forkRepo, forkSHA: headSHA, user: s.identityLocked(login, "User"), created: s.now().UTC(),
	}
	s.addPullLocked(r, p)
	return p.number
}

// ClosePull closes pull request number of repo, unmerged, by no one the
// server knows (its issue's closed_by is null).
func (s *Server) ClosePull(repo string, number int) {
	s.t.Helper()
	s.ClosePullBy(repo, number, "", "")
}

// ClosePullBy closes pull request number of repo, unmerged, as login of
// type typ ("User" or "Bot"; "" for no one the server knows).
func (s *Server) ClosePullBy(repo string, number int, login, typ string) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repoLocked(repo)
	p := r.pulls[number]
	if p == nil || p.closed {
		s.t.Fatalf("githubtest: ClosePull: no open pull request %s#%d", repo, number)
	}
	s.closeLocked(r, p, login, typ)
}

// closeLocked closes p now, as login (typ), keeping its head commit.
func (s *Server) closeLocked(r *repo, p *pull, login, typ string) {
	p.closed, p.closedAt, p.headSHA = true, s.now().UTC(), r.refs["refs/heads/"+p.head]
	if login != "" {
		p.closedBy = s.identityLocked(login, typ)
	}
}

// ReopenPull opens a closed, unmerged pull request again.
func (s *Server) ReopenPull(repo string, number int) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.repoLocked(repo).pulls[number]
	if p == nil || !p.closed || p.merged {
		s.t.Fatalf("githubtest: ReopenPull: no closed, unmerged pull request %s#%d", repo, number)
	}
	p.closed, p.closedAt, p.closedBy = false, time.Time{}, identity{}
}

// MergePull squash-merges pull request number of repo as login of type
// typ ("User" or "Bot"), as GitHub's "Squash and merge" does: one commit
// on the base branch's tip, titled "<title> (#<number>)", that makes the
// files the pull request changed (since its merge base with the base)
// what they are on its head. It returns the merge commit.
func (s *Server) MergePull(repo string, number int, login, typ string) string {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repoLocked(repo)
	p := r.pulls[number]
	if p == nil || p.closed || p.fork != "" {
		s.t.Fatalf("githubtest: MergePull: no open pull request from a branch of %s numbered %d", repo, number)
	}
	head, base := r.refs["refs/heads/"+p.head], r.refs["refs/heads/"+p.base]
	mergeBase := ""
	fromBase := r.git.ancestors(base)
	for _, sha := range r.git.ancestors(head).order {
		if fromBase.has[sha] {
			mergeBase = sha
			break
		}
	}
	before, after := map[string]leaf{}, map[string]leaf{}
	if o, ok := r.git.get(mergeBase, kindCommit); ok {
		_ = r.git.flatten(o.commit.tree, "", before)
	}
	o, _ := r.git.get(head, kindCommit)
	_ = r.git.flatten(o.commit.tree, "", after)
	files := map[string][]byte{}
	for path, l := range after {
		if b, ok := before[path]; !ok || b != l {
			blob, _ := r.git.get(l.sha, kindBlob)
			files[path] = blob.blob
		}
	}
	for path := range before {
		if _, ok := after[path]; !ok {
			files[path] = nil
		}
	}
	who := s.identityLocked(login, typ)
	a := person{name: login, email: login + "@users.noreply.github.com", date: s.now().UTC()}
	p.mergeCommit = s.commitLocked(r, p.base, files, fmt.Sprintf("%s (#%d)", p.title, p.number), a)
	s.closeLocked(r, p, login, typ)
	p.merged, p.mergedBy, p.headSHA = true, who, head
	return p.mergeCommit
}

// Pulls returns the pull requests of repo, by number.
func (s *Server) Pulls(repo string) []PullRequest {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repoLocked(repo)
	var out []PullRequest
	for n := 1; n < r.nextNumberLocked(); n++ {
		if p := r.pulls[n]; p != nil {
			out = append(out, PullRequest{Number: p.number, Title: p.title, Body: p.body, Head: p.head, Base: p.base, Draft: p.draft, Login: p.user.login})
		}
	}
	return out
}
