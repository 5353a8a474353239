package github

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/optr-dev/optr/internal/github/githubtest"
)

func TestAPIURL(t *testing.T) {
	tests := []struct {
		in, want string
		err      bool
	}{
		{"", "https://api.github.com/", false},
		{"https://api.github.com", "https://api.github.com/", false},
		{"https://ghes.example.com/api/v3", "https://ghes.example.com/api/v3/", false},
		{"http://127.0.0.1:1234/api/v3/", "http://127.0.0.1:1234/api/v3/", false},
		{"api.github.com", "", true},
		{"://x", "", true},
	}
	for _, tc := range tests {
		u, err := apiURL(tc.in)
		if tc.err {
			if err == nil {
				t.Errorf("apiURL(%q) = %v, want an error", tc.in, u)
			}
			continue
		}
		if err != nil {
			t.Errorf("apiURL(%q): %v", tc.in, err)
			continue
		}
		if diff := cmp.Diff(tc.want, u.String()); diff != "" {
			t.Errorf("apiURL(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
}

func TestNewRejectsBadRepository(t *testing.T) {
	for _, r := range []string{"", "owner", "owner/", "/name", "a/b/c"} {
		if _, err := New(t.Context(), Options{Repository: r}); err == nil {
			t.Errorf("New with repository %q: no error", r)
		}
	}
}

func TestOperation(t *testing.T) {
	tests := []struct{ method, path, want string }{
		{"GET", "/api/v3/repos/o/r", "GET /repos/{owner}/{repo}"},
		{"GET", "/api/v3/repos/o/r/commits/heads/feature/x", "GET /repos/{owner}/{repo}/commits/{ref}"},
		{"GET", "/api/v3/repos/o/r/contents/.optr/ledger.jsonl", "GET /repos/{owner}/{repo}/contents/{path}"},
		{"GET", "/api/v3/repos/o/r/contents/", "GET /repos/{owner}/{repo}/contents/{path}"},
		{"POST", "/api/v3/repos/o/r/git/trees", "POST /repos/{owner}/{repo}/git/trees"},
		{"POST", "/api/v3/repos/o/r/git/refs", "POST /repos/{owner}/{repo}/git/refs"},
		{"PATCH", "/api/v3/repos/o/r/git/refs/heads/a/b", "PATCH /repos/{owner}/{repo}/git/refs/{ref}"},
		{"POST", "/api/v3/repos/o/r/issues/comments/5/reactions", "POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions"},
		{"POST", "/api/v3/repos/o/r/issues/5/comments", "POST /repos/{owner}/{repo}/issues/{issue_number}/comments"},
		{"PATCH", "/api/v3/repos/o/r/issues/comments/5", "PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}"},
		{"GET", "/api/v3/repos/o/r/collaborators/alice/permission", "GET /repos/{owner}/{repo}/collaborators/{username}/permission"},
		{"GET", "/api/v3/rate_limit", "GET /rate_limit"},
		{"GET", "/api/v3/repos/o/r/pulls/1", "GET /repos/{owner}/{repo}/pulls/{pull_number}"},
		{"GET", "/api/v3/repos/o/r/actions/runs/1", "GET /repos/o/r/actions/runs/1"},
	}
	for _, tc := range tests {
		if got := operation(tc.method, tc.path, "/api/v3/"); got != tc.want {
			t.Errorf("operation(%s %s) = %q, want %q", tc.method, tc.path, got, tc.want)
		}
	}
}

func FuzzOperation(f *testing.F) {
	for _, p := range []string{"/repos/o/r", "/repos/o/r/contents/", "/repos//r/git/refs/heads/", "", "/", "//"} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		got := operation("GET", p, "/")
		if got == "" {
			t.Errorf("operation(%q) is empty", p)
		}
	})
}

// TestTemplatesAreGitHubs checks that requests are counted under the path
// templates of GitHub's description, as the fake server's log names them.
func TestTemplatesAreGitHubs(t *testing.T) {
	ops, err := githubtest.Operations(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	paths := map[string]bool{}
	for _, op := range ops {
		_, p, _ := strings.Cut(op, " ")
		paths[p] = true
	}
	for _, tmpl := range templates {
		p := strings.NewReplacer("...}", "}", "*}", "}").Replace(tmpl)
		if !paths[p] {
			t.Errorf("template %s is not a path of the OpenAPI subset", p)
		}
	}
}
