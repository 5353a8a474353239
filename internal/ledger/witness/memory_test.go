package witness

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/ledger"
)

// forcePush replaces the clone's history with a consistent one whose
// ledger keeps entries 1 to keep and then holds entries re-chained from
// there (the rest with another selection, grown or cut to total), as a
// `git fetch && git reset --hard` after a force-push leaves a clone. It
// returns the new HEAD.
func forcePush(t *testing.T, r *repo, keep, total int) string {
	t.Helper()
	out := rechained(t, scan(t, r), 0, total, func(i int) bool { return i >= keep })
	r.git("checkout", "-q", "--orphan", "rewritten")
	r.git("rm", "-q", "-r", "-f", "--cached", "--ignore-unmatch", ".")
	os.RemoveAll(filepath.Dir(r.path))
	os.MkdirAll(filepath.Dir(r.path), 0o755)
	os.WriteFile(r.path, out, 0o644)
	c := r.commit("optr: the rewritten history", nil)
	r.git("branch", "-q", "-f", "optr-ledger", c)
	r.git("checkout", "-q", "optr-ledger")
	r.git("branch", "-q", "-D", "rewritten")
	return c
}

// TestTheGitWitnessRemembers: a clone that verified the honest history
// catches a consistent force-pushed rewrite of it, naming the head it
// verified, whether the rewrite changed entries or cut them; a clone that
// never saw the honest history cannot; checking out an older commit is no
// rewrite; and the memory lives in .git, never in the working tree.
func TestTheGitWitnessRemembers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		keep, total int
		says        string
	}{
		{"rewritten", 5, 20, "entry 16 is now"},
		{"cut", 16, 12, "the ledger has only 12 entries"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := honest(t, 8)
			rep, err := Check(t.Context(), r.path)
			if err != nil || rep.Head.Seq != 16 || rep.Remembered != 0 || rep.NotRemembered != nil {
				t.Fatalf("the honest history: %+v, %v", rep, err)
			}
			honestHead := rep.Head
			if status := r.git("status", "--porcelain"); status != "" {
				t.Fatalf("the memory shows in the working tree: %q", status)
			}
			// A fresh clone of the rewritten history has nothing to compare with.
			fresh := newRepo(t)
			forcePush(t, fresh, 0, 4)
			if _, err := Check(t.Context(), fresh.path); err != nil {
				t.Fatalf("a clone without memory: %v", err)
			}

			forcePush(t, r, tc.keep, tc.total)
			if _, err := ledger.VerifyFile(r.path); err != nil {
				t.Fatalf("the rewrite is not a valid chain, so the test proves nothing: %v", err)
			}
			_, err = Check(t.Context(), r.path)
			var werr *Error
			if !errors.As(err, &werr) {
				t.Fatalf("Check after the force-push = %v, want a *witness.Error", err)
			}
			if !strings.Contains(werr.Where, "head 16 ("+honestHead.Hash+")") || !strings.Contains(werr.Reason, tc.says) || !strings.Contains(werr.Reason, "force-push") {
				t.Errorf("Check named %q: %q", werr.Where, werr.Reason)
			}
		})
	}
	t.Run("older checkout", func(t *testing.T) {
		t.Parallel()
		r := honest(t, 8)
		if _, err := Check(t.Context(), r.path); err != nil {
			t.Fatal(err)
		}
		r.git("checkout", "-q", "HEAD~3")
		if rep, err := Check(t.Context(), r.path); err != nil || rep.Remembered != 1 {
			t.Errorf("Check of an older commit: %+v, %v", rep, err)
		}
	})
}
