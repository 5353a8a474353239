package worktree

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Three agents change the same file differently, each in its own
// worktree: none sees another's files, each patch holds exactly its own
// change, and the workspace is untouched.
func TestAgentsAreIsolated(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{"greet.txt": "hello\n", "keep.txt": "keep\n"})
	r := start(t, repo, "run-1")
	agents := []string{"alpha", "beta", "gamma"}
	trees := map[string]*Tree{}
	for _, a := range agents {
		trees[a] = add(t, r, a)
	}
	// The agents run one after the other, so each would see the files of
	// the ones before it if the worktrees were shared.
	for _, a := range agents {
		tr := trees[a]
		if within(tr.Dir(), repo) {
			t.Fatalf("worktree %s is inside the workspace %s", tr.Dir(), repo)
		}
		script := `test "$(cat greet.txt)" = hello
for o in alpha beta gamma; do test ! -e "$o.txt"; done
echo "hello from ` + a + `" > greet.txt
echo ` + a + ` > ` + a + `.txt
rm keep.txt`
		sh(t, tr.Dir(), script)
	}
	for _, a := range agents {
		ch := capture(t, trees[a], Limits{})
		if ch.Refused != "" {
			t.Fatalf("%s: refused: %s", a, ch.Refused)
		}
		want := []FileStat{
			{Path: a + ".txt", Status: "A", Mode: "100644", Added: 1},
			{Path: "greet.txt", Status: "M", Mode: "100644", Added: 1, Removed: 1},
			{Path: "keep.txt", Status: "D", Removed: 1},
		}
		if diff := cmp.Diff(want, ch.Files); diff != "" {
			t.Errorf("%s: files (-want +got):\n%s", a, diff)
		}
		if ch.Added != 2 || ch.Removed != 2 || ch.Base != r.Base() {
			t.Errorf("%s: added %d removed %d base %s, want 2 2 %s", a, ch.Added, ch.Removed, ch.Base, r.Base())
		}
		if !strings.Contains(string(ch.Patch), "+hello from "+a+"\n") || ch.PatchSHA256 != SHA256Hex(ch.Patch) {
			t.Errorf("%s: patch %q, sha %s", a, ch.Patch, ch.PatchSHA256)
		}
		for _, o := range agents {
			if o != a && strings.Contains(string(ch.Patch), o) {
				t.Errorf("%s's patch mentions %s:\n%s", a, o, ch.Patch)
			}
		}
	}
	if got := sh(t, repo, "git status --porcelain; cat greet.txt"); got != "hello" {
		t.Errorf("the workspace changed: %q", got)
	}
	if err := r.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	for _, a := range agents {
		if _, err := os.Stat(trees[a].Dir()); !os.IsNotExist(err) {
			t.Errorf("%s's worktree is still there: %v", a, err)
		}
	}
	if got := sh(t, repo, "git worktree list --porcelain | grep -c ^worktree"); got != "1" {
		t.Errorf("git lists %s worktrees", got)
	}
}

// An agent that commits, stages or checks out a branch in its worktree
// still has its whole change captured against the base, and no branch
// moves.
func TestCaptureAfterAgentCommits(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{"a.txt": "a\n"})
	r := start(t, repo, "run-1")
	tr := add(t, r, "agent")
	sh(t, tr.Dir(), `git checkout -q -b agent-branch
echo b > b.txt && git add b.txt && git commit -q -m b
echo c > c.txt && git add c.txt
echo a2 >> a.txt`)
	ch := capture(t, tr, Limits{})
	var paths []string
	for _, f := range ch.Files {
		paths = append(paths, f.Path)
	}
	if diff := cmp.Diff([]string{"a.txt", "b.txt", "c.txt"}, paths); diff != "" {
		t.Errorf("paths (-want +got):\n%s", diff)
	}
	if got := sh(t, tr.Dir(), "git rev-parse agent-branch~1"); got != r.Base() {
		t.Errorf("the agent's branch starts at %s, not at the base", got)
	}
	if got := sh(t, repo, "git branch --list agent-branch; git rev-parse HEAD"); got != r.Base() {
		t.Errorf("the agent's branch reached the workspace: %q", got)
	}
}

