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

// splitDiff finds the raw records, the numstat records and the patch,
// including paths that look like the start of a raw record, and refuses
// a record cut short.
func TestSplitDiff(t *testing.T) {
	t.Parallel()
	raw := ":100644 100644 aaaa bbbb M\x00:odd\x00:000000 100644 0000 cccc A\x00n\x00"
	num := "1\t0\t:odd\x00-\t-\tn\x00"
	patch := "diff --git a/:odd b/:odd\n"
	tests := []struct {
		name, out, raw, num, patch string
		err                        bool
	}{
		{"all", raw + num + "\x00" + patch, raw, num, patch, false},
		{"nothing changed", "", "", "", "", false},
		{"cut short", raw + "1\t0\t:od", "", "", "", true},
	}
	for _, tc := range tests {
		r, n, p, err := splitDiff([]byte(tc.out))
		if (err != nil) != tc.err {
			t.Errorf("%s: error %v", tc.name, err)
			continue
		}
		if diff := cmp.Diff([]string{tc.raw, tc.num, tc.patch}, []string{string(r), string(n), string(p)}); !tc.err && diff != "" {
			t.Errorf("%s: (-want +got):\n%s", tc.name, diff)
		}
	}
}
