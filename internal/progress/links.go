package progress

import (
	"net/url"
	"strings"
)

// ActionsRunURL is the page of a workflow run, for View.RunURL:
// <server>/<owner/repo>/actions/runs/<run id> (GITHUB_SERVER_URL,
// GITHUB_REPOSITORY, GITHUB_RUN_ID). It is "" when any part is missing.
func ActionsRunURL(server, repository, runID string) string {
	if server == "" || repository == "" || runID == "" {
		return ""
	}
	return strings.TrimRight(server, "/") + "/" + repository + "/actions/runs/" + url.PathEscape(runID)
}

// BlobURL is the page of a committed file, for View.ResultURL:
// <server>/<owner/repo>/blob/<commit>/<path>. It is "" when any part is
// missing.
func BlobURL(server, repository, commit, path string) string {
	if server == "" || repository == "" || commit == "" || path == "" {
		return ""
	}
	segs := strings.Split(strings.TrimLeft(path, "/"), "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.TrimRight(server, "/") + "/" + repository + "/blob/" + url.PathEscape(commit) + "/" + strings.Join(segs, "/")
}
