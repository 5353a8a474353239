package github

import "strings"

// templates are the REST paths optr calls, as GitHub's OpenAPI description
// spells them; requests are counted under these names. A trailing
// parameter marked "..." spans the rest of the path, one segment or more
// (refs such as heads/main); marked "*", zero or more (contents paths: the
// root directory is …/contents/).
var templates = []string{
	"/repos/{owner}/{repo}",
	"/repos/{owner}/{repo}/collaborators/{username}/permission",
	"/repos/{owner}/{repo}/commits/{ref...}",
	"/repos/{owner}/{repo}/contents/{path*}",
	"/repos/{owner}/{repo}/git/blobs",
	"/repos/{owner}/{repo}/git/blobs/{file_sha}",
	"/repos/{owner}/{repo}/git/commits",
	"/repos/{owner}/{repo}/git/commits/{commit_sha}",
	"/repos/{owner}/{repo}/git/ref/{ref...}",
	"/repos/{owner}/{repo}/git/refs",
	"/repos/{owner}/{repo}/git/refs/{ref...}",
	"/repos/{owner}/{repo}/git/trees",
	"/repos/{owner}/{repo}/git/trees/{tree_sha}",
	"/repos/{owner}/{repo}/issues/{issue_number}",
	"/repos/{owner}/{repo}/issues/{issue_number}/comments",
	"/repos/{owner}/{repo}/issues/comments/{comment_id}",
	"/repos/{owner}/{repo}/issues/{issue_number}/reactions",
	"/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions",
	"/repos/{owner}/{repo}/issues/{issue_number}/labels",
	"/repos/{owner}/{repo}/issues/{issue_number}/labels/{name}",
	"/repos/{owner}/{repo}/pulls",
	"/repos/{owner}/{repo}/pulls/{pull_number}",
	"/repos/{owner}/{repo}/pulls/{pull_number}/comments",
	"/repos/{owner}/{repo}/pulls/{pull_number}/reviews",
	"/repos/{owner}/{repo}/pulls/comments/{comment_id}/reactions",
	"/repos/{owner}/{repo}/compare/{basehead...}",
	"/repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches",
}

var splitTemplates = func() [][]string {
	out := make([][]string, len(templates))
	for i, t := range templates {
		out[i] = strings.Split(strings.TrimPrefix(t, "/"), "/")
	}
	return out
}()

// operation names a request by method and path template, e.g.
// "POST /repos/{owner}/{repo}/git/trees". Paths optr does not know are
// named by their literal path.
func operation(method, urlPath, basePath string) string {
	rest := strings.TrimPrefix(urlPath, strings.TrimSuffix(basePath, "/"))
	segs := strings.Split(strings.Trim(rest, "/"), "/")
	for _, t := range splitTemplates {
		if matchTemplate(t, segs) {
			name := strings.Join(t, "/")
			name = strings.NewReplacer("...}", "}", "*}", "}").Replace(name)
			return method + " /" + name
		}
	}
	return method + " " + rest
}

func matchTemplate(t, segs []string) bool {
	last := t[len(t)-1]
	oneOrMore, zeroOrMore := strings.HasSuffix(last, "...}"), strings.HasSuffix(last, "*}")
	fixed := t
	if oneOrMore || zeroOrMore {
		fixed = t[:len(t)-1]
	}
	switch {
	case oneOrMore && len(segs) <= len(fixed),
		zeroOrMore && len(segs) < len(fixed),
		!oneOrMore && !zeroOrMore && len(segs) != len(t):
		return false
	}
	for i, p := range fixed {
		if strings.HasPrefix(p, "{") {
			if segs[i] == "" {
				return false
			}
			continue
		}
		if p != segs[i] {
			return false
		}
	}
	if oneOrMore {
		for _, s := range segs[len(fixed):] {
			if s == "" {
				return false
			}
		}
	}
	return true
}
