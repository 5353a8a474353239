package worktree

import (
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/testkit/gittest"
)

// The credential actions/checkout persists is found where it writes it,
// in a file of RUNNER_TEMP the repository's configuration includes (and,
// as older versions did, in the configuration itself), and so are tokens
// in URLs and credential helpers; each is named by its key and file,
// never by its value. A configuration without a credential (its own
// url.insteadOf, a remote without one) has none.
func TestCredentials(t *testing.T) {
	t.Parallel()
	const token = "ghs_CHECKOUTtoken0123456789abcdefABCDEF"
	tests := []struct {
		name, script string
		legacy       *bool
		want         string
	}{
		{name: "actions/checkout v6+", legacy: new(false), want: "http.https://github.com/.extraheader (an AUTHORIZATION header, in "},
		{name: "actions/checkout v4", legacy: new(true), want: "http.https://github.com/.extraheader (an AUTHORIZATION header, in .git/config)"},
		{name: "token in the remote's URL", script: "git remote add origin https://x-access-token:" + token + "@github.com/o/r.git", want: "remote.origin.url (a URL with a password or token"},
		{name: "token as the URL's user", script: "git remote add origin https://" + token + "@github.com/o/r.git", want: "remote.origin.url (a URL with a token as its user"},
		{name: "token in a push URL", script: "git config remote.origin.pushurl https://u:" + token + "@github.com/o/r.git", want: "remote.origin.pushurl"},
		{name: "token in insteadOf", script: "git config url.https://x:" + token + "@github.com/.insteadOf https://github.com/", want: "url.https://***@github.com/.insteadof (a URL with a password or token"},
		{name: "credential helper with a token", script: `git config credential.helper '!f() { echo username=x; echo password=` + token + `; }; f'`, want: "credential.helper (a credential helper"},
		{name: "none", script: "git remote add origin https://github.com/o/r.git && git config url.https://github.com/.insteadOf git@github.com: && git config credential.helper cache"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			repo := newRepo(t, map[string]string{"a.txt": "a\n"})
			if tc.legacy != nil {
				gittest.PersistCredentials(t, repo, t.TempDir(), token, *tc.legacy)
			} else {
				sh(t, repo, tc.script)
			}
			found, err := Credentials(t.Context(), "", repo+"/")
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Join(found, "\n")
			if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
				t.Errorf("Credentials = %q, want %q", got, tc.want)
			}
			if strings.Contains(got, token) || strings.Contains(got, "basic ") {
				t.Errorf("Credentials shows the credential: %q", got)
			}
		})
	}
	if found, err := Credentials(t.Context(), "", t.TempDir()); err != nil || found != nil {
		t.Errorf("a directory outside any repository: %v, %v", found, err)
	}
}
