package githubtest

import (
	"encoding/base64"
	"net/http"
	"path"
	"sort"
	"strings"
	"time"
)

// Repositories: metadata, permissions, commits and the contents API.

func (s *Server) getRepo(c *call) reply {
	return jsonReply(http.StatusOK, s.repoJSON(c.repo))
}

func (s *Server) getPermission(c *call) reply {
	login := c.params["username"]
	role, ok := c.repo.roles[strings.ToLower(login)]
	if !ok {
		return errorReply(http.StatusNotFound, "Not Found")
	}
	u := s.identityLocked(login, "User")
	return jsonReply(http.StatusOK, map[string]any{
		"permission": fold(role),
		"role_name":  role,
		"user":       s.userJSON(u),
	})
}

func (s *Server) getRepoCommit(c *call) reply {
	if c.repo.empty() {
		return emptyRepo()
	}
	ref := c.params["ref"]
	sha, ok := c.repo.resolve(ref)
	if !ok {
		return errorReply(http.StatusUnprocessableEntity, "No commit found for SHA: "+ref)
	}
	o, _ := c.repo.git.get(sha, kindCommit)
	return jsonReply(http.StatusOK, s.repoCommitJSON(c.repo, sha, o.commit))
}

// maxJSONContent is the largest file the contents API returns inline as
// Base64; larger files come back with encoding "none" and need a raw media
// type or the blobs API.
const maxJSONContent = 1 << 20

func (s *Server) getContents(c *call) reply {
	r := c.repo
	if r.empty() {
		return errorReply(http.StatusNotFound, "This repository is empty.")
	}
	ref := c.r.URL.Query().Get("ref")
	if ref == "" {
		ref = "HEAD"
	}
	commit, ok := r.resolve(ref)
	if !ok {
		return errorReply(http.StatusNotFound, "No commit found for the ref "+ref)
	}
	o, _ := r.git.get(commit, kindCommit)
	p := strings.Trim(c.params["path"], "/")
	e, ok := r.git.lookup(o.commit.tree, p)
	if !ok {
		return errorReply(http.StatusNotFound, "Not Found")
	}
	if e.kind == kindTree {
		t, _ := r.git.get(e.sha, kindTree)
		list := []map[string]any{}
		for _, child := range t.tree {
			list = append(list, s.contentJSON(r, path.Join(p, child.name), child, ref))
		}
		return jsonReply(http.StatusOK, list)
	}
	b, _ := r.git.get(e.sha, kindBlob)
	if wantsRaw(c.r) {
		return reply{status: http.StatusOK, raw: b.blob, header: http.Header{"Content-Type": {"application/vnd.github.raw"}}}
	}
	out := s.contentJSON(r, p, e, ref)
	out["encoding"], out["content"] = "base64", wrapBase64(base64.StdEncoding.EncodeToString(b.blob))
	if len(b.blob) > maxJSONContent {
		out["encoding"], out["content"] = "none", ""
	}
	return jsonReply(http.StatusOK, out)
}

// contentJSON describes one file or directory of the contents API.
func (s *Server) contentJSON(r *repo, p string, e treeEntry, ref string) map[string]any {
	typ := map[string]string{kindBlob: "file", kindTree: "dir", kindCommit: "submodule"}[e.kind]
	if e.mode == modeSymlink {
		typ = "symlink"
	}
	size := 0
	if b, ok := r.git.get(e.sha, kindBlob); ok {
		size = len(b.blob)
	}
	self := s.apiURL("repos", r.owner, r.name, "contents", p) + "?ref=" + ref
	git := s.apiURL("repos", r.owner, r.name, "git", e.kind+"s", e.sha)
	html := s.htmlURL(r.owner, r.name, "blob", ref, p)
	out := map[string]any{
		"type":     typ,
		"name":     path.Base(p),
		"path":     p,
		"sha":      e.sha,
		"size":     size,
		"url":      self,
		"git_url":  git,
		"html_url": html,
		"_links":   map[string]any{"self": self, "git": git, "html": html},
	}
	if typ == "file" {
		out["download_url"] = s.htmlURL(r.owner, r.name, "raw", ref, p)
	}
	return out
}

// lookup finds the entry at p below tree sha; the empty path is the tree
// itself.
func (g *store) lookup(sha, p string) (treeEntry, bool) {
	cur := treeEntry{mode: modeTree, kind: kindTree, sha: sha}
	if p == "" {
		return cur, true
	}
	for _, name := range strings.Split(p, "/") {
		t, ok := g.get(cur.sha, kindTree)
		if !ok {
			return treeEntry{}, false
		}
		found := false
		for _, e := range t.tree {
			if e.name == name {
				cur, found = e, true
				break
			}
		}
		if !found {
			return treeEntry{}, false
		}
	}
	return cur, true
}

