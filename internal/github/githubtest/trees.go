package githubtest

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
)

// The Git Data API: blobs and trees (commits and refs are in refs.go).

// emptyRepo is GitHub's answer to the Git Data API on a repository without
// commits; only the contents API can give it a first commit.
func emptyRepo() reply { return errorReply(http.StatusConflict, "Git Repository is empty.") }

func (s *Server) createBlob(c *call) reply {
	if c.repo.empty() {
		return emptyRepo()
	}
	var in struct {
		Content  string `json:"content"`
		Encoding string `json:"encoding"`
	}
	if rep, ok := c.decode(&in); !ok {
		return rep
	}
	content := []byte(in.Content)
	switch in.Encoding {
	case "", "utf-8":
	case "base64":
		var err error
		if content, err = base64.StdEncoding.DecodeString(in.Content); err != nil {
			return errorReply(http.StatusUnprocessableEntity, "content is not valid Base64")
		}
	default:
		return errorReply(http.StatusUnprocessableEntity, "encoding must be utf-8 or base64")
	}
	sha := c.repo.git.putBlob(content)
	return jsonReply(http.StatusCreated, map[string]any{
		"sha": sha,
		"url": s.apiURL("repos", c.repo.owner, c.repo.name, "git", "blobs", sha),
	})
}

func (s *Server) getBlob(c *call) reply {
	if c.repo.empty() {
		return emptyRepo()
	}
	sha := c.params["file_sha"]
	o, ok := c.repo.git.get(sha, kindBlob)
	if !ok {
		return errorReply(http.StatusNotFound, "Not Found")
	}
	if wantsRaw(c.r) {
		return reply{status: http.StatusOK, raw: o.blob, header: http.Header{"Content-Type": {"application/vnd.github.raw"}}}
	}
	return jsonReply(http.StatusOK, map[string]any{
		"sha":      sha,
		"node_id":  "B_" + sha,
		"size":     len(o.blob),
		"url":      s.apiURL("repos", c.repo.owner, c.repo.name, "git", "blobs", sha),
		"content":  wrapBase64(base64.StdEncoding.EncodeToString(o.blob)),
		"encoding": "base64",
	})
}

// wantsRaw reports whether the request asks for a raw media type.
func wantsRaw(r *http.Request) bool {
	a := r.Header.Get("Accept")
	return strings.Contains(a, ".raw")
}

// wrapBase64 breaks Base64 text into lines of 60 characters, as GitHub
// does.
func wrapBase64(s string) string {
	var b strings.Builder
	for len(s) > 60 {
		b.WriteString(s[:60])
		b.WriteByte('\n')
		s = s[60:]
	}
	b.WriteString(s)
	if b.Len() > 0 {
		b.WriteByte('\n')
	}
	return b.String()
}

// treeEntryIn is one entry of a create-tree request. SHA stays raw so that
// an explicit null (delete the path) differs from an absent sha.
type treeEntryIn struct {
	Path    string          `json:"path"`
	Mode    string          `json:"mode"`
	Type    string          `json:"type"`
	SHA     json.RawMessage `json:"sha"`
	Content *string         `json:"content"`
}

func (s *Server) createTree(c *call) reply {
	if c.repo.empty() {
		return emptyRepo()
	}
	var in struct {
		BaseTree string        `json:"base_tree"`
		Tree     []treeEntryIn `json:"tree"`
	}
	if rep, ok := c.decode(&in); !ok {
		return rep
	}
	g := c.repo.git
	leaves := map[string]leaf{}
	if in.BaseTree != "" {
		if err := g.flatten(in.BaseTree, "", leaves); err != nil {
			return errorReply(http.StatusUnprocessableEntity, "base_tree is not a valid tree oid")
		}
	}
	for _, e := range in.Tree {
		if rep, ok := s.applyTreeEntry(g, leaves, e); !ok {
			return rep
		}
	}
	sha := g.build(leaves)
	return jsonReply(http.StatusCreated, s.treeJSON(c.repo, sha, false))
}

