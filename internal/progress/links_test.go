package progress

import "testing"

func TestLinks(t *testing.T) {
	t.Parallel()
	tests := []struct{ got, want string }{
		{ActionsRunURL("https://github.com/", "octo-org/octo-repo", "42"), "https://github.com/octo-org/octo-repo/actions/runs/42"},
		{ActionsRunURL("https://github.com", "octo-org/octo-repo", ""), ""},
		{BlobURL("https://ghe.example", "o/r", "abc123", ".optr/workflows/issue 7/runs/1-1/result.md"), "https://ghe.example/o/r/blob/abc123/.optr/workflows/issue%207/runs/1-1/result.md"},
		{BlobURL("https://github.com", "o/r", "", "result.md"), ""},
	}
	for i, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("case %d: got %q, want %q", i, tt.got, tt.want)
		}
	}
}