func (s *Server) putContents(c *call) reply {
	r := c.repo
	var in struct {
		Message   string    `json:"message"`
		Content   string    `json:"content"`
		SHA       string    `json:"sha"`
		Branch    string    `json:"branch"`
		Author    *personIn `json:"author"`
		Committer *personIn `json:"committer"`
	}
	if rep, ok := c.decode(&in); !ok {
		return rep
	}
	p := c.params["path"]
	if !validTreePath(p) {
		return errorReply(http.StatusUnprocessableEntity, "path contains a malformed path component")
	}
	content, err := base64.StdEncoding.DecodeString(in.Content)
	if err != nil {
		return errorReply(http.StatusUnprocessableEntity, "content is not valid Base64")
	}
	branch := in.Branch
	if branch == "" {
		branch = r.defaultBranch
	}
	now := s.now().UTC().Truncate(time.Second)
	author, ok := in.Author.person(c.who, now)
	if in.Author == nil && in.Committer != nil {
		author, ok = in.Committer.person(c.who, now)
	}
	if !ok {
		return errorReply(http.StatusUnprocessableEntity, "author.date is not ISO 8601")
	}

	status := http.StatusCreated
	if !r.empty() {
		tip, ok := r.refs["refs/heads/"+branch]
		if !ok {
			return errorReply(http.StatusNotFound, "Branch "+branch+" not found")
		}
		o, _ := r.git.get(tip, kindCommit)
		if e, exists := r.git.lookup(o.commit.tree, p); exists {
			switch {
			case e.kind != kindBlob:
				return errorReply(http.StatusUnprocessableEntity, p+" is a directory")
			case in.SHA == "":
				return errorReply(http.StatusUnprocessableEntity, "Invalid request.\n\n\"sha\" wasn't supplied.")
			case in.SHA != e.sha:
				return errorReply(http.StatusConflict, p+" does not match "+in.SHA)
			}
			status = http.StatusOK
		}
	}
	commit := s.commitLocked(r, branch, map[string][]byte{p: content}, in.Message, author)
	o, _ := r.git.get(commit, kindCommit)
	e, _ := r.git.lookup(o.commit.tree, p)
	file := s.contentJSON(r, p, e, branch)
	return jsonReply(status, map[string]any{"content": file, "commit": s.gitCommitJSON(r, commit, o.commit)})
}

// commitLocked commits files (nil content deletes the path) on top of
// branch, creating the branch from the default branch, or as a root commit
// in an empty repository, and returns the new commit's sha.
func (s *Server) commitLocked(r *repo, branch string, files map[string][]byte, message string, author person) string {
	leaves := map[string]leaf{}
	var parents []string
	tip, ok := r.refs["refs/heads/"+branch]
	if !ok {
		tip, ok = r.refs["refs/heads/"+r.defaultBranch]
	}
	if ok {
		parents = []string{tip}
		o, _ := r.git.get(tip, kindCommit)
		_ = r.git.flatten(o.commit.tree, "", leaves)
	}
	names := make([]string, 0, len(files))
	for p := range files {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		if files[p] == nil {
			removePath(leaves, p)
			continue
		}
		setLeaf(leaves, p, leaf{mode: modeFile, kind: kindBlob, sha: r.git.putBlob(files[p])})
	}
	co := &commitObject{tree: r.git.build(leaves), parents: parents, author: author, committer: author, message: message}
	sha := r.git.put(&object{kind: kindCommit, commit: co})
	r.refs["refs/heads/"+branch] = sha
	return sha
}

// listCommits is GET …/commits: the commits reachable from sha (a branch,
// a ref or a commit; the default branch when absent), newest first,
// those that changed path when given (against their first parent; a
// root commit against nothing), committed from since and until when
// given.
func (s *Server) listCommits(c *call) reply {
	r := c.repo
	if r.empty() {
		return emptyRepo()
	}
	q := c.r.URL.Query()
	ref := q.Get("sha")
	if ref == "" {
		ref = r.defaultBranch
	}
	tip, ok := r.resolve(ref)
	if !ok {
		return errorReply(http.StatusNotFound, "Not Found")
	}
	var since, until time.Time
	for _, b := range []struct {
		name string
		dst  *time.Time
	}{{"since", &since}, {"until", &until}} {
		if v := q.Get(b.name); v != "" {
			t, err := time.Parse(time.RFC3339, v)
			if err != nil {
				return errorReply(http.StatusUnprocessableEntity, "Invalid request.\n\n"+b.name+" is not a timestamp")
			}
			*b.dst = t
		}
	}
	path := q.Get("path")
	var all []map[string]any
	for _, sha := range r.git.ancestors(tip).order {
		o, _ := r.git.get(sha, kindCommit)
		when := o.commit.committer.date
		if !since.IsZero() && when.Before(since) || !until.IsZero() && when.After(until) {
			continue
		}
		if path != "" && !r.git.touches(o.commit, path) {
			continue
		}
		all = append(all, s.repoCommitJSON(r, sha, o.commit))
	}
	sort.SliceStable(all, func(i, j int) bool { // newest first, as GitHub lists them
		return all[i]["commit"].(map[string]any)["committer"].(map[string]any)["date"].(string) >
			all[j]["commit"].(map[string]any)["committer"].(map[string]any)["date"].(string)
	})
	return s.page(c, all)
}

// touches reports whether commit c changed path (a file) against its
// first parent.
func (g *store) touches(c *commitObject, path string) bool {
	now, _ := g.lookup(c.tree, path)
	var was treeEntry
	if len(c.parents) > 0 {
		if p, ok := g.get(c.parents[0], kindCommit); ok {
			was, _ = g.lookup(p.commit.tree, path)
		}
	}
	return now != was
}
