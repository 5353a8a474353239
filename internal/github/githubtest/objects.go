package githubtest

import (
	"strings"
)

// The JSON objects the fake answers with: the fields go-github and optr
// read, named and shaped as GitHub names and shapes them.

func (s *Server) apiURL(parts ...string) string {
	return s.ts.URL + BasePath + strings.Join(parts, "/")
}

func (s *Server) htmlURL(parts ...string) string {
	return s.ts.URL + "/" + strings.Join(parts, "/")
}

func (s *Server) userJSON(u identity) map[string]any {
	return map[string]any{
		"login":      u.login,
		"id":         u.id,
		"node_id":    "U_" + u.login,
		"type":       u.typ,
		"site_admin": false,
		"url":        s.apiURL("users", u.login),
		"html_url":   s.htmlURL(u.login),
		"avatar_url": s.htmlURL(u.login + ".png"),
	}
}

func (s *Server) repoJSON(r *repo) map[string]any {
	return map[string]any{
		"id":             r.id,
		"node_id":        "R_" + r.fullName(),
		"name":           r.name,
		"full_name":      r.fullName(),
		"owner":          s.userJSON(identity{login: r.owner, typ: "Organization", id: r.ownerID}),
		"private":        false,
		"visibility":     "public",
		"fork":           false,
		"archived":       false,
		"disabled":       false,
		"default_branch": r.defaultBranch,
		"size":           len(r.git.objects),
		"url":            s.apiURL("repos", r.owner, r.name),
		"html_url":       s.htmlURL(r.owner, r.name),
	}
}

func personJSON(p person) map[string]any {
	return map[string]any{"name": p.name, "email": p.email, "date": stamp(p.date)}
}

func (s *Server) gitCommitJSON(r *repo, sha string, c *commitObject) map[string]any {
	parents := []map[string]any{}
	for _, p := range c.parents {
		parents = append(parents, map[string]any{
			"sha":      p,
			"url":      s.apiURL("repos", r.owner, r.name, "git", "commits", p),
			"html_url": s.htmlURL(r.owner, r.name, "commit", p),
		})
	}
	return map[string]any{
		"sha":       sha,
		"node_id":   "C_" + sha,
		"url":       s.apiURL("repos", r.owner, r.name, "git", "commits", sha),
		"html_url":  s.htmlURL(r.owner, r.name, "commit", sha),
		"author":    personJSON(c.author),
		"committer": personJSON(c.committer),
		"message":   c.message,
		"tree": map[string]any{
			"sha": c.tree,
			"url": s.apiURL("repos", r.owner, r.name, "git", "trees", c.tree),
		},
		"parents":      parents,
		"verification": map[string]any{"verified": false, "reason": "unsigned", "signature": nil, "payload": nil},
	}
}

func (s *Server) repoCommitJSON(r *repo, sha string, c *commitObject) map[string]any {
	git := s.gitCommitJSON(r, sha, c)
	parents := git["parents"]
	delete(git, "sha")
	delete(git, "node_id")
	delete(git, "html_url")
	delete(git, "parents")
	git["comment_count"] = 0
	return map[string]any{
		"sha":          sha,
		"node_id":      "C_" + sha,
		"url":          s.apiURL("repos", r.owner, r.name, "commits", sha),
		"html_url":     s.htmlURL(r.owner, r.name, "commit", sha),
		"comments_url": s.apiURL("repos", r.owner, r.name, "commits", sha, "comments"),
		"commit":       git,
		"author":       nil,
		"committer":    nil,
		"parents":      parents,
	}
}

func (s *Server) refJSON(r *repo, name, sha string) map[string]any {
	return map[string]any{
		"ref":     name,
		"node_id": "REF_" + name,
		"url":     s.apiURL("repos", r.owner, r.name, "git", name),
		"object": map[string]any{
			"type": "commit",
			"sha":  sha,
			"url":  s.apiURL("repos", r.owner, r.name, "git", "commits", sha),
		},
	}
}

func (s *Server) reactionJSON(x *reaction) map[string]any {
	return map[string]any{
		"id":         x.id,
		"node_id":    "REA_" + x.content,
		"user":       s.userJSON(x.user),
		"content":    x.content,
		"created_at": stamp(x.created),
	}
}

func (s *Server) labelJSON(r *repo, name string) map[string]any {
	return map[string]any{
		"id":      int64(len(name)) * 7919,
		"node_id": "LA_" + name,
		"url":     s.apiURL("repos", r.owner, r.name, "labels", name),
		"name":    name,
		"color":   "ededed",
		"default": false,
	}
}
