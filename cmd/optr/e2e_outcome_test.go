package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/action/actiontest"
	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/agent/llm/llmtest"
	"github.com/optr-dev/optr/internal/github/githubtest"
)

// Outcomes (architecture §4.19), as the runner runs the Action.

// closedEvent runs the Action on a pull_request.closed event of pull
// request n from branch head, sent by sender (of senderType).
func closedEvent(t *testing.T, gh *githubtest.Server, runID string, n int, head string, merged bool, sender, senderType string) result {
	t.Helper()
	r := newRunner(t, gh, runID) // no checkout: the outcome's job needs none
	r.Event("pull_request", "pull_request.closed.json", actiontest.Closed(n, head, merged, sender, senderType))
	return r.run()
}

// outcomeLines are the committed ledger's outcome entries.
func outcomeLines(t *testing.T, gh *githubtest.Server) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, e := range ledgerLines(t, gh) {
		if e["kind"] == "outcome" {
			out = append(out, e)
		}
	}
	return out
}

// stats runs `optr ledger stats --json` on the ledger branch's ledger.
func stats(t *testing.T, gh *githubtest.Server, args ...string) map[string]any {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "lake")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for p, content := range gh.Files(repo, ledgerBranch) {
		if rest, ok := strings.CutPrefix(p, ".optr/"); ok && (rest == "ledger.jsonl" || strings.HasPrefix(rest, "ledger.d/")) {
			if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, rest)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, rest), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	cmd := exec.Command(optrBin, append([]string{"ledger", "stats", "--json", "--ledger", filepath.Join(dir, "ledger.jsonl")}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("optr ledger stats: %v\n%s", err, stderr.String())
	}
	var v map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &v); err != nil {
		t.Fatalf("optr ledger stats --json: %v\n%s", err, stdout.String())
	}
	return v
}

// agentNamed is the stats row of agent name, and its rank (0 first).
func agentNamed(t *testing.T, v map[string]any, name string) (map[string]any, int) {
	t.Helper()
	for i, a := range v["agents"].([]any) {
		if a := a.(map[string]any); a["agent"] == name {
			return a, i
		}
	}
	t.Fatalf("no agent %s in %v", name, v["agents"])
	return nil, 0
}

// meteredCoder is reviewCoder's first change by an agent that asks its
// model first, through the model gateway: its change has a known cost.
const meteredCoder = `cat >/dev/null
curl -sS --fail-with-body -o /dev/null "$ANTHROPIC_BASE_URL/v1/messages" \
  -H "x-api-key: $ANTHROPIC_API_KEY" -H "anthropic-version: 2023-06-01" -H "content-type: application/json" \
  -d '{"model":"claude-sonnet-4-5","max_tokens":100,"messages":[{"role":"user","content":"Greet the world."}]}' || exit 1
printf 'hello, world\n' > greet.txt
echo changed greet.txt
`

