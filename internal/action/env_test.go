package action

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLoadEnv(t *testing.T) {
	t.Parallel()
	got := LoadEnv(mapEnv(map[string]string{
		"GITHUB_ACTIONS":      "true",
		"GITHUB_EVENT_NAME":   "issues",
		"GITHUB_EVENT_PATH":   "/github/workflow/event.json",
		"GITHUB_REPOSITORY":   "octo-org/octo-repo",
		"GITHUB_WORKSPACE":    "/github/workspace",
		"GITHUB_RUN_ID":       "1658821493",
		"GITHUB_RUN_ATTEMPT":  "2",
		"GITHUB_SHA":          "ffac537e6cbbf934b08745a378932722df287a53",
		"GITHUB_OUTPUT":       "/github/file_commands/set_output_1",
		"GITHUB_STEP_SUMMARY": "/github/file_commands/step_summary_1",
		"GITHUB_ACTOR":        "octocat",
	}))
	want := Env{
		Actions:       true,
		EventName:     "issues",
		EventPath:     "/github/workflow/event.json",
		Repository:    "octo-org/octo-repo",
		Workspace:     "/github/workspace",
		WorkflowRunID: "1658821493",
		RunAttempt:    "2",
		SHA:           "ffac537e6cbbf934b08745a378932722df287a53",
		APIURL:        DefaultAPIURL,
		OutputPath:    "/github/file_commands/set_output_1",
		SummaryPath:   "/github/file_commands/step_summary_1",
		Actor:         "octocat",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("LoadEnv mismatch (-want +got):\n%s", diff)
	}
	if got := got.RunID(); got != "1658821493-2" {
		t.Errorf("RunID() = %q, want 1658821493-2", got)
	}
}

func TestEnvAPIURLOverride(t *testing.T) {
	t.Parallel()
	got := LoadEnv(mapEnv(map[string]string{"GITHUB_API_URL": "https://ghe.example.com/api/v3"}))
	if got.APIURL != "https://ghe.example.com/api/v3" {
		t.Errorf("APIURL = %q", got.APIURL)
	}
	if got.Actions {
		t.Error("Actions is true without GITHUB_ACTIONS")
	}
}

func TestRunID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		id, attempt, want string
	}{
		{"42", "3", "42-3"},
		{"42", "", "42-1"},
		{"", "3", ""},
	}
	for _, tt := range tests {
		if got := (Env{WorkflowRunID: tt.id, RunAttempt: tt.attempt}).RunID(); got != tt.want {
			t.Errorf("RunID(%q, %q) = %q, want %q", tt.id, tt.attempt, got, tt.want)
		}
	}
}

func TestRepo(t *testing.T) {
	t.Parallel()
	tests := []struct {
		repo, owner, name string
		wantErr           bool
	}{
		{"octo-org/octo-repo", "octo-org", "octo-repo", false},
		{"", "", "", true},
		{"octo-org", "", "", true},
		{"/repo", "", "", true},
		{"a/b/c", "", "", true},
	}
	for _, tt := range tests {
		owner, name, err := Env{Repository: tt.repo}.Repo()
		if (err != nil) != tt.wantErr || owner != tt.owner || name != tt.name {
			t.Errorf("Repo(%q) = %q, %q, %v; want %q, %q, error %v", tt.repo, owner, name, err, tt.owner, tt.name, tt.wantErr)
		}
	}
}
