package worktree

import "testing"

// FuzzPatchPaths feeds PatchPaths anybody's patch text (a gathered task's
// patch.diff is exactly that): it never panics, and every path it accepts
// is clean and listed once.
func FuzzPatchPaths(f *testing.F) {
	f.Add([]byte("diff --git a/a.txt b/a.txt\nindex 1111111..2222222 100644\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+b\n"))
	f.Add([]byte("diff --git a/new.sh b/new.sh\nnew file mode 100755\nindex 0000000..e69de29\n"))
	f.Add([]byte("diff --git a/gone b/gone\ndeleted file mode 100644\nindex e69de29..0000000\n"))
	f.Add([]byte(renamePatch))
	f.Add([]byte("diff --git a/x b/y\ncopy from x\ncopy to y\n"))
	f.Add([]byte("diff --git a/../up b/../up\nnew file mode 100644\nindex 0000000..e69de29\n"))
	f.Add([]byte("diff --git \"a/q\\tx\" \"b/q\\tx\"\nnew file mode 100644\nindex 0000000..e69de29\n"))
	f.Add([]byte("diff --git a/b.bin b/b.bin\nnew file mode 100644\nindex 0000000..1111111\nGIT binary patch\nliteral 1\nIcmZpc00031\n\nliteral 0\nHcmV?d00001\n\n"))
	f.Fuzz(func(t *testing.T, patch []byte) {
		paths, err := PatchPaths(t.Context(), "", patch)
		if err != nil {
			return
		}
		if len(paths) == 0 {
			t.Fatal("PatchPaths accepted a patch and listed no path")
		}
		seen := map[string]bool{}
		for _, p := range paths {
			if reason := badPath(p); reason != "" {
				t.Errorf("PatchPaths listed %q: %s", p, reason)
			}
			if seen[p] {
				t.Errorf("PatchPaths listed %q twice", p)
			}
			seen[p] = true
		}
	})
}
