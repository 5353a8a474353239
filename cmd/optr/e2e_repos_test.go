package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/action/actiontest"
	"github.com/optr-dev/optr/internal/github/githubtest"
	"github.com/optr-dev/optr/internal/testkit/gittest"
)

// reposConfig has two coding agents: adversary, which tries every route
// out of its repository, and victim, whose change is the one selected
// (only its output passes the hard check).
const reposConfig = `agents:
  adversary: { provider: command, run: [sh, %[1]s/adversary.sh], timeout: 60s }
  victim: { provider: command, run: [sh, %[1]s/victim.sh], timeout: 60s }
constraints:
  victim-only: { check: contains, value: "victim done", hard: true }
changes: { mode: %[2]s }
sandbox: { mode: %[3]s, read: [%[1]s] }
`

// reposAdversary plants, through the routes git gives it (its
// repository's common directory), hooks and the workspace's
// configuration; plants in its own repository and .gitattributes every
// program git could run while optr captures its change (spies that mark
// $MARK when they run); then writes the workspace's .git and another
// agent's repository by their paths. It prints LEAK:<route> for each
// write that worked.
const reposAdversary = `cat >/dev/null
leak() { echo "LEAK:$1"; }
git status --porcelain >/dev/null && git log -1 --format=%H >/dev/null && echo "GIT-WORKS"
S="$PWD/.git/spies"; mkdir -p "$S"
for p in fsmonitor hook extdiff pager clean smudge textconv diffcmd; do
  printf '#!/bin/sh\ntouch "%s/ran-%s" 2>/dev/null\ncat\n' "$MARK" "$p" > "$S/$p"; chmod +x "$S/$p"
done
common=$(git rev-parse --path-format=absolute --git-common-dir)
case "$common" in "$WS"/*) leak git-common-dir;; esac
mkdir -p "$common/hooks" && cp "$S/hook" "$common/hooks/pre-commit" && cp "$S/hook" "$common/hooks/post-index-change"
git config core.hooksPath "$S"
git config core.fsmonitor "$S/fsmonitor"
git config diff.external "$S/extdiff"
git config core.pager "$S/pager"
git config filter.evil.clean "$S/clean"
git config filter.evil.smudge "$S/smudge"
git config diff.evil.textconv "$S/textconv"
git config diff.evil.command "$S/diffcmd"
printf '* filter=evil diff=evil\n' > .gitattributes
echo changed >> greet.txt
cp "$S/hook" "$WS/.git/hooks/pre-commit" 2>/dev/null && leak workspace-hook
git -C "$WS" config core.hooksPath "$S" 2>/dev/null && leak workspace-config
echo planted > "$WS/planted.txt" 2>/dev/null && leak workspace-write
i=0; while [ ! -e ../victim/.git/HEAD ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done
mkdir -p ../victim/.git/hooks 2>/dev/null; cp "$S/hook" ../victim/.git/hooks/pre-commit 2>/dev/null && leak other-repository
echo planted > ../victim/planted.txt 2>/dev/null && leak other-tree
echo adversary done
`

const reposVictim = `cat >/dev/null
echo 'hello, victim' > greet.txt
echo victim done
`

// reposWorkspace writes the workspace files of a run with reposConfig
// and the agents' scripts (outside the workspace, read-only to them), and
// returns the files and the directory the spies mark.
func reposWorkspace(t *testing.T, dir, ws, changes, mode string) (map[string]string, string) {
	t.Helper()
	tools, mark := filepath.Join(dir, "tools"), filepath.Join(dir, "marks")
	for _, d := range []string{tools, mark} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	_ = os.Chmod(dir, 0o755)
	known := strings.NewReplacer("$MARK", mark, "$WS", ws)
	gittest.Write(t, tools, map[string]string{"adversary.sh": known.Replace(reposAdversary), "victim.sh": reposVictim})
	return map[string]string{"greet.txt": "hello\n", ".github/optr.yml": fmt.Sprintf(reposConfig, tools, changes, mode)}, mark
}

