package githubtest

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
)

// TestInvalidRequestsFailTheTest sends requests GitHub's description
// rejects and checks that the server reports each one.
func TestInvalidRequestsFailTheTest(t *testing.T) {
	tests := []struct {
		name, method, path, body string
		wantStatus               int
		wantReport               string
	}{
		{"reaction outside the enum", "POST", "repos/octo-org/octo-repo/issues/1/reactions", `{"content":"smile"}`,
			http.StatusUnprocessableEntity, "does not match GitHub's OpenAPI description"},
		{"create ref without sha", "POST", "repos/octo-org/octo-repo/git/refs", `{"ref":"refs/heads/x"}`,
			http.StatusUnprocessableEntity, "does not match GitHub's OpenAPI description"},
		{"tree mode outside the enum", "POST", "repos/octo-org/octo-repo/git/trees", `{"tree":[{"path":"a","mode":"100600","type":"blob","content":"x"}]}`,
			http.StatusUnprocessableEntity, "does not match GitHub's OpenAPI description"},
		{"pull request without head", "POST", "repos/octo-org/octo-repo/pulls", `{"title":"t","base":"main"}`,
			http.StatusUnprocessableEntity, "does not match GitHub's OpenAPI description"},
		{"labels as an empty bare array", "POST", "repos/octo-org/octo-repo/issues/1/labels", `[]`,
			http.StatusUnprocessableEntity, "empty"},
		{"undocumented GET git/refs/{ref}", "GET", "repos/octo-org/octo-repo/git/refs/heads/main", ``,
			http.StatusNotFound, "is not an operation of GitHub's OpenAPI description"},
		{"outside the base path", "GET", "../../repos/octo-org/octo-repo", ``,
			http.StatusNotFound, "is not below the API base path"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recorder{TB: t}
			s := NewServer(rec)
			s.AddIssue(DefaultRepo, 1, "t", "b", "alice")
			url := s.URL() + tc.path
			if strings.HasPrefix(tc.path, "../") {
				url = s.ts.URL + "/repos/octo-org/octo-repo"
			}
			req, err := http.NewRequestWithContext(t.Context(), tc.method, url, bytes.NewReader([]byte(tc.body)))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer token")
			req.Header.Set("Content-Type", "application/json")
			resp, err := s.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.wantStatus {
				t.Errorf("status = %d, want %d", resp.StatusCode, tc.wantStatus)
			}
			errs := rec.errors()
			if len(errs) != 1 || !strings.Contains(errs[0], tc.wantReport) {
				t.Errorf("reported %q, want one report containing %q", errs, tc.wantReport)
			}
		})
	}
}

func FuzzFind(f *testing.F) {
	for _, p := range []string{
		"/api/v3/repos/o/r", "/api/v3/repos/o/r/contents/", "/api/v3/repos/o/r/contents/a/b/c",
		"/api/v3/repos/o/r/git/refs/heads/a/b", "/api/v3/repos/o/r/issues/comments/1/reactions",
		"/api/v3/", "/", "/api/v3/repos//r/git/refs/", "/api/v3/repos/o/r/commits/heads/%2F",
	} {
		f.Add("GET", p)
		f.Add("PATCH", p)
	}
	d, err := loadDescription(f.Context())
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, method, path string) {
		req, err := http.NewRequest(method, "http://127.0.0.1"+path, nil)
		if err != nil {
			return
		}
		rt, err := d.find(req, BasePath)
		if err != nil {
			return
		}
		if !d.ops[rt.operation()] {
			t.Errorf("%s %s routed to %q, which is not an operation", method, path, rt.operation())
		}
	})
}

func FuzzLabelNames(f *testing.F) {
	for _, s := range []string{`["a","b"]`, `{"labels":["a"]}`, `{"labels":[{"name":"a"}]}`, `[{"name":1}]`, `null`, `{}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		names, ok := labelNames(body)
		if !ok && names != nil {
			t.Errorf("labelNames(%q) = %q, false: want no names when it fails", body, names)
		}
	})
}

func TestEveryOperationIsServed(t *testing.T) {
	ops, err := Operations(t.Context())
	if err != nil || len(ops) == 0 {
		t.Fatalf("Operations = %v, %v", ops, err)
	}
	served := map[string]bool{}
	for _, op := range ops {
		served[op] = true
		if handlers[op] == nil {
			t.Errorf("%s is in the OpenAPI subset but has no handler", op)
		}
	}
	for op := range handlers {
		if !served[op] {
			t.Errorf("handler for %s, which is not in the OpenAPI subset (add it to gen-subset.sh)", op)
		}
	}
}
