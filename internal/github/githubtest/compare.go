package githubtest

import (
	"net/http"
	"sort"
	"strings"
)

// compareCommits answers GET …/compare/{base}...{head} for two commits of
// the repository (branch names, refs or shas): status identical, ahead
// (head has commits base lacks), behind, or diverged, with the counts,
// the merge base, the commits head has that base lacks, oldest first, and
// the files head's tree changes from the merge base's (GitHub's three-dot
// diff; no rename detection, at most maxCompareFiles as GitHub lists).
func (s *Server) compareCommits(c *call) reply {
	r := c.repo
	baseName, headName, ok := strings.Cut(c.params["basehead"], "...")
	if !ok || r.empty() {
		return errorReply(http.StatusNotFound, "Not Found")
	}
	base, ok1 := r.resolve(baseName)
	head, ok2 := r.resolve(headName)
	if !ok1 || !ok2 {
		return errorReply(http.StatusNotFound, "Not Found")
	}
	fromBase, fromHead := r.git.ancestors(base), r.git.ancestors(head)
	var ahead []string // oldest first: ancestors lists newest first
	for _, sha := range fromHead.order {
		if !fromBase.has[sha] {
			ahead = append([]string{sha}, ahead...)
		}
	}
	behind := 0
	for _, sha := range fromBase.order {
		if !fromHead.has[sha] {
			behind++
		}
	}
	mergeBase := ""
	for _, sha := range fromHead.order {
		if fromBase.has[sha] {
			mergeBase = sha
			break
		}
	}
	status := "diverged"
	switch {
	case len(ahead) == 0 && behind == 0:
		status = "identical"
	case behind == 0:
		status = "ahead"
	case len(ahead) == 0:
		status = "behind"
	}
	commits := []map[string]any{}
	for _, sha := range ahead {
		o, _ := r.git.get(sha, kindCommit)
		commits = append(commits, s.repoCommitJSON(r, sha, o.commit))
	}
	baseObj, _ := r.git.get(base, kindCommit)
	out := map[string]any{
		"url":           s.apiURL("repos", r.owner, r.name, "compare", baseName+"..."+headName),
		"html_url":      s.htmlURL(r.owner, r.name, "compare", baseName+"..."+headName),
		"status":        status,
		"ahead_by":      len(ahead),
		"behind_by":     behind,
		"total_commits": len(ahead),
		"base_commit":   s.repoCommitJSON(r, base, baseObj.commit),
		"commits":       commits,
		"files":         []any{},
	}
	if mergeBase != "" {
		o, _ := r.git.get(mergeBase, kindCommit)
		out["merge_base_commit"] = s.repoCommitJSON(r, mergeBase, o.commit)
		headObj, _ := r.git.get(head, kindCommit)
		out["files"] = r.git.changedFiles(o.commit.tree, headObj.commit.tree)
	}
	return jsonReply(http.StatusOK, out)
}

// maxCompareFiles is how many files GitHub lists in a comparison.
const maxCompareFiles = 300

// changedFiles lists the files whose blob or mode differ between trees
// from and to, in path order, as GitHub's comparison does: filename,
// status (added, removed, modified) and the blob's sha.
func (g *store) changedFiles(from, to string) []any {
	before, after := map[string]leaf{}, map[string]leaf{}
	_ = g.flatten(from, "", before)
	_ = g.flatten(to, "", after)
	var paths []string
	for p, l := range after {
		if b, ok := before[p]; !ok || b != l {
			paths = append(paths, p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	out := []any{}
	for _, p := range paths[:min(len(paths), maxCompareFiles)] {
		b, inBefore := before[p]
		a, inAfter := after[p]
		f := map[string]any{"filename": p, "status": "modified", "sha": a.sha}
		switch {
		case !inBefore:
			f["status"] = "added"
		case !inAfter:
			f["status"], f["sha"] = "removed", b.sha
		}
		out = append(out, f)
	}
	return out
}

// reachable is the set of commits reachable from one, in breadth-first
// order from it.
type reachable struct {
	order []string
	has   map[string]bool
}

func (g *store) ancestors(sha string) reachable {
	out := reachable{has: map[string]bool{}}
	queue := []string{sha}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if out.has[c] {
			continue
		}
		o, ok := g.get(c, kindCommit)
		if !ok {
			continue
		}
		out.has[c] = true
		out.order = append(out.order, c)
		queue = append(queue, o.commit.parents...)
	}
	return out
}
