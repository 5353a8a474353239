package githubtest

import (
	"fmt"
	"strings"
	"time"
)

// identity is a GitHub account.
type identity struct {
	login, typ string
	id         int64
}

// repo is one repository's state.
type repo struct {
	owner, name   string
	id            int64
	ownerID       int64
	defaultBranch string
	git           *store
	// refs maps full ref names (refs/heads/main) to commit shas. A
	// repository without refs is empty.
	refs   map[string]string
	issues map[int]*issue
	// pulls holds pull requests by number; they share the issues' numbers.
	pulls map[int]*pull
	// comments indexes every issue comment by id.
	comments map[int64]*issueComment
	// reviewComments indexes every pull request review comment by id.
	reviewComments map[int64]*reviewComment
	// runs are the workflow runs dispatched, oldest first.
	runs []*workflowRun
	// roles maps lower-case logins to their role: admin, maintain, write,
	// triage, read or none.
	roles map[string]string
}

func (r *repo) fullName() string { return r.owner + "/" + r.name }
func (r *repo) empty() bool      { return len(r.refs) == 0 }

// issue is an issue with its comments, reactions and labels.
type issue struct {
	number      int
	id          int64
	title, body string
	user        identity
	labels      []string
	comments    []*issueComment
	reactions   []*reaction
	created     time.Time
	// pull is the pull request this issue is, nil for a plain issue.
	pull *pull
}

// issueComment is one comment on an issue.
type issueComment struct {
	id               int64
	issue            *issue
	body             string
	user             identity
	created, updated time.Time
	reactions        []*reaction
}

// reaction is one emoji reaction.
type reaction struct {
	id      int64
	content string
	user    identity
	created time.Time
}

func (s *Server) newIDLocked() int64 {
	s.nextID++
	return s.nextID
}

// identityLocked returns the account for login, creating it with typ when
// it is new.
func (s *Server) identityLocked(login, typ string) identity {
	key := strings.ToLower(login)
	if id, ok := s.logins[key]; ok {
		return id
	}
	if typ == "" {
		typ = "User"
	}
	id := identity{login: login, typ: typ, id: s.newIDLocked()}
	s.logins[key] = id
	return id
}

func (s *Server) addRepo(fullName, defaultBranch string) (*repo, error) {
	owner, name, ok := strings.Cut(fullName, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return nil, fmt.Errorf("repository %q is not owner/name", fullName)
	}
	if defaultBranch == "" {
		defaultBranch = "main"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	key := strings.ToLower(fullName)
	if _, dup := s.repos[key]; dup {
		return nil, fmt.Errorf("repository %s added twice", fullName)
	}
	r := &repo{
		owner:          owner,
		name:           name,
		id:             s.newIDLocked(),
		ownerID:        s.identityLocked(owner, "Organization").id,
		defaultBranch:  defaultBranch,
		git:            newStore(),
		refs:           map[string]string{},
		issues:         map[int]*issue{},
		pulls:          map[int]*pull{},
		comments:       map[int64]*issueComment{},
		reviewComments: map[int64]*reviewComment{},
		roles:          map[string]string{},
	}
	s.repos[key] = r
	return r, nil
}

// repoLocked returns the repository or fails the test.
func (s *Server) repoLocked(fullName string) *repo {
	r := s.repos[strings.ToLower(fullName)]
	if r == nil {
		s.t.Fatalf("githubtest: no repository %s", fullName)
	}
	return r
}

// resolve resolves a commit-ish the way GitHub's commits and contents
// endpoints do: HEAD, a full or abbreviated commit sha, a full ref name,
// heads/… or tags/…, or a branch or tag name.
func (r *repo) resolve(ref string) (string, bool) {
	if ref == "HEAD" {
		ref = "refs/heads/" + r.defaultBranch
	}
	for _, name := range []string{ref, "refs/" + ref, "refs/heads/" + ref, "refs/tags/" + ref} {
		if sha, ok := r.refs[name]; ok {
			return sha, true
		}
	}
	if len(ref) >= 7 && len(ref) <= 40 && isHex(ref) {
		found := ""
		for sha, o := range r.git.objects {
			if o.kind == kindCommit && strings.HasPrefix(sha, ref) {
				if found != "" {
					return "", false
				}
				found = sha
			}
		}
		return found, found != ""
	}
	return "", false
}

func isHex(s string) bool {
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// fold maps a role to the permission GitHub reports beside it: maintain
// counts as write, triage as read.
func fold(role string) string {
	switch role {
	case "admin":
		return "admin"
	case "maintain", "write":
		return "write"
	case "triage", "read":
		return "read"
	default:
		return "none"
	}
}

const timeFormat = "2006-01-02T15:04:05Z"

func stamp(t time.Time) string { return t.UTC().Format(timeFormat) }