// reposLeaks lists the LEAK routes the adversary printed (in the run's
// datalake) and the spies that ran.
func reposLeaks(t *testing.T, ws, mark string) []string {
	t.Helper()
	var out []string
	out = leakRoutes(ws, out)
	ran, _ := os.ReadDir(mark)
	for _, de := range ran {
		out = append(out, de.Name())
	}
	return out
}

// Coding agents work in repositories of their own (architecture §4.14), in the
// CLI (changes: apply) and in the Action as the runner runs it (changes:
// pull-request): an adversarial agent finds its own .git where git tells
// it the workspace's would be, nothing it planted in its repository runs
// when optr captures its change, and the sandbox keeps it from the
// workspace's .git and from the other agent's repository by their paths;
// π*'s change alone reaches the workspace (apply) or the pull request.
// With the sandbox off the same agent writes the workspace's .git and the
// other agent's tree, so the test can fail; its own repository still
// keeps it from the workspace's through git, and its plants never run.
func TestCodingAgentsStayInTheirRepositories(t *testing.T) {
	for _, via := range []string{"cli", "action"} {
		for _, mode := range []string{"auto", "off"} {
			t.Run(via+"/"+mode, func(t *testing.T) {
				t.Parallel()
				var ws, mark, log string
				var gh *githubtest.Server
				var before string
				if via == "cli" {
					dir := t.TempDir()
					ws = filepath.Join(dir, "workspace")
					var files map[string]string
					files, mark = reposWorkspace(t, dir, ws, "apply", mode)
					gittest.Write(t, ws, files)
					gittest.Sh(t, ws, "git init -q -b main . && git add -A && git commit -qm base")
					before = workspaceGitState(t, ws)
					cmd := exec.Command(optrBin, "run", "--workflow", "repos", "--intent", "change greet.txt", "--interactive", "never")
					cmd.Dir = ws
					cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}
					out, err := cmd.CombinedOutput()
					log = string(out)
					if err != nil {
						t.Fatalf("optr run: %v\n%s", err, log)
					}
				} else {
					gh = issueServer(t)
					r := newRunner(t, gh, "9101")
					ws = r.Workspace
					var files map[string]string
					files, mark = reposWorkspace(t, r.Dir, ws, "pull-request", mode)
					gh.Commit(repo, "main", files, "base")
					checkoutCommit(r, files)
					before = workspaceGitState(t, ws)
					r.Event("issues", "issues.labeled.json", actiontest.Labeled(7, "optr", "maintainer"))
					res := r.run()
					log = res.stdout + res.stderr
					if res.code != 0 {
						t.Fatalf("optr action exited %d\n%s", res.code, log)
					}
				}
				// The adversary ran to its end, with a repository git could read
				// (its objects borrowed from the workspace's, under the sandbox too).
				if out := findFile(t, filepath.Join(ws, ".optr"), "adversary.json"); !strings.Contains(out, "GIT-WORKS") || !strings.Contains(out, "adversary done") {
					t.Errorf("the adversary did not run through with a working repository:\n%s\n%s", out, log)
				}
				leaks := reposLeaks(t, ws, mark)
				for _, never := range []string{"git-common-dir", "ran-"} {
					for _, l := range leaks {
						if strings.HasPrefix(l, never) {
							t.Errorf("the adversary got %s with the sandbox %s: %v\n%s", l, mode, leaks, log)
						}
					}
				}
				if mode == "off" {
					for _, want := range []string{"workspace-hook", "workspace-config", "other-tree"} {
						if !slices.Contains(leaks, want) {
							t.Errorf("with the sandbox off the adversary should get %s; it got %v\n%s", want, leaks, log)
						}
					}
					return
				}
				if len(leaks) > 0 {
					t.Errorf("the adversary got through: %v\n%s", leaks, log)
				}
				if after := workspaceGitState(t, ws); after != before {
					t.Errorf("the workspace's .git changed:\n%s\n----\n%s", before, after)
				}
				if via == "cli" {
					if got := gittest.Sh(t, ws, "git status --porcelain --untracked-files=all -- . ':!.optr'; cat greet.txt"); got != "M  greet.txt\nhello, victim" {
						t.Errorf("the workspace after applying π*'s change:\n%s\n%s", got, log)
					}
					return
				}
				pulls := gh.Pulls(repo)
				if len(pulls) != 1 {
					t.Fatalf("pull requests: %+v\n%s", pulls, log)
				}
				files := gh.Files(repo, pulls[0].Head)
				if files["greet.txt"] != "hello, victim\n" || files[".gitattributes"] != "" {
					t.Errorf("the pull request's files: greet.txt %q, .gitattributes %q", files["greet.txt"], files[".gitattributes"])
				}
			})
		}
	}
}

