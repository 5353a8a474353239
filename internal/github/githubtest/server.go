package githubtest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// BasePath is the path below which the fake serves the API. It is not the
// root on purpose: a client that builds absolute paths instead of resolving
// them against GITHUB_API_URL fails against it, as it would on GitHub
// Enterprise.
const BasePath = "/api/v3/"

// DefaultRepo is the repository every Server starts with unless WithRepo is
// given: not empty, default branch "main", holding README.md.
const DefaultRepo = "octo-org/octo-repo"

// DefaultLogin is the identity of any token the Server was not told about:
// the login GITHUB_TOKEN writes as.
const DefaultLogin = "github-actions[bot]"

// Server is a fake GitHub REST API. Its methods are safe for concurrent use
// and may be called while requests are being served.
type Server struct {
	t        testing.TB
	ts       *httptest.Server
	desc     *description
	now      func() time.Time
	maxBytes int64

	mu       sync.Mutex
	repos    map[string]*repo
	tokens   map[string]identity
	logins   map[string]identity
	nextID   int64
	faults   []*fault
	hooks    []*hook
	requests []Request
	// denied maps a token to the operations it is not permitted (Deny).
	denied map[string]map[string]bool
}

// Option configures a Server.
type Option func(*Server)

// WithRepo adds an empty repository (no commits, no branches) named
// "owner/name" whose default branch will be defaultBranch. Give it content
// with Server.Commit. When any WithRepo is given, DefaultRepo is not
// created.
func WithRepo(fullName, defaultBranch string) Option {
	return func(s *Server) {
		if _, err := s.addRepo(fullName, defaultBranch); err != nil {
			s.t.Fatalf("githubtest: %v", err)
		}
	}
}

// WithToken makes requests carrying token act as login, of type "User" or
// "Bot". Tokens not given act as DefaultLogin (type "Bot").
func WithToken(token, login, typ string) Option {
	return func(s *Server) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.tokens[token] = s.identityLocked(login, typ)
	}
}

// WithClock sets the clock for commit dates, comment times and
// rate-limit headers (default time.Now).
func WithClock(now func() time.Time) Option {
	return func(s *Server) { s.now = now }
}

// NewServer starts a fake GitHub API that is closed when the test ends.
func NewServer(t testing.TB, opts ...Option) *Server {
	t.Helper()
	d, err := loadDescription(t.Context())
	if err != nil {
		t.Fatalf("githubtest: %v", err)
	}
	s := &Server{
		t:        t,
		desc:     d,
		now:      time.Now,
		maxBytes: 110 << 20,
		repos:    map[string]*repo{},
		tokens:   map[string]identity{},
		logins:   map[string]identity{},
		nextID:   1000,
	}
	s.logins[strings.ToLower(DefaultLogin)] = identity{login: DefaultLogin, typ: "Bot", id: 41898282}
	for _, o := range opts {
		o(s)
	}
	if len(s.repos) == 0 {
		if _, err := s.addRepo(DefaultRepo, "main"); err != nil {
			t.Fatalf("githubtest: %v", err)
		}
		s.Commit(DefaultRepo, "main", map[string]string{"README.md": "# octo-repo\n"}, "Initial commit")
	}
	s.ts = httptest.NewServer(s)
	t.Cleanup(s.ts.Close)
	return s
}

// URL is the API base URL, with its trailing slash, for GITHUB_API_URL.
func (s *Server) URL() string { return s.ts.URL + BasePath }

// Client returns an HTTP client for the server.
func (s *Server) Client() *http.Client { return s.ts.Client() }

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.maxBytes))
	if err != nil {
		s.finish(w, r, "", identity{}, false, errorReply(http.StatusRequestEntityTooLarge, "request body too large"))
		return
	}
	rt, err := s.desc.find(r, BasePath)
	if err != nil {
		s.t.Errorf("githubtest: %v", err)
		s.finish(w, r, "", identity{}, false, errorReply(http.StatusNotFound, "Not Found"))
		return
	}
	op := rt.operation()
	if err := validate(rt, body); err != nil {
		s.t.Errorf("githubtest: %s %s: %v", r.Method, r.URL.RequestURI(), err)
		s.finish(w, r, op, identity{}, false, errorReply(http.StatusUnprocessableEntity, "Invalid request.\n\n"+err.Error()))
		return
	}
	if h := s.takeHook(op); h != nil {
		h()
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	who, authed, bad := s.authenticate(r)
	f := s.takeFaultLocked(op)
	if f != nil && !f.Served {
		s.finishLocked(w, r, op, who, true, f.reply(s.now()))
		return
	}
	var rep reply
	switch {
	case bad:
		rep = errorReply(http.StatusUnauthorized, "Bad credentials")
	case !authed && r.Method != http.MethodGet && r.Method != http.MethodHead:
		rep = errorReply(http.StatusUnauthorized, "Requires authentication")
	case s.denied[tokenOf(r)][op]:
		rep = errorReply(http.StatusForbidden, "Resource not accessible by integration")
	default:
		rep = s.dispatchLocked(&call{r: r, op: op, params: rt.params, body: body, who: who})
	}
	if f != nil {
		rep = f.reply(s.now())
	}
	s.finishLocked(w, r, op, who, f != nil, rep)
}

