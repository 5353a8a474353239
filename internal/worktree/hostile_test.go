package worktree

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// hostileAgent is what an adversarial coding agent does in its tree: it
// plants hooks and configuration in the workspace's git directory as its
// own repository names it (a linked worktree shares the workspace's), and
// everything in its repository's configuration and .gitattributes that
// would make a git command run a program (a file system monitor, hooks,
// an external diff, a pager, clean and smudge filters, textconv and diff
// drivers), each a spy that leaves a mark under $M when it runs. Then it
// changes a file and adds one, so that there is a change to capture.
const hostileAgent = `M=__MARK__
mkdir -p "$M/bin"
for p in fsmonitor hook-pre-commit hook-index hook-ref extdiff pager clean smudge textconv diffcmd; do
  printf '#!/bin/sh\ntouch "%s/%s"\ncat\n' "$M" "$p" > "$M/bin/$p"
  chmod +x "$M/bin/$p"
done
common=$(git rev-parse --path-format=absolute --git-common-dir)
mkdir -p "$common/hooks"
cp "$M/bin/hook-pre-commit" "$common/hooks/pre-commit"
cp "$M/bin/hook-index" "$common/hooks/post-index-change"
cp "$M/bin/hook-ref" "$common/hooks/reference-transaction"
git config core.hooksPath "$common/hooks"
git config user.name planted
git config core.fsmonitor "$M/bin/fsmonitor"
git config diff.external "$M/bin/extdiff"
git config core.pager "$M/bin/pager"
git config filter.evil.clean "$M/bin/clean"
git config filter.evil.smudge "$M/bin/smudge"
git config diff.evil.textconv "$M/bin/textconv"
git config diff.evil.command "$M/bin/diffcmd"
printf '* filter=evil diff=evil\n' > .gitattributes
echo changed >> a.txt
echo new > new.txt
`

// hostileRun runs hostileAgent in dir and returns the directory its spies
// mark.
func hostileRun(t *testing.T, dir string) string {
	t.Helper()
	mark := t.TempDir()
	sh(t, dir, strings.ReplaceAll(hostileAgent, "__MARK__", mark))
	return mark
}

// marks lists what ran: the spies' marks.
func marks(t *testing.T, mark string) []string {
	t.Helper()
	des, err := os.ReadDir(mark)
	if err != nil {
		t.Fatal(err)
	}
	var ran []string
	for _, de := range des {
		if de.Name() != "bin" {
			ran = append(ran, de.Name())
		}
	}
	return ran
}

// workspaceGit is what the workspace's git directory holds that an agent
// must not change: its configuration and its hooks.
func workspaceGit(t *testing.T, repo string) string {
	t.Helper()
	return sh(t, repo, "cat .git/config; ls -A .git/hooks | grep -v '\\.sample$' || true")
}

// An adversarial agent's plants reach neither the workspace's .git nor
// optr's capture: the workspace's configuration and hooks are as they
// were, nothing the agent planted ran while optr captured its change,
// applied it to the workspace and reset its tree, and the change is the
// agent's three files.
func TestHostileAgentPlantsNothing(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{"a.txt": "a\n"})
	before := workspaceGit(t, repo)
	r := start(t, repo, "run-1")
	tr := add(t, r, "agent")
	mark := hostileRun(t, tr.Dir())

	ch := capture(t, tr, Limits{})
	var paths []string
	for _, f := range ch.Files {
		paths = append(paths, f.Path)
	}
	if ch.Refused != "" || !slices.Equal(paths, []string{".gitattributes", "a.txt", "new.txt"}) {
		t.Errorf("the agent's change: refused %q, files %v", ch.Refused, paths)
	}
	if err := Apply(t.Context(), "", repo, ch.Patch); err != nil {
		t.Fatal(err)
	}
	if err := tr.Reset(t.Context()); err != nil {
		t.Fatal(err)
	}
	if ran := marks(t, mark); len(ran) > 0 {
		t.Errorf("what the agent planted ran: %v", ran)
	}
	if after := workspaceGit(t, repo); after != before {
		t.Errorf("the workspace's .git changed:\n%s\n----\n%s", before, after)
	}
	if got := sh(t, repo, "git status --porcelain"); got != "A  .gitattributes\nM  a.txt\nA  new.txt" {
		t.Errorf("the workspace after apply:\n%s", got)
	}
}

// The same agent in a linked worktree of the workspace (what each agent
// had before), captured with the workspace's git as it was configured
// (git add --all, git diff --cached): its hooks and configuration land in
// the workspace's .git, and what it planted runs in the capture. The
// adversary is real, so TestHostileAgentPlantsNothing can fail.
func TestHostileAgentInALinkedWorktree(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{"a.txt": "a\n"})
	before := workspaceGit(t, repo)
	dir := filepath.Join(t.TempDir(), "linked")
	sh(t, repo, "git worktree add -q --detach "+dir)
	mark := hostileRun(t, dir)
	for _, args := range [][]string{{"add", "--all"}, {"diff", "--cached"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	ran := marks(t, mark)
	for _, want := range []string{"clean", "diffcmd", "fsmonitor", "hook-index"} {
		if !slices.Contains(ran, want) {
			t.Errorf("%s did not run in the linked worktree's capture (ran: %v)", want, ran)
		}
	}
	after := workspaceGit(t, repo)
	for _, want := range []string{"planted", "hooksPath", "pre-commit", "post-index-change"} {
		if strings.Contains(before, want) || !strings.Contains(after, want) {
			t.Errorf("%s did not reach the workspace's .git:\n%s", want, after)
		}
	}
}
