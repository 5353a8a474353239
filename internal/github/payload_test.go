package github

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/optr-dev/optr/internal/github/githubtest"
)

func TestDefaultBranchOf(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, payload, want string }{
		{"issues.labeled", `{"action":"labeled","repository":{"full_name":"o/r","default_branch":"trunk"}}`, "trunk"},
		{"no repository", `{"action":"labeled"}`, ""},
		{"not JSON", `{"repository":`, ""},
		{"wrong type", `{"repository":{"default_branch":7}}`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, DefaultBranchOf([]byte(tc.payload))); diff != "" {
				t.Errorf("DefaultBranchOf (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDefaultBranchOfEvent(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(path, []byte(`{"repository":{"default_branch":"trunk"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := DefaultBranchOfEvent(path); got != "trunk" {
		t.Errorf("DefaultBranchOfEvent = %q, want trunk", got)
	}
	if got := DefaultBranchOfEvent(filepath.Join(t.TempDir(), "missing.json")); got != "" {
		t.Errorf("DefaultBranchOfEvent of a missing file = %q, want empty", got)
	}
}

// TestDefaultBranchOption: a default branch given in the options is used
// without a request; without it, GitHub is asked once.
func TestDefaultBranchOption(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, option, want string
		requests           int
	}{
		{"from the payload", "trunk", "trunk", 0},
		{"asked of GitHub", "", "main", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := githubtest.NewServer(t)
			c := newClient(t, s, &sleeper{}, func(o *Options) { o.DefaultBranch = tc.option })
			for range 2 {
				got, err := c.DefaultBranch(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				if got != tc.want {
					t.Errorf("DefaultBranch = %q, want %q", got, tc.want)
				}
			}
			if got := c.Stats().Requests; got != tc.requests {
				t.Errorf("requests = %d, want %d", got, tc.requests)
			}
		})
	}
}