func (s *Server) dispatchLocked(c *call) reply {
	h, ok := handlers[c.op]
	if !ok {
		s.t.Errorf("githubtest: %s is in the OpenAPI subset but the fake does not serve it", c.op)
		return errorReply(http.StatusNotImplemented, "not implemented by githubtest")
	}
	if owner, ok := c.params["owner"]; ok {
		c.repo = s.repos[strings.ToLower(owner+"/"+c.params["repo"])]
		if c.repo == nil {
			return errorReply(http.StatusNotFound, "Not Found")
		}
	}
	return h(s, c)
}

// Deny makes requests with token for op (e.g. "POST
// /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches") answer
// 403 "Resource not accessible by integration", as GitHub answers a
// GITHUB_TOKEN whose job lacks the permission.
func (s *Server) Deny(token, op string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.denied == nil {
		s.denied = map[string]map[string]bool{}
	}
	if s.denied[token] == nil {
		s.denied[token] = map[string]bool{}
	}
	s.denied[token][op] = true
}

// tokenOf returns the token of the request's Authorization header.
func tokenOf(r *http.Request) string {
	_, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	return token
}

// authenticate returns the identity of the request's token. authed is false
// without a token; bad is true for a malformed Authorization header.
func (s *Server) authenticate(r *http.Request) (who identity, authed, bad bool) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return identity{}, false, false
	}
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || token == "" || !strings.EqualFold(scheme, "bearer") && !strings.EqualFold(scheme, "token") {
		return identity{}, false, true
	}
	if id, ok := s.tokens[token]; ok {
		return id, true, false
	}
	return s.logins[strings.ToLower(DefaultLogin)], true, false
}

func (s *Server) finish(w http.ResponseWriter, r *http.Request, op string, who identity, faulted bool, rep reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.finishLocked(w, r, op, who, faulted, rep)
}

func (s *Server) finishLocked(w http.ResponseWriter, r *http.Request, op string, who identity, faulted bool, rep reply) {
	h := w.Header()
	for k, v := range rep.header {
		h[k] = v
	}
	if h.Get("X-Ratelimit-Limit") == "" {
		h.Set("X-Ratelimit-Limit", "5000")
		h.Set("X-Ratelimit-Remaining", "4999")
		h.Set("X-Ratelimit-Used", "1")
		h.Set("X-Ratelimit-Resource", "core")
		h.Set("X-Ratelimit-Reset", strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10))
	}
	h.Set("X-Github-Api-Version-Selected", "2022-11-28")
	var out []byte
	switch {
	case rep.raw != nil:
		out = rep.raw
		if h.Get("Content-Type") == "" {
			h.Set("Content-Type", "application/octet-stream")
		}
	case rep.body != nil:
		var err error
		if out, err = json.Marshal(rep.body); err != nil {
			s.t.Errorf("githubtest: encode reply to %s: %v", op, err)
		}
		h.Set("Content-Type", "application/json; charset=utf-8")
	}
	s.requests = append(s.requests, Request{
		Method:        r.Method,
		Path:          "/" + strings.TrimPrefix(r.URL.Path, BasePath),
		Query:         r.URL.RawQuery,
		Operation:     op,
		Status:        rep.status,
		Login:         who.login,
		Fault:         faulted,
		RequestBytes:  max(r.ContentLength, 0),
		ResponseBytes: int64(len(out)),
	})
	w.WriteHeader(rep.status)
	if r.Method != http.MethodHead {
		_, _ = io.Copy(w, bytes.NewReader(out))
	}
}

// call is one routed, validated request.
type call struct {
	r      *http.Request
	op     string
	params map[string]string
	body   []byte
	who    identity
	repo   *repo
}

// decode unmarshals the request body into v (the description already
// checked its shape); when it cannot, ok is false and rep is GitHub's 400.
func (c *call) decode(v any) (rep reply, ok bool) {
	if err := json.Unmarshal(c.body, v); err != nil {
		return errorReply(http.StatusBadRequest, "Problems parsing JSON: "+err.Error()), false
	}
	return reply{}, true
}

