package worktree

import (
	"strings"
	"testing"
)

// parseRaw refuses what git add can record without a directory on disk
// to catch: gitlinks and unclean paths.
func TestParseRawRefuses(t *testing.T) {
	t.Parallel()
	sha := strings.Repeat("1", 40)
	zero := strings.Repeat("0", 40)
	tests := []struct{ raw, want string }{
		{":000000 160000 " + zero + " " + sha + " A\x00mod\x00", "mod is a submodule"},
		{":160000 160000 " + sha + " " + sha + " M\x00mod\x00", "mod is a submodule"},
		{":000000 100644 " + zero + " " + sha + " A\x00a/../b\x00", `contains ".."`},
		{":000000 100644 " + zero + " " + sha + " A\x00x/.Git/hooks\x00", "under .git/"},
	}
	for _, tc := range tests {
		if _, reason := parseRaw([]byte(tc.raw)); !strings.Contains(reason, tc.want) {
			t.Errorf("parseRaw(%q) = %q, want %q", tc.raw, reason, tc.want)
		}
	}
}