// applyTreeEntry changes leaves as one create-tree entry asks.
func (s *Server) applyTreeEntry(g *store, leaves map[string]leaf, e treeEntryIn) (reply, bool) {
	if !validTreePath(e.Path) {
		return errorReply(http.StatusUnprocessableEntity, "tree.path contains a malformed path component"), false
	}
	hasSHA := len(e.SHA) > 0
	isNull := string(e.SHA) == "null"
	var sha string
	if hasSHA && !isNull {
		if err := json.Unmarshal(e.SHA, &sha); err != nil {
			return errorReply(http.StatusUnprocessableEntity, "tree.sha must be a string or null"), false
		}
	}
	switch {
	case hasSHA && !isNull && e.Content != nil:
		return errorReply(http.StatusUnprocessableEntity, "Must supply either tree.sha or tree.content. Request will be rejected if both are present."), false
	case isNull && e.Content == nil:
		removePath(leaves, e.Path)
		return reply{}, true
	case !hasSHA && e.Content == nil:
		return errorReply(http.StatusUnprocessableEntity, "Must supply either tree.sha or tree.content."), false
	}
	kind, mode := e.Type, e.Mode
	if kind == "" {
		kind = kindBlob
	}
	if mode == "" {
		mode = map[string]string{kindBlob: modeFile, kindTree: modeTree, kindCommit: modeCommit}[kind]
	}
	okMode := map[string]bool{
		kindBlob + modeFile: true, kindBlob + modeExec: true, kindBlob + modeSymlink: true,
		kindTree + modeTree: true, kindCommit + modeCommit: true,
	}
	if !okMode[kind+mode] {
		return errorReply(http.StatusUnprocessableEntity, "tree.mode "+mode+" does not fit tree.type "+kind), false
	}
	if e.Content != nil {
		if kind != kindBlob {
			return errorReply(http.StatusUnprocessableEntity, "tree.content is only allowed for blobs"), false
		}
		setLeaf(leaves, e.Path, leaf{mode: mode, kind: kindBlob, sha: g.putBlob([]byte(*e.Content))})
		return reply{}, true
	}
	switch kind {
	case kindBlob:
		if _, ok := g.get(sha, kindBlob); !ok {
			return errorReply(http.StatusUnprocessableEntity, "tree.sha "+sha+" is not a valid blob"), false
		}
		setLeaf(leaves, e.Path, leaf{mode: mode, kind: kindBlob, sha: sha})
	case kindTree:
		sub := map[string]leaf{}
		if err := g.flatten(sha, "", sub); err != nil {
			return errorReply(http.StatusUnprocessableEntity, "tree.sha "+sha+" is not a valid tree"), false
		}
		removePath(leaves, e.Path)
		for p, l := range sub {
			setLeaf(leaves, e.Path+"/"+p, l)
		}
	case kindCommit:
		setLeaf(leaves, e.Path, leaf{mode: mode, kind: kindCommit, sha: sha})
	}
	return reply{}, true
}

func validTreePath(p string) bool {
	if p == "" || strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") {
		return false
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "" || seg == "." || seg == ".." || seg == ".git" {
			return false
		}
	}
	return true
}

func (s *Server) getTree(c *call) reply {
	if c.repo.empty() {
		return emptyRepo()
	}
	sha := c.params["tree_sha"]
	if _, ok := c.repo.git.get(sha, kindTree); !ok {
		if commit, ok := c.repo.resolve(sha); ok {
			o, _ := c.repo.git.get(commit, kindCommit)
			sha = o.commit.tree
		} else {
			return errorReply(http.StatusNotFound, "Not Found")
		}
	}
	recursive := c.r.URL.Query().Get("recursive")
	return jsonReply(http.StatusOK, s.treeJSON(c.repo, sha, recursive != "" && recursive != "0" && recursive != "false"))
}

func (s *Server) treeJSON(r *repo, sha string, recursive bool) map[string]any {
	entries := []map[string]any{}
	var walk func(sha, prefix string)
	walk = func(sha, prefix string) {
		o, _ := r.git.get(sha, kindTree)
		for _, e := range o.tree {
			m := map[string]any{"path": prefix + e.name, "mode": e.mode, "type": e.kind, "sha": e.sha}
			switch e.kind {
			case kindBlob:
				b, _ := r.git.get(e.sha, kindBlob)
				m["size"] = len(b.blob)
				m["url"] = s.apiURL("repos", r.owner, r.name, "git", "blobs", e.sha)
			case kindTree:
				m["url"] = s.apiURL("repos", r.owner, r.name, "git", "trees", e.sha)
			}
			entries = append(entries, m)
			if recursive && e.kind == kindTree {
				walk(e.sha, prefix+e.name+"/")
			}
		}
	}
	walk(sha, "")
	return map[string]any{
		"sha":       sha,
		"url":       s.apiURL("repos", r.owner, r.name, "git", "trees", sha),
		"tree":      entries,
		"truncated": false,
	}
}
