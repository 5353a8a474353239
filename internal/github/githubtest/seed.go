package githubtest

import (
	"strings"
)

// Helpers for tests: give the fake content and look at what clients did.

// seedAuthor is the author of commits made with Commit.
var seedAuthor = person{name: "Octo Seed", email: "seed@example.com"}

// Commit commits files (path → content) on branch of repo, on top of its
// tip; a missing branch starts from the default branch, and in an empty
// repository the commit is the root. It returns the commit's sha.
func (s *Server) Commit(repo, branch string, files map[string]string, message string) string {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repoLocked(repo)
	bs := make(map[string][]byte, len(files))
	for p, c := range files {
		if !validTreePath(p) {
			s.t.Fatalf("githubtest: Commit: bad path %q", p)
		}
		bs[p] = []byte(c)
	}
	a := seedAuthor
	a.date = s.now().UTC()
	return s.commitLocked(r, branch, bs, message, a)
}

// ForcePush rewrites branch as a person's `git push --force` does: a
// new commit of files on onto (any commit of repo) becomes the branch's
// tip, whatever the branch held before. It returns the new commit.
func (s *Server) ForcePush(repo, branch, onto string, files map[string]string, message string) string {
	s.t.Helper()
	s.mu.Lock()
	r := s.repoLocked(repo)
	if _, ok := r.git.get(onto, kindCommit); !ok {
		s.mu.Unlock()
		s.t.Fatalf("githubtest: ForcePush: no commit %s in %s", onto, repo)
	}
	r.refs["refs/heads/"+branch] = onto
	s.mu.Unlock()
	return s.Commit(repo, branch, files, message)
}

// Head returns the commit branch points at, or "" when it does not exist.
func (s *Server) Head(repo, branch string) string {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.repoLocked(repo).refs["refs/heads/"+branch]
}

// File returns the content of path at the tip of branch.
func (s *Server) File(repo, branch, path string) (string, bool) {
	s.t.Helper()
	files := s.Files(repo, branch)
	c, ok := files[path]
	return c, ok
}

// Files returns every file at the tip of branch, by path; nil when the
// branch does not exist.
func (s *Server) Files(repo, branch string) map[string]string {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repoLocked(repo)
	tip, ok := r.refs["refs/heads/"+branch]
	if !ok {
		return nil
	}
	o, _ := r.git.get(tip, kindCommit)
	leaves := map[string]leaf{}
	_ = r.git.flatten(o.commit.tree, "", leaves)
	out := make(map[string]string, len(leaves))
	for p, l := range leaves {
		if b, ok := r.git.get(l.sha, kindBlob); ok {
			out[p] = string(b.blob)
		}
	}
	return out
}

// CommitInfo describes one commit of a branch's history.
type CommitInfo struct {
	SHA     string
	Message string
	Parents []string
	// Author is the author's name.
	Author string
}

// Log returns branch's history from its tip, following first parents.
func (s *Server) Log(repo, branch string) []CommitInfo {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repoLocked(repo)
	var out []CommitInfo
	for sha := r.refs["refs/heads/"+branch]; sha != ""; {
		o, ok := r.git.get(sha, kindCommit)
		if !ok {
			break
		}
		out = append(out, CommitInfo{SHA: sha, Message: o.commit.message, Parents: o.commit.parents, Author: o.commit.author.name})
		sha = ""
		if len(o.commit.parents) > 0 {
			sha = o.commit.parents[0]
		}
	}
	return out
}

// SetPermission gives login a role on repo: admin, maintain, write, triage,
// read or none. Users without a role are unknown: their permission answers
// 404.
func (s *Server) SetPermission(repo, login, role string) {
	s.t.Helper()
	switch role {
	case "admin", "maintain", "write", "triage", "read", "none":
	default:
		s.t.Fatalf("githubtest: SetPermission: unknown role %q", role)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repoLocked(repo).roles[strings.ToLower(login)] = role
}

// AddIssue opens issue number on repo, written by login (a User).
func (s *Server) AddIssue(repo string, number int, title, body, login string) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repoLocked(repo)
	if r.issues[number] != nil {
		s.t.Fatalf("githubtest: AddIssue: %s#%d exists", repo, number)
	}
	r.issues[number] = &issue{
		number: number, id: s.newIDLocked(), title: title, body: body,
		user: s.identityLocked(login, "User"), created: s.now().UTC(),
	}
}

// AddComment posts a comment on an issue as login (a User, unless login
// is already known with another type) and returns its id.
func (s *Server) AddComment(repo string, number int, login, body string) int64 {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repoLocked(repo)
	is := r.issues[number]
	if is == nil {
		s.t.Fatalf("githubtest: AddComment: no issue %s#%d", repo, number)
	}
	return s.addCommentLocked(r, is, s.identityLocked(login, "User"), body).id
}

// Comment is an issue comment as the server keeps it.
type Comment struct {
	ID    int64
	Login string
	Body  string
	// Reactions are the reactions' contents, e.g. "eyes".
	Reactions []string
}

// Comments returns the comments on an issue, oldest first.
func (s *Server) Comments(repo string, number int) []Comment {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	is := s.repoLocked(repo).issues[number]
	if is == nil {
		return nil
	}
	out := make([]Comment, 0, len(is.comments))
	for _, cm := range is.comments {
		out = append(out, Comment{ID: cm.id, Login: cm.user.login, Body: cm.body, Reactions: contents(cm.reactions)})
	}
	return out
}

// IssueReactions returns the contents of the reactions on the issue itself.
func (s *Server) IssueReactions(repo string, number int) []string {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	is := s.repoLocked(repo).issues[number]
	if is == nil {
		return nil
	}
	return contents(is.reactions)
}

// Labels returns the labels on an issue.
func (s *Server) Labels(repo string, number int) []string {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	is := s.repoLocked(repo).issues[number]
	if is == nil {
		return nil
	}
	return append([]string(nil), is.labels...)
}

func contents(rs []*reaction) []string {
	out := []string{}
	for _, x := range rs {
		out = append(out, x.content)
	}
	return out
}