// An issue run opens a pull request; its pull_request.closed (merged)
// event records one outcome, and the same event again records nothing;
// the standings show a merge rate of 1 and the cost per merged change the
// run recorded — a number: the agent's model calls went through the
// model gateway, priced; a second agent's pull request, closed unmerged,
// ranks it below.
func TestActionOutcome(t *testing.T) {
	t.Parallel()
	model := llmtest.NewAnthropic(t)
	model.SetDefault(llmtest.Reply{Text: "Hello, world.", Usage: agent.Usage{InputTokens: 1000, OutputTokens: 100}})
	gh := issueServer(t)
	iterateRepo(t, gh, "agents:\n  coder: { provider: command, run: [sh, agents/coder.sh], gateway: [anthropic] }\nchanges:\n  mode: pull-request\n")
	gh.Commit(repo, "main", map[string]string{"agents/coder.sh": meteredCoder}, "a coder that asks its model")
	_, pull := openByIssue(t, gh, "7101", model.Env())
	runEntry := ledgerLines(t, gh)[0]
	// claude-sonnet-4-5 at $3 in, $15 out a million: 1000 in, 100 out.
	if c, ok := runEntry["cost_usd"].(float64); !ok || math.Abs(c-0.0045) > 1e-9 || len(model.Requests()) != 1 {
		t.Fatalf("the run recorded cost %v after %d model calls; want $0.0045, the one call's", runEntry["cost_usd"], len(model.Requests()))
	}
	// The change's commit and the pull request name the agent and the
	// model: a command agent's config names none, so the one the gateway
	// saw answer.
	if msg := gh.Log(repo, pull.Head)[0].Message; !strings.HasSuffix(msg, "\n\nAssisted-by: coder:claude-sonnet-4-5\nOptr-Run: 7101-1\n") {
		t.Errorf("the change's commit message does not end with the trailers:\n%s", msg)
	}
	if !strings.Contains(pull.Body, "written by agent `coder` with model `claude-sonnet-4-5` (`Assisted-by: coder:claude-sonnet-4-5`)") {
		t.Errorf("the pull request's body does not name the agent and model:\n%s", pull.Body)
	}
	gh.MergePull(repo, pull.Number, "maintainer", "User")

	res := closedEvent(t, gh, "7102", pull.Number, pull.Head, true, "maintainer", "User")
	if res.code != 0 || res.outputs["status"] != "completed" || res.outputs["pull-request"] != strconv.Itoa(pull.Number) {
		t.Fatalf("exit %d, outputs %v\n%s%s", res.code, res.outputs, res.stdout, res.stderr)
	}
	outs := outcomeLines(t, gh)
	if len(outs) != 1 {
		t.Fatalf("%d outcome entries, want 1: %v", len(outs), outs)
	}
	o := outs[0]
	if o["run"] != "7101-1" || o["workflow"] != "issue-7" || o["outcome"] != "merged" || o["by"] != "maintainer" || o["agent"] != "coder" ||
		o["pull_request"] != float64(pull.Number) || o["iterations"] != float64(1) || o["source"] != "event" || o["commit"] == nil {
		t.Errorf("outcome entry: %v", o)
	}
	if o["change_cost_usd"] != runEntry["cost_usd"] {
		t.Errorf("the change cost %v, the run recorded %v", o["change_cost_usd"], runEntry["cost_usd"])
	}
	if res.outputs["ledger-hash"] != o["hash"] || res.outputs["ledger-commit"] != gh.Head(repo, ledgerBranch) {
		t.Errorf("outputs %v; want the outcome's hash and the ledger branch's commit", res.outputs)
	}
	if !strings.Contains(res.summary, "#"+strconv.Itoa(pull.Number)+" merged by maintainer") || !strings.Contains(res.summary, "Merge rate") {
		t.Errorf("step summary:\n%s", res.summary)
	}
	if n := len(optrComments(gh, pull.Number)); n != 0 {
		t.Errorf("optr commented %d times on the pull request; an outcome posts nothing", n)
	}

	again := closedEvent(t, gh, "7103", pull.Number, pull.Head, true, "maintainer", "User")
	if again.code != 0 || again.outputs["status"] != "skipped" || !strings.Contains(again.stdout, "nothing recorded: #"+strconv.Itoa(pull.Number)+" is merged, as the ledger records already") {
		t.Errorf("the same event again: exit %d, outputs %v\n%s%s", again.code, again.outputs, again.stdout, again.stderr)
	}
	if n := len(outcomeLines(t, gh)); n != 1 {
		t.Errorf("%d outcome entries after the event came twice, want 1", n)
	}

	v := stats(t, gh)
	coder, rank := agentNamed(t, v, "coder")
	if coder["merge_rate"] != 1.0 || coder["merged"] != 1.0 || coder["pull_requests"] != 1.0 || rank != 0 || v["verified"] != true {
		t.Errorf("stats of coder: %v", coder)
	}
	if coder["cost_per_merged_usd"] != runEntry["cost_usd"] {
		t.Errorf("cost per merged change %v, the run recorded %v", coder["cost_per_merged_usd"], runEntry["cost_usd"])
	}

	// A second agent writes the next change, and people close it.
	gh.AddIssue(repo, 20, "Greet differently", "Say hi.", "maintainer")
	gh.Commit(repo, "main", map[string]string{
		".github/optr.yml": "agents:\n  rival: { provider: command, run: [sh, agents/rival.sh] }\nchanges:\n  mode: pull-request\n",
		"agents/rival.sh":  "cat >/dev/null\nprintf 'hi, world\\n' > greet.txt\necho changed\n",
	}, "a rival agent")
	r := jobOn(t, gh, "7104", "main")
	r.Event("issues", "issues.labeled.json", actiontest.Labeled(20, "optr", "maintainer"))
	if res := r.run(); res.code != 0 || res.outputs["pull-request"] == "" {
		t.Fatalf("the rival's run: exit %d, outputs %v\n%s%s", res.code, res.outputs, res.stdout, res.stderr)
	}
	second := gh.Pulls(repo)[1]
	gh.ClosePullBy(repo, second.Number, "maintainer", "User")
	if res := closedEvent(t, gh, "7105", second.Number, second.Head, false, "maintainer", "User"); res.code != 0 || res.outputs["status"] != "completed" {
		t.Fatalf("closed event: exit %d, outputs %v\n%s%s", res.code, res.outputs, res.stdout, res.stderr)
	}
	v = stats(t, gh)
	coder, coderRank := agentNamed(t, v, "coder")
	rival, rivalRank := agentNamed(t, v, "rival")
	if rival["merge_rate"] != 0.0 || rival["closed"] != 1.0 || rivalRank <= coderRank || coder["merge_rate"] != 1.0 {
		t.Errorf("stats: coder %v (rank %d), rival %v (rank %d); want the rival, whose change was closed, below", coder, coderRank, rival, rivalRank)
	}
}

