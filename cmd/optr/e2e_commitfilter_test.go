package main

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/action/actiontest"
	"github.com/optr-dev/optr/internal/github/githubtest"
)

// strayConfig runs, with the sandbox off, an agent that writes beside
// $OPTR_OUTPUT_DIR into the run directory.
const strayConfig = `agents:
  stray:
    provider: command
    run: [sh, agents/stray.sh]
    pass-env: [ANTHROPIC_API_KEY]
  good:
    provider: command
    run: [sh, agents/good.sh]
pipelines:
  main: {mode: select, agents: [stray, good]}
sandbox: { mode: off }
`

// strayAgent writes the key into the run directory beside
// $OPTR_OUTPUT_DIR: a file of its own, a file where agent outputs go, and
// a hard link to a file outside the datalake that holds the key.
const strayAgent = `cat >/dev/null
printf 'key %s\n' "$ANTHROPIC_API_KEY" > "$OPTR_OUTPUT_DIR/../x"
printf '{"output": "%s"}\n' "$ANTHROPIC_API_KEY" > "$OPTR_OUTPUT_DIR/../agent-outputs/x.json"
printf '%s\n' "$ANTHROPIC_API_KEY" > stray-source.txt
ln stray-source.txt "$OPTR_OUTPUT_DIR/../linked.txt"
printf '# Answer\n\nDone.\n'
`

// pieces8 are every 8-byte piece of s: a committed file holding any piece
// of 8 bytes or more of s holds one of them.
func pieces8(s string) []string {
	var out []string
	for i := 0; i+8 <= len(s); i++ {
		out = append(out, s[i:i+8])
	}
	return out
}

// Issue 27.5: with the sandbox off, files an agent wrote beside
// $OPTR_OUTPUT_DIR — into the run directory, among the agent outputs, a
// hard link — were committed unsanitised. Only the files optr wrote and
// the sanitised agent-files/ are committed now; the others are named in
// the job log and left out.
func TestActionCommitsOnlyWhatOptrWrote(t *testing.T) {
	t.Parallel()
	const key = "sk-ant-E2EstrayWRITERkey-0123456789abcdef"
	gh := githubtest.NewServer(t)
	gh.AddIssue(repo, 52, "Stray files", "Do it.", "maintainer")
	writer(gh, "maintainer")
	r := newRunner(t, gh, "5201")
	r.Env["ANTHROPIC_API_KEY"] = key
	r.Env["INPUT_CONFIG"] = ".github/optr.yml"
	r.File(".github/optr.yml", strayConfig)
	r.File("agents/stray.sh", strayAgent)
	r.File("agents/good.sh", goodAgent)
	r.Event("issues", "issues.labeled.json", actiontest.Labeled(52, "optr", "maintainer"))
	res := r.run()
	if res.code != 0 {
		t.Fatalf("exit %d outputs %v\n%s\n%s", res.code, res.outputs, res.stdout, res.stderr)
	}
	files := gh.Files(repo, ledgerBranch)
	var sawOutput bool
	for path, content := range files {
		for _, p := range pieces8(key) {
			if strings.Contains(content, p) {
				t.Errorf("committed %s holds %q, a piece of the key", path, p)
				break
			}
		}
		sawOutput = sawOutput || strings.HasSuffix(path, "/agent-outputs/stray.json")
	}
	if !sawOutput {
		t.Errorf("the stray agent's own output was not committed; committed: %v", slices.Sorted(maps.Keys(files)))
	}
	log := res.stdout + res.stderr
	for _, name := range []string{"/x", "agent-outputs/x.json", "linked.txt"} {
		if !strings.Contains(log, name) || !strings.Contains(log, "not committed") {
			t.Errorf("the job log does not name %s as not committed:\n%s", name, log)
		}
	}
}
