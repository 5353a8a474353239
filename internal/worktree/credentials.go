package worktree

import (
	"context"
	"fmt"
	"net/url"
	"strings"
)

// CredentialAdvice says what to change when the workspace's git
// configuration carries a credential.
const CredentialAdvice = "every agent and check could read it. Check the repository out with actions/checkout's `persist-credentials: false` " +
	"(optr needs no credential in git: it commits and opens pull requests through the API with its token), " +
	"or remove it from the repository's configuration (git config --unset), then run optr again"

// tokenPrefixes start the tokens GitHub and GitLab issue; a URL whose user
// name starts with one carries the token itself.
var tokenPrefixes = []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "x-access-token", "x-oauth-basic"}

// Credentials returns where the git configuration of the repository that
// holds dir carries a credential, as git reads it (its own file, the
// files it includes — actions/checkout writes its token to a file in
// RUNNER_TEMP that the repository's configuration includes with
// includeIf.gitdir — and the worktree's; not the system's or the user's):
// an http.<url>.extraheader with an AUTHORIZATION header (what
// actions/checkout persists), a remote, submodule or url.<base>.insteadOf
// URL with a password or a token as its user, a credential helper whose
// command carries a password or a token. Each is named by its key and
// the file it comes from, never by its value. A dir that is not in a git
// repository has none.
func Credentials(ctx context.Context, gitBin, dir string) ([]string, error) {
	g := gitCmd{bin: gitOr(gitBin)}.isolate()
	if _, _, err := repository(ctx, g, dir); err != nil {
		return nil, nil
	}
	out, err := g.run(ctx, dir, nil, "config", "--list", "--includes", "--show-origin", "-z")
	if err != nil {
		return nil, fmt.Errorf("read the git configuration of %s: %w", dir, err)
	}
	var found []string
	recs := splitZ(out)
	for i := 0; i+1 < len(recs); i += 2 {
		origin, kv := recs[i], recs[i+1]
		if origin == "command line:" {
			continue // optr's own settings
		}
		key, value, _ := strings.Cut(kv, "\n")
		if what := credentialIn(key, value); what != "" {
			found = append(found, fmt.Sprintf("%s (%s, in %s)", shownKey(key), what, strings.TrimPrefix(origin, "file:")))
		}
	}
	return found, nil
}

// credentialIn says what credential the setting key = value carries, ""
// for none. key is as git config --list prints it: section and name in
// lower case, the subsection as written.
func credentialIn(key, value string) string {
	section, rest, _ := strings.Cut(key, ".")
	sub, name := "", rest
	if i := strings.LastIndexByte(rest, '.'); i >= 0 {
		sub, name = rest[:i], rest[i+1:]
	}
	lower := strings.ToLower(value)
	switch {
	case section == "http" && name == "extraheader" && strings.Contains(lower, "authorization"):
		return "an AUTHORIZATION header"
	case (section == "remote" || section == "submodule") && (name == "url" || name == "pushurl"):
		return urlCredential(value)
	case section == "url" && (name == "insteadof" || name == "pushinsteadof"):
		return urlCredential(sub)
	case section == "credential" && name == "helper":
		if strings.Contains(lower, "password=") || hasToken(lower) {
			return "a credential helper that holds a password or token"
		}
	}
	return ""
}

// shownKey is key as a message may show it: a url.<base> key's base
// without its user and password.
func shownKey(key string) string {
	rest, ok := strings.CutPrefix(key, "url.")
	i := strings.LastIndexByte(rest, '.')
	if !ok || i < 0 {
		return key
	}
	u, err := url.Parse(rest[:i])
	if err != nil || u.User == nil {
		return key
	}
	u.User = nil
	return "url." + strings.Replace(u.String(), "://", "://***@", 1) + rest[i:]
}

// urlCredential says whether raw, a URL, carries a password or a token as
// its user.
func urlCredential(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return ""
	}
	if _, has := u.User.Password(); has {
		return "a URL with a password or token"
	}
	if hasToken(strings.ToLower(u.User.Username())) {
		return "a URL with a token as its user"
	}
	return ""
}

// hasToken reports whether s (lower case) holds a token by its prefix.
func hasToken(s string) bool {
	for _, p := range tokenPrefixes {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}