// A binary file, an executable bit and a deletion survive capture and
// apply byte for byte.
func TestBinaryRoundTrip(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{"run.sh": "echo hi\n", "old.txt": "old\n"})
	r := start(t, repo, "run-1")
	tr := add(t, r, "agent")
	bin := []byte{0, 1, 2, 0xff, 0xfe, '\n', 0, 'x'}
	if err := os.WriteFile(filepath.Join(tr.Dir(), "img.bin"), bin, 0o644); err != nil {
		t.Fatal(err)
	}
	sh(t, tr.Dir(), "chmod +x run.sh && rm old.txt")
	ch := capture(t, tr, Limits{})
	want := []FileStat{
		{Path: "img.bin", Status: "A", Mode: "100644", Binary: true},
		{Path: "old.txt", Status: "D", Removed: 1},
		{Path: "run.sh", Status: "M", Mode: "100755"},
	}
	if diff := cmp.Diff(want, ch.Files); diff != "" {
		t.Fatalf("files (-want +got):\n%s", diff)
	}
	if err := Apply(t.Context(), "", repo, ch.Patch); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(repo, "img.bin"))
	if err != nil || string(got) != string(bin) {
		t.Errorf("img.bin = %q, %v; want %q", got, err, bin)
	}
	if st := sh(t, repo, "git status --porcelain"); st != "A  img.bin\nD  old.txt\nM  run.sh" {
		t.Errorf("status after apply:\n%s", st)
	}
}

// Close and Remove are safe twice, after the context ended, and on a run
// whose agents were stopped half-way.
func TestCloseTwiceAndAfterCancel(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{"a.txt": "a\n"})
	r, err := Start(t.Context(), Options{Workspace: repo, Root: filepath.Join(t.TempDir(), "wt"), RunID: "run-1"})
	if err != nil {
		t.Fatal(err)
	}
	tr := add(t, r, "agent")
	sh(t, tr.Dir(), "echo junk > junk.txt && mkdir -p deep/er && echo x > deep/er/x")
	if err := tr.Remove(t.Context()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	for range 2 {
		if err := r.Close(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.Add(t.Context(), "late"); err == nil {
		t.Error("Add after Close succeeded")
	}
}

// A run that died without Close (its lock released by the kernel) is
// pruned by the next Start; a live run is left alone.
func TestStartPrunesDeadRuns(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{"a.txt": "a\n"})
	root := filepath.Join(t.TempDir(), "wt")
	open := func(id string) *Run {
		r, err := Start(t.Context(), Options{Workspace: repo, Root: root, RunID: id})
		if err != nil {
			t.Fatal(err)
		}
		add(t, r, "agent")
		return r
	}
	dead, live := open("dead"), open("live")
	defer live.Close(t.Context())
	dead.lock.release() // what the kernel does when the process is killed

	next := open("next")
	defer next.Close(t.Context())
	if _, err := os.Stat(dead.dir); !os.IsNotExist(err) {
		t.Errorf("the dead run's directory is still there: %v", err)
	}
	if _, err := os.Stat(live.dir); err != nil {
		t.Errorf("the live run's directory was removed: %v", err)
	}
	if _, err := Start(t.Context(), Options{Workspace: repo, Root: root, RunID: "live"}); err == nil {
		t.Error("a second run with a live run's id started")
	}
}

func TestStartRefuses(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{"a.txt": "a\n"})
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"root inside the workspace", Options{Workspace: repo, Root: filepath.Join(repo, "wt"), RunID: "r"}, "inside the workspace"},
		{"not a repository", Options{Workspace: t.TempDir(), Root: t.TempDir(), RunID: "r"}, "not inside a git work tree"},
		{"bad run id", Options{Workspace: repo, Root: t.TempDir(), RunID: "../x"}, "run id"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Start(t.Context(), tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Start = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// Adds from several goroutines at once all succeed, each tree clean in
// its own repository.
func TestConcurrentAdds(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{"a.txt": "a\n"})
	r := start(t, repo, "run-1")
	errs := make(chan error, 8)
	for i := range 8 {
		go func() {
			_, err := r.Add(t.Context(), "agent-"+string(rune('a'+i)))
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	for _, tr := range r.trees {
		if got := sh(t, tr.Dir(), "git status --porcelain; git diff-files --name-only"); got != "" {
			t.Errorf("%s is not clean:\n%s", tr.Agent(), got)
		}
	}
}

// Reset gives a restarted agent the base again, whatever the last launch
// left.
func TestReset(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n", ".gitignore": "*.log\n"})
	r := start(t, repo, "run-1")
	tr := add(t, r, "agent")
	sh(t, tr.Dir(), `echo changed > a.txt && rm b.txt && echo new > new.txt && echo x > x.log
mkdir sub && cd sub && git init -q && cd .. && git checkout -q -b other && git config core.hooksPath /x && rm -rf .git && echo 'gitdir: /nowhere' > .git`)
	if err := tr.Reset(t.Context()); err != nil {
		t.Fatal(err)
	}
	ch := capture(t, tr, Limits{})
	if ch.Refused != "" || len(ch.Files) != 0 || len(ch.Patch) != 0 {
		t.Errorf("after Reset: %+v", ch)
	}
	if got := sh(t, tr.Dir(), "ls -A | sort | tr '\\n' ' '"); got != ".git .gitignore a.txt b.txt" {
		t.Errorf("files after Reset: %q", got)
	}
}