// workspaceGitState is what of the workspace's .git an agent must not
// change: its configuration, hooks and refs.
func workspaceGitState(t *testing.T, ws string) string {
	t.Helper()
	return gittest.Sh(t, ws, "cat .git/config; ls -A .git/hooks | grep -v '\\.sample$' || true; git for-each-ref; ls -A .git")
}

// A workspace whose git configuration carries the token as
// actions/checkout persists it (persist-credentials: true) is refused
// before any agent starts, exit 2, naming the key and
// persist-credentials: false, in the CLI and in the Action as the runner
// runs it; without it the same run goes ahead.
func TestPersistedCredentialsRefused(t *testing.T) {
	const token = "ghs_PERSISTEDcheckoutTOKEN0123456789abcd"
	for _, via := range []string{"cli", "action"} {
		for _, persisted := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/persisted=%t", via, persisted), func(t *testing.T) {
				t.Parallel()
				files := map[string]string{
					"greet.txt":        "hello\n",
					".github/optr.yml": "agents:\n  coder: { provider: command, run: [sh, -c, 'cat >/dev/null; echo hi > greet.txt; echo coded'] }\n",
				}
				var code int
				var log, ws string
				if via == "cli" {
					dir := t.TempDir()
					ws = filepath.Join(dir, "workspace")
					gittest.Write(t, ws, files)
					gittest.Sh(t, ws, "git init -q -b main . && git add -A && git commit -qm base")
					if persisted {
						gittest.PersistCredentials(t, ws, filepath.Join(dir, "runner-temp"), token, false)
					}
					cmd := exec.Command(optrBin, "run", "--workflow", "creds", "--intent", "greet", "--interactive", "never")
					cmd.Dir = ws
					cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}
					out, err := cmd.CombinedOutput()
					log = string(out)
					if ee, ok := err.(*exec.ExitError); ok {
						code = ee.ExitCode()
					} else if err != nil {
						t.Fatal(err)
					}
				} else {
					gh := issueServer(t)
					gh.Commit(repo, "main", files, "base")
					r := newRunner(t, gh, "9201")
					ws = r.Workspace
					checkoutCommit(r, files)
					if persisted {
						gittest.PersistCredentials(t, ws, r.Env["RUNNER_TEMP"], token, false)
					}
					r.Event("issues", "issues.labeled.json", actiontest.Labeled(7, "optr", "maintainer"))
					res := r.run()
					code, log = res.code, res.stdout+res.stderr
				}
				ran := findAll(t, filepath.Join(ws, ".optr"), "coder.json")
				if !persisted {
					if code != 0 || !ran {
						t.Errorf("without a credential: exit %d, agent ran %t\n%s", code, ran, log)
					}
					return
				}
				if code != 2 || ran {
					t.Errorf("with the persisted token: exit %d (want 2), agent ran %t\n%s", code, ran, log)
				}
				for _, want := range []string{"http.https://github.com/.extraheader", "persist-credentials: false"} {
					if !strings.Contains(log, want) {
						t.Errorf("the refusal does not say %q:\n%s", want, log)
					}
				}
				if strings.Contains(log, token) {
					t.Errorf("the log shows the token:\n%s", log)
				}
			})
		}
	}
}

// findAll reports whether a file called name is anywhere under dir.
func findAll(t *testing.T, dir, name string) bool {
	t.Helper()
	found := false
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == name {
			found = true
		}
		return nil
	})
	return found
}
