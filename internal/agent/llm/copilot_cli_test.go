package llm_test

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/optr-dev/optr/internal/agent/llm"
)

// TestCopilotCLIVersionPinned: the image (Dockerfile), CI (.ci/run) and
// the README install the Copilot CLI release the code and tests name.
func TestCopilotCLIVersionPinned(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file string
		re   *regexp.Regexp
	}{
		{"Dockerfile", regexp.MustCompile(`(?m)^ARG COPILOT_VERSION=(\S+)$`)},
		{".ci/run", regexp.MustCompile(`(?m)^COPILOT_CLI_VERSION=(\S+)$`)},
		{"README.md", regexp.MustCompile("@github/copilot@([0-9][^`\\s,]*)")},
	}
	for _, tt := range tests {
		b, err := os.ReadFile(filepath.Join("..", "..", "..", tt.file))
		if errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: %v", tt.file, err)
			continue
		} else if err != nil {
			t.Fatal(err)
		}
		m := tt.re.FindSubmatch(b)
		if m == nil {
			t.Errorf("%s pins no Copilot CLI version (%s)", tt.file, tt.re)
			continue
		}
		if got := string(m[1]); got != llm.CopilotCLIVersion {
			t.Errorf("%s installs Copilot CLI %s, the code names %s (llm.CopilotCLIVersion)", tt.file, got, llm.CopilotCLIVersion)
		}
	}
}
