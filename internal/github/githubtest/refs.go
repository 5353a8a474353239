package githubtest

import (
	"net/http"
	"strings"
	"time"
)

// The Git Data API: commits and refs.

// personIn is an author or committer in a request.
type personIn struct {
	Name  string `json:"name"`
	Email string `json:"email"`
	Date  string `json:"date"`
}

// person returns p with defaults from who and now; ok is false for a date
// that is not RFC 3339.
func (p *personIn) person(who identity, now time.Time) (person, bool) {
	if p == nil {
		return person{name: who.login, email: noreply(who), date: now}, true
	}
	out := person{name: p.Name, email: p.Email, date: now}
	if p.Date != "" {
		t, err := time.Parse(time.RFC3339, p.Date)
		if err != nil {
			return person{}, false
		}
		out.date = t
	}
	return out, true
}

func noreply(who identity) string {
	return strings.ToLower(strings.NewReplacer("[", "", "]", "").Replace(who.login)) + "@users.noreply.github.com"
}

func (s *Server) createCommit(c *call) reply {
	if c.repo.empty() {
		return emptyRepo()
	}
	var in struct {
		Message   string    `json:"message"`
		Tree      string    `json:"tree"`
		Parents   []string  `json:"parents"`
		Author    *personIn `json:"author"`
		Committer *personIn `json:"committer"`
	}
	if rep, ok := c.decode(&in); !ok {
		return rep
	}
	g := c.repo.git
	if _, ok := g.get(in.Tree, kindTree); !ok {
		return errorReply(http.StatusUnprocessableEntity, "Tree SHA does not exist")
	}
	for _, p := range in.Parents {
		if _, ok := g.get(p, kindCommit); !ok {
			return errorReply(http.StatusUnprocessableEntity, "Parent SHA does not exist or is not a commit object")
		}
	}
	now := s.now().UTC().Truncate(time.Second)
	author, ok := in.Author.person(c.who, now)
	if !ok {
		return errorReply(http.StatusUnprocessableEntity, "author.date is not ISO 8601")
	}
	committer := author
	if in.Committer != nil {
		if committer, ok = in.Committer.person(c.who, now); !ok {
			return errorReply(http.StatusUnprocessableEntity, "committer.date is not ISO 8601")
		}
	}
	co := &commitObject{tree: in.Tree, parents: in.Parents, author: author, committer: committer, message: in.Message}
	sha := g.put(&object{kind: kindCommit, commit: co})
	return jsonReply(http.StatusCreated, s.gitCommitJSON(c.repo, sha, co))
}

func (s *Server) getGitCommit(c *call) reply {
	if c.repo.empty() {
		return emptyRepo()
	}
	sha := c.params["commit_sha"]
	o, ok := c.repo.git.get(sha, kindCommit)
	if !ok {
		return errorReply(http.StatusNotFound, "Not Found")
	}
	return jsonReply(http.StatusOK, s.gitCommitJSON(c.repo, sha, o.commit))
}

func (s *Server) getRef(c *call) reply {
	if c.repo.empty() {
		return emptyRepo()
	}
	name := "refs/" + c.params["ref"]
	sha, ok := c.repo.refs[name]
	if !ok {
		return errorReply(http.StatusNotFound, "Not Found")
	}
	return jsonReply(http.StatusOK, s.refJSON(c.repo, name, sha))
}

func (s *Server) createRef(c *call) reply {
	if c.repo.empty() {
		return emptyRepo()
	}
	var in struct {
		Ref string `json:"ref"`
		SHA string `json:"sha"`
	}
	if rep, ok := c.decode(&in); !ok {
		return rep
	}
	if !strings.HasPrefix(in.Ref, "refs/") || strings.Count(in.Ref, "/") < 2 || !validTreePath(in.Ref) {
		return errorReply(http.StatusUnprocessableEntity, "Reference name must start with 'refs/' and have at least two slashes.")
	}
	if _, ok := c.repo.git.objects[in.SHA]; !ok {
		return errorReply(http.StatusUnprocessableEntity, "Object does not exist")
	}
	if _, exists := c.repo.refs[in.Ref]; exists {
		return errorReply(http.StatusUnprocessableEntity, "Reference already exists")
	}
	c.repo.refs[in.Ref] = in.SHA
	return jsonReply(http.StatusCreated, s.refJSON(c.repo, in.Ref, in.SHA))
}

func (s *Server) updateRef(c *call) reply {
	if c.repo.empty() {
		return emptyRepo()
	}
	var in struct {
		SHA   string `json:"sha"`
		Force bool   `json:"force"`
	}
	if rep, ok := c.decode(&in); !ok {
		return rep
	}
	name := "refs/" + c.params["ref"]
	old, ok := c.repo.refs[name]
	if !ok {
		return errorReply(http.StatusUnprocessableEntity, "Reference does not exist")
	}
	if _, ok := c.repo.git.get(in.SHA, kindCommit); !ok {
		return errorReply(http.StatusUnprocessableEntity, "Object does not exist")
	}
	if !in.Force && !c.repo.git.isAncestor(old, in.SHA) {
		return errorReply(http.StatusUnprocessableEntity, "Update is not a fast forward")
	}
	c.repo.refs[name] = in.SHA
	return jsonReply(http.StatusOK, s.refJSON(c.repo, name, in.SHA))
}
