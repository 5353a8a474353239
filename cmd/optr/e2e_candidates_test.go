package main

import (
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/action/actiontest"
	"github.com/optr-dev/optr/internal/demotest"
	"github.com/optr-dev/optr/internal/github/githubtest"
)

// candidatesConfig runs one topic by two candidates, honest and saboteur,
// under the sandbox setting sandbox.
func candidatesConfig(sandbox string) string {
	return sandbox + `agents:
  planner:
    provider: command
    run: [sh, agents/plan-one.sh]
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
    candidates: 2
    max-topics: 1
    threshold: 1
`
}

// planOne plans one topic.
const planOne = `cat >/dev/null
cat <<'PLAN'
INVOCATION_PLAN_READY: 1
[{"topic": "Hash chains", "focus": "how each entry commits to the one before"}]
RESEARCH_COORDINATOR_COMPLETE: SUCCESS
PLAN
`

// honestCandidate writes a valid report, then stays until the saboteur
// has done what it could to it: so its report is judged after that.
const honestCandidate = `cat >/dev/null
sh testdata/demo/agents/research.sh good </dev/null
while [ ! -e "$OPTR_OUTPUT_DIR/sabotaged" ]; do sleep 0.05; done
`

// saboteurCandidate waits for the other candidate's whole report, wherever
// among the candidates' reports it is, overwrites it with one that cannot
// be valid, and then writes a valid report of its own: with the other's
// report broken, its own would be the topic's.
const saboteurCandidate = `cat >/dev/null
root=$(dirname "$OPTR_REPORT_PATH")
while [ "$(basename "$root")" != .candidates ]; do root=$(dirname "$root"); done
while :; do
	theirs=$(find "$root" -type f -name '*.md' ! -path "$OPTR_REPORT_PATH" | head -n 1)
	[ -n "$theirs" ] && grep -q '^## Sources' "$theirs" && break
	sleep 0.05
done
if printf 'sabotaged\n' 2>/dev/null >"$theirs"; then echo "SABOTAGE: overwrote $theirs" >&2; else echo "SABOTAGE: refused $theirs" >&2; fi
touch "$OPTR_OUTPUT_DIR/sabotaged"
sh testdata/demo/agents/research.sh good </dev/null
`

// The candidates of a topic compete: one that can write another's report
// can break it and win the topic with its own. Each candidate may write
// only its own report's folder, so the saboteur's write is refused and
// the honest report is judged and committed as written. With the sandbox
// off (the control) the same saboteur breaks it: the test can fail.
func TestActionCandidatesCannotWriteEachOthersReports(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, sandbox string
		sabotaged     bool
	}{
		{"sandboxed", "", false},
		{"sandbox off", "sandbox: { mode: off }\n", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			gh := githubtest.NewServer(t)
			gh.AddIssue(repo, 55, "Research", "How do ledgers stay honest?", "maintainer")
			writer(gh, "maintainer")
			r := newRunner(t, gh, "5501")
			demotest.Copy(t, r.Workspace)
			r.Env["INPUT_CONFIG"] = ".github/optr.yml"
			r.Env["INPUT_PIPELINE"] = "research"
			r.File(".github/optr.yml", candidatesConfig(tc.sandbox))
			r.File("agents/plan-one.sh", planOne)
			r.File("agents/honest.sh", honestCandidate)
			r.File("agents/saboteur.sh", saboteurCandidate)
			r.Event("issues", "issues.labeled.json", actiontest.Labeled(55, "optr", "maintainer"))
			res := r.run()
			log := res.stdout + res.stderr
			if res.code != 0 {
				t.Fatalf("exit %d outputs %v\n%s", res.code, res.outputs, log)
			}
			var honest string
			found := false
			for path, content := range gh.Files(repo, ledgerBranch) {
				if strings.Contains(path, "/.candidates/") && strings.Contains(path, "honest") {
					honest, found = content, true
				}
			}
			if tried := map[bool]string{true: "SABOTAGE: overwrote", false: "SABOTAGE: refused"}[tc.sabotaged]; !strings.Contains(log, tried) {
				t.Errorf("the job log does not show the saboteur's write %q:\n%s", tried, log)
			}
			intact := found && strings.HasPrefix(honest, "---\nreport_type: research\n") && strings.Contains(honest, "## Sources")
			if intact == tc.sabotaged {
				t.Errorf("the honest candidate's committed report (found %t):\n%s\nwant it sabotaged: %t; log:\n%s", found, honest, tc.sabotaged, log)
			}
		})
	}
}
