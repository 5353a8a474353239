package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/action/actiontest"
	"github.com/optr-dev/optr/internal/github/githubtest"
	"github.com/optr-dev/optr/internal/testkit/demotest"
)

// sabotageConfig runs the research pipeline with the specialists honest
// and saboteur under the sandbox setting sandbox. With candidates 2 they
// compete for one topic; with 1, each writes a topic of two.
func sabotageConfig(sandbox string, candidates int) string {
	return sandbox + fmt.Sprintf(`agents:
  planner:
    provider: command
    run: [sh, agents/plan.sh, "%d"]
  honest:
    provider: command
    run: [sh, agents/honest.sh]
  saboteur:
    provider: command
    run: [sh, agents/saboteur.sh]
pipelines:
  research:
    mode: delegate
    coordinator: planner
    agents: [honest, saboteur]
    candidates: %d
    max-topics: 2
    threshold: 0.5
`, 3-candidates, candidates)
}

// planTopics plans the first $1 of two topics.
const planTopics = `cat >/dev/null
echo "INVOCATION_PLAN_READY: $1"
if [ "$1" = 1 ]; then
	echo '[{"topic": "Hash chains", "focus": "how each entry commits to the one before"}]'
else
	echo '[{"topic": "Hash chains", "focus": "how each entry commits to the one before"}, {"topic": "Witnesses", "focus": "who cosigns"}]'
fi
echo "RESEARCH_COORDINATOR_COMPLETE: SUCCESS"
`

// honestSpecialist writes a valid report, then stays until the saboteur
// has done what it could to it: so its report is judged after that.
const honestSpecialist = `cat >/dev/null
sh testdata/demo/agents/research.sh good </dev/null
while [ ! -e "$OPTR_OUTPUT_DIR/sabotaged" ]; do sleep 0.05; done
`

// saboteurSpecialist waits for the other specialist's whole report,
// wherever in the spec folder it is, and overwrites it with one that
// cannot be valid; it also tries to put a report of its own at the other
// topic's planned path in reports/, before optr does. Then it writes a
// valid report of its own: with the other's report broken, its own would
// win a topic they compete for.
const saboteurSpecialist = `cat >/dev/null
root=$(dirname "$OPTR_REPORT_PATH")
while [ ! -e "$root/.invocation-plan.txt" ]; do root=$(dirname "$root"); done
while :; do
	theirs=$(find "$root" -type f -name '*.md' ! -path "$OPTR_REPORT_PATH" | head -n 1)
	[ -n "$theirs" ] && grep -q '^## Sources' "$theirs" && break
	sleep 0.05
done
if printf 'sabotaged\n' 2>/dev/null >"$theirs"; then echo "SABOTAGE: overwrote $theirs" >&2; else echo "SABOTAGE: refused $theirs" >&2; fi
planted="$root/reports/001_hash-chains.md"
if printf 'planted\n' 2>/dev/null >"$planted"; then echo "PLANT: wrote $planted" >&2; else echo "PLANT: refused $planted" >&2; fi
touch "$OPTR_OUTPUT_DIR/sabotaged"
sh testdata/demo/agents/research.sh good </dev/null
`

// A command specialist may write the folder of its report (its report goes
// there). Had two specialists one folder, one could break the other's
// report before it is judged: another topic's (candidates: 1, each topic's
// report in reports/), or a competing candidate's, to win the topic with
// its own. Each specialist may write only a folder of its own, so the
// saboteur's writes are refused and the honest report is judged and
// committed as written. With the sandbox off (the control) the same
// saboteur breaks it: the test can fail.
func TestActionSpecialistsCannotWriteEachOthersReports(t *testing.T) {
	t.Parallel()
	for _, candidates := range []int{1, 2} {
		for _, tc := range []struct {
			name, sandbox string
			sabotaged     bool
		}{
			{"sandboxed", "", false},
			{"sandbox off", "sandbox: { mode: off }\n", true},
		} {
			t.Run(fmt.Sprintf("candidates %d %s", candidates, tc.name), func(t *testing.T) {
				t.Parallel()
				gh := githubtest.NewServer(t)
				gh.AddIssue(repo, 55, "Research", "How do ledgers stay honest?", "maintainer")
				writer(gh, "maintainer")
				r := newRunner(t, gh, "5501")
				demotest.Copy(t, r.Workspace)
				r.Env["INPUT_CONFIG"] = ".github/optr.yml"
				r.Env["INPUT_PIPELINE"] = "research"
				r.File(".github/optr.yml", sabotageConfig(tc.sandbox, candidates))
				r.File("agents/plan.sh", planTopics)
				r.File("agents/honest.sh", honestSpecialist)
				r.File("agents/saboteur.sh", saboteurSpecialist)
				r.Event("issues", "issues.labeled.json", actiontest.Labeled(55, "optr", "maintainer"))
				res := r.run()
				log := res.stdout + res.stderr
				// Without the sandbox the saboteur may also fail the run:
				// the report it put in reports/ is not optr's to replace.
				if res.code != 0 && !tc.sabotaged {
					t.Fatalf("exit %d outputs %v\n%s", res.code, res.outputs, log)
				}
				// The honest report as committed: the candidate's own with
				// two candidates, the topic's with one.
				var honest string
				found := false
				for path, content := range gh.Files(repo, ledgerBranch) {
					if candidates > 1 && strings.Contains(path, "/.candidates/") && strings.Contains(path, "honest") ||
						candidates == 1 && strings.HasSuffix(path, "/reports/001_hash-chains.md") {
						honest, found = content, true
					}
				}
				tried := map[bool]string{true: "SABOTAGE: overwrote", false: "SABOTAGE: refused"}[tc.sabotaged]
				if !strings.Contains(log, tried) {
					t.Errorf("the job log does not show the saboteur's write %q:\n%s", tried, log)
				}
				if !tc.sabotaged && !strings.Contains(log, "PLANT: refused") {
					t.Errorf("the saboteur could write reports/:\n%s", log)
				}
				intact := found && strings.HasPrefix(honest, "---\nreport_type: research\n") && strings.Contains(honest, "## Sources")
				if intact == tc.sabotaged {
					t.Errorf("the honest report as committed (found %t):\n%s\nwant it sabotaged: %t; log:\n%s", found, honest, tc.sabotaged, log)
				}
			})
		}
	}
}
