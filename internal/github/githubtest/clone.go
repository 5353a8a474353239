package githubtest

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Clone makes dir a git repository holding every commit reachable from
// ref of repo (a branch, a ref or a sha), with HEAD detached at it and its
// files checked out: what actions/checkout makes of a pull request's head
// (refs/pull/<n>/head). The fake hashes objects as git does, so the
// commits have the shas the API reports. It fails the test when git does.
func (s *Server) Clone(repo, ref, dir string) string {
	s.t.Helper()
	s.mu.Lock()
	r := s.repoLocked(repo)
	tip, ok := r.resolve(ref)
	if !ok {
		s.mu.Unlock()
		s.t.Fatalf("githubtest: Clone: no ref %s in %s", ref, repo)
	}
	objects := map[string][]byte{} // sha → "kind size\0body"
	var walk func(sha string)
	walk = func(sha string) {
		o, ok := r.git.objects[sha]
		if !ok || objects[sha] != nil {
			return
		}
		body := o.body()
		objects[sha] = append(fmt.Appendf(nil, "%s %d\x00", o.kind, len(body)), body...)
		switch o.kind {
		case kindTree:
			for _, e := range o.tree {
				walk(e.sha)
			}
		case kindCommit:
			walk(o.commit.tree)
			for _, p := range o.commit.parents {
				walk(p)
			}
		}
	}
	walk(tip)
	s.mu.Unlock()

	git := func(args ...string) {
		s.t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			s.t.Fatalf("githubtest: Clone: git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", r.defaultBranch, ".")
	for sha, raw := range objects {
		var z bytes.Buffer
		w := zlib.NewWriter(&z)
		_, _ = w.Write(raw)
		_ = w.Close()
		p := filepath.Join(dir, ".git", "objects", sha[:2], sha[2:])
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			s.t.Fatal(err)
		}
		if err := os.WriteFile(p, z.Bytes(), 0o444); err != nil {
			s.t.Fatal(err)
		}
	}
	git("checkout", "-q", "--detach", tip)
	return tip
}