// reply is an answer: a JSON body, or raw bytes.
type reply struct {
	status int
	header http.Header
	body   any
	raw    []byte
}

func jsonReply(status int, v any) reply { return reply{status: status, body: v} }

// errorReply is GitHub's error shape.
func errorReply(status int, message string) reply {
	return jsonReply(status, map[string]any{
		"message":           message,
		"documentation_url": "https://docs.github.com/rest",
		"status":            strconv.Itoa(status),
	})
}

// validationFailed is GitHub's 422 with a list of field errors.
func validationFailed(resource, field, code, message string) reply {
	return jsonReply(http.StatusUnprocessableEntity, map[string]any{
		"message": "Validation Failed",
		"errors": []map[string]string{{
			"resource": resource, "field": field, "code": code, "message": message,
		}},
		"documentation_url": "https://docs.github.com/rest",
		"status":            "422",
	})
}

// handler serves one operation with s.mu held.
type handler func(s *Server, c *call) reply

// handlers maps each operation of the OpenAPI subset to its handler.
var handlers = map[string]handler{
	"GET /repos/{owner}/{repo}":                                             (*Server).getRepo,
	"GET /repos/{owner}/{repo}/collaborators/{username}/permission":         (*Server).getPermission,
	"GET /repos/{owner}/{repo}/commits":                                     (*Server).listCommits,
	"GET /repos/{owner}/{repo}/commits/{ref}":                               (*Server).getRepoCommit,
	"GET /repos/{owner}/{repo}/contents/{path}":                             (*Server).getContents,
	"PUT /repos/{owner}/{repo}/contents/{path}":                             (*Server).putContents,
	"GET /repos/{owner}/{repo}/git/blobs/{file_sha}":                        (*Server).getBlob,
	"POST /repos/{owner}/{repo}/git/blobs":                                  (*Server).createBlob,
	"GET /repos/{owner}/{repo}/git/commits/{commit_sha}":                    (*Server).getGitCommit,
	"POST /repos/{owner}/{repo}/git/commits":                                (*Server).createCommit,
	"GET /repos/{owner}/{repo}/git/ref/{ref}":                               (*Server).getRef,
	"POST /repos/{owner}/{repo}/git/refs":                                   (*Server).createRef,
	"PATCH /repos/{owner}/{repo}/git/refs/{ref}":                            (*Server).updateRef,
	"GET /repos/{owner}/{repo}/git/trees/{tree_sha}":                        (*Server).getTree,
	"POST /repos/{owner}/{repo}/git/trees":                                  (*Server).createTree,
	"GET /repos/{owner}/{repo}/issues/{issue_number}":                       (*Server).getIssue,
	"GET /repos/{owner}/{repo}/issues/{issue_number}/comments":              (*Server).listComments,
	"POST /repos/{owner}/{repo}/issues/{issue_number}/comments":             (*Server).createComment,
	"GET /repos/{owner}/{repo}/issues/comments":                             (*Server).listRepoComments,
	"GET /repos/{owner}/{repo}/issues/comments/{comment_id}":                (*Server).getComment,
	"PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}":              (*Server).updateComment,
	"POST /repos/{owner}/{repo}/issues/{issue_number}/reactions":            (*Server).createIssueReaction,
	"POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions":     (*Server).createCommentReaction,
	"GET /repos/{owner}/{repo}/issues/{issue_number}/labels":                (*Server).listLabels,
	"POST /repos/{owner}/{repo}/issues/{issue_number}/labels":               (*Server).addLabels,
	"DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name}":      (*Server).removeLabel,
	"GET /repos/{owner}/{repo}/pulls":                                       (*Server).listPulls,
	"POST /repos/{owner}/{repo}/pulls":                                      (*Server).createPull,
	"GET /repos/{owner}/{repo}/pulls/{pull_number}":                         (*Server).getPull,
	"PATCH /repos/{owner}/{repo}/pulls/{pull_number}":                       (*Server).updatePull,
	"GET /repos/{owner}/{repo}/pulls/{pull_number}/comments":                (*Server).listReviewComments,
	"GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews":                 (*Server).listReviews,
	"POST /repos/{owner}/{repo}/pulls/comments/{comment_id}/reactions":      (*Server).createReviewCommentReaction,
	"GET /repos/{owner}/{repo}/compare/{basehead}":                          (*Server).compareCommits,
	"POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches": (*Server).dispatchWorkflow,
}