// What records nothing, and what is recorded all the same: a pull request
// optr did not open (one line in the log); a merge by a bot (recorded, as
// a bot's); a stale closed event for a pull request reopened since, and
// one that arrives after its merge was recorded (nothing).
func TestActionOutcomeBadInput(t *testing.T) {
	t.Parallel()
	t.Run("not optr's", func(t *testing.T) {
		t.Parallel()
		gh := issueServer(t)
		gh.Commit(repo, "feature", map[string]string{"x.txt": "x"}, "a person's change")
		n := gh.AddPull(repo, "feature", "main", "a person's", "octocat")
		gh.MergePull(repo, n, "maintainer", "User")
		res := closedEvent(t, gh, "7201", n, "feature", true, "maintainer", "User")
		lines := 0
		for _, l := range strings.Split(res.stdout, "\n") {
			if strings.Contains(l, "nothing recorded") {
				lines++
			}
		}
		if res.code != 0 || res.outputs["status"] != "skipped" || lines != 1 || !strings.Contains(res.stdout, "not a pull request optr opened") {
			t.Errorf("exit %d, outputs %v\n%s%s", res.code, res.outputs, res.stdout, res.stderr)
		}
		if _, ok := gh.File(repo, ledgerBranch, ".optr/ledger.jsonl"); ok {
			t.Error("a ledger was committed for a pull request optr did not open")
		}
	})
	t.Run("merged by a bot", func(t *testing.T) {
		t.Parallel()
		gh, pull := openedPull(t, "7202")
		gh.MergePull(repo, pull.Number, "mergify[bot]", "Bot")
		res := closedEvent(t, gh, "7203", pull.Number, pull.Head, true, "mergify[bot]", "Bot")
		outs := outcomeLines(t, gh)
		if res.code != 0 || res.outputs["status"] != "completed" || len(outs) != 1 || outs[0]["by"] != "mergify[bot]" || outs[0]["by_type"] != "Bot" {
			t.Errorf("exit %d, outputs %v, outcomes %v\n%s%s", res.code, res.outputs, outs, res.stdout, res.stderr)
		}
	})
	t.Run("out of order", func(t *testing.T) {
		t.Parallel()
		gh, pull := openedPull(t, "7204")
		gh.ClosePullBy(repo, pull.Number, "maintainer", "User")
		gh.ReopenPull(repo, pull.Number)
		// The close's event comes after the pull request was reopened.
		res := closedEvent(t, gh, "7205", pull.Number, pull.Head, false, "maintainer", "User")
		if res.outputs["status"] != "skipped" || !strings.Contains(res.stdout, "reopened since") || len(outcomeLines(t, gh)) != 0 {
			t.Errorf("a stale close of a reopened pull request: outputs %v\n%s", res.outputs, res.stdout)
		}
		gh.MergePull(repo, pull.Number, "maintainer", "User")
		if res := closedEvent(t, gh, "7206", pull.Number, pull.Head, true, "maintainer", "User"); res.outputs["status"] != "completed" {
			t.Fatalf("the merge: outputs %v\n%s%s", res.outputs, res.stdout, res.stderr)
		}
		// The close's event, delivered again after the merge.
		res = closedEvent(t, gh, "7207", pull.Number, pull.Head, false, "maintainer", "User")
		if outs := outcomeLines(t, gh); res.outputs["status"] != "skipped" || len(outs) != 1 || outs[0]["outcome"] != "merged" {
			t.Errorf("the close after the merge: outputs %v, outcomes %v\n%s", res.outputs, outs, res.stdout)
		}
	})
}

// Without the pull_request.closed trigger, the next run records what
// became of optr's earlier pull requests, read through the API, before
// it starts: once, whatever the number of runs after.
func TestActionOutcomeAtTheNextRun(t *testing.T) {
	t.Parallel()
	gh, pull := openedPull(t, "7301")
	gh.MergePull(repo, pull.Number, "maintainer", "User")
	gh.AddIssue(repo, 30, "Another", "Greet again.", "maintainer")
	gh.Commit(repo, "main", map[string]string{"agents/coder.sh": "cat >/dev/null\nprintf 'hello again\\n' > greet.txt\necho changed\n"}, "another greeting")
	for i, runID := range []string{"7302", "7303"} {
		r := jobOn(t, gh, runID, "main")
		r.Event("issues", "issues.labeled.json", actiontest.Labeled(30, "optr", "maintainer"))
		res := r.run()
		if res.code != 0 || res.outputs["status"] != "completed" {
			t.Fatalf("run %s: exit %d, outputs %v\n%s%s", runID, res.code, res.outputs, res.stdout, res.stderr)
		}
		outs := outcomeLines(t, gh)
		if len(outs) != 1 || outs[0]["source"] != "api" || outs[0]["outcome"] != "merged" || outs[0]["run"] != "7301-1" || outs[0]["by"] != "maintainer" {
			t.Fatalf("after run %d: outcomes %v\n%s", i+1, outs, res.stdout)
		}
		if i == 0 && !strings.Contains(res.summary, "Merge rate") {
			t.Errorf("the run's standings do not count the outcome it recorded:\n%s", res.summary)
		}
	}
}
