package worktree

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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

// An agent that replaces a directory by a file of the same name changes
// those files; it is not refused (git status lists the directory's old
// files, which lstat can no longer reach: ENOTDIR, not "not found").
func TestCaptureDirectoryBecameFile(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{"dir/deep/y.txt": "y\n", "dir/x.txt": "x\n"})
	tr := add(t, start(t, repo, "run-1"), "agent")
	sh(t, tr.Dir(), "rm -r dir && echo flat > dir")
	ch := capture(t, tr, Limits{})
	var got []string
	for _, f := range ch.Files {
		got = append(got, f.Status+" "+f.Path)
	}
	if diff := cmp.Diff([]string{"A dir", "D dir/deep/y.txt", "D dir/x.txt"}, got); ch.Refused != "" || diff != "" {
		t.Errorf("refused %q; files (-want +got):\n%s", ch.Refused, diff)
	}
}
