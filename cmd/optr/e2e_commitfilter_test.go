package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/action/actiontest"
	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/github/githubtest"
	"github.com/optr-dev/optr/internal/testkit/demotest"
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

// floodConfig runs, in the sandbox, an agent that leaves more files in
// $OPTR_OUTPUT_DIR than a run keeps.
const floodConfig = `agents:
  flood:
    provider: command
    run: [sh, agents/flood.sh]
`

// An agent (its intent is anyone's text) left files in $OPTR_OUTPUT_DIR
// without bound, and every one was committed back: thousands of blobs
// uploaded and kept. The run keeps datalake.MaxAgentFiles of them, in
// path order, names the first files it removed in the job log and counts
// the rest.
func TestActionKeepsAgentFilesToTheBound(t *testing.T) {
	t.Parallel()
	extra := 25
	gh := githubtest.NewServer(t)
	gh.AddIssue(repo, 53, "Many files", "Leave many files.", "maintainer")
	writer(gh, "maintainer")
	r := newRunner(t, gh, "5301")
	r.Env["INPUT_CONFIG"] = ".github/optr.yml"
	r.File(".github/optr.yml", floodConfig)
	r.File("agents/flood.sh", fmt.Sprintf(`cat >/dev/null
i=0
while [ $i -lt %d ]; do printf '%%s\n' $i > "$OPTR_OUTPUT_DIR/f$(printf %%05d $i).txt"; i=$((i+1)); done
printf '# Answer\n\nDone.\n'
`, datalake.MaxAgentFiles+extra))
	r.Event("issues", "issues.labeled.json", actiontest.Labeled(53, "optr", "maintainer"))
	res := r.run()
	if res.code != 0 {
		t.Fatalf("exit %d outputs %v\n%s\n%s", res.code, res.outputs, res.stdout, res.stderr)
	}
	var kept []string
	for path := range gh.Files(repo, ledgerBranch) {
		if strings.Contains(path, "/agent-files/") {
			kept = append(kept, path)
		}
	}
	slices.Sort(kept)
	if len(kept) != datalake.MaxAgentFiles || !strings.HasSuffix(kept[len(kept)-1], fmt.Sprintf("/f%05d.txt", datalake.MaxAgentFiles-1)) {
		t.Errorf("committed %d agent files (last %q), want the first %d", len(kept), kept[len(kept)-1:], datalake.MaxAgentFiles)
	}
	log := res.stdout + res.stderr
	first := fmt.Sprintf("removed f%05d.txt: past what the agents of a run may leave", datalake.MaxAgentFiles)
	if !strings.Contains(log, first) || !strings.Contains(log, fmt.Sprintf("removed %d more files", extra-20)) {
		t.Errorf("the job log does not name the first removed file and count the rest:\n%s", log)
	}
}

// leakyResearchConfig is the demo's research pipeline with one more
// specialist, leaky, which is given the key (as a coding agent is given
// its provider's key) and writes it beside its report.
const leakyResearchConfig = `agents:
  good:
    provider: command
    run: [sh, testdata/demo/agents/good.sh]
  leaky:
    provider: command
    run: [sh, agents/leaky.sh]
    pass-env: [ANTHROPIC_API_KEY]
pipelines:
  research:
    mode: delegate
    coordinator: good
    agents: [good, leaky]
    max-topics: 4
    threshold: 0.5
`

// reportLeaker writes its report as the demo's good specialist does, and
// leaves the key in the reports' folder, beside it.
const reportLeaker = `printf '%s\n' "$ANTHROPIC_API_KEY" > "$(dirname "$OPTR_REPORT_PATH")/leak.txt"
printf 'key %s\n' "$ANTHROPIC_API_KEY" >> "$OPTR_REPORT_PATH.notes"
exec sh testdata/demo/agents/research.sh good
`

// A delegate specialist can write the reports' folder (its report goes
// there): a file it leaves there beside its report, holding a key it was
// given, was committed with the spec folder, unredacted. Only what the
// delegation keeps — the plan, OVERVIEW.md and the reports at their
// planned paths — is committed from it, and what is not is named.
func TestActionCommitsOnlyTheSpecFolderItKept(t *testing.T) {
	t.Parallel()
	const key = "sk-ant-E2EreportLEAKkey-0123456789abcdef"
	gh := githubtest.NewServer(t)
	gh.AddIssue(repo, 54, "Research", "How do ledgers stay honest?", "maintainer")
	writer(gh, "maintainer")
	r := newRunner(t, gh, "5401")
	demotest.Copy(t, r.Workspace)
	r.Env["ANTHROPIC_API_KEY"] = key
	r.Env["INPUT_CONFIG"] = ".github/optr.yml"
	r.Env["INPUT_PIPELINE"] = "research"
	r.File(".github/optr.yml", leakyResearchConfig)
	r.File("agents/leaky.sh", reportLeaker)
	r.Event("issues", "issues.labeled.json", actiontest.Labeled(54, "optr", "maintainer"))
	res := r.run()
	if res.code != 0 {
		t.Fatalf("exit %d outputs %v\n%s\n%s", res.code, res.outputs, res.stdout, res.stderr)
	}
	var reports int
	for path, content := range gh.Files(repo, ledgerBranch) {
		for _, p := range pieces8(key) {
			if strings.Contains(content, p) {
				t.Errorf("committed %s holds %q, a piece of the key", path, p)
				break
			}
		}
		if strings.Contains(path, "/reports/") && strings.HasSuffix(path, ".md") {
			reports++
		}
	}
	if reports != 4 {
		t.Errorf("%d reports committed, want all 4", reports)
	}
}
