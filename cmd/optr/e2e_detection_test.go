package main

import (
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/action/actiontest"
	"github.com/optr-dev/optr/internal/agent/llm/llmtest"
	"github.com/optr-dev/optr/internal/github/githubtest"
	"github.com/optr-dev/optr/internal/secretscan/tokentest"
)

// detectionConfig has one coding agent: leakyCoder writes a token of its
// own (not one optr gave it, which the capture would refuse) into
// .npmrc, clean writes an ordinary file.
const detectionConfig = `agents:
  coder: { provider: command, pass-env: [ANTHROPIC_API_KEY], run: [sh, agents/coder.sh] }
changes: { mode: pull-request }
`

func leakyCoder(token string) string {
	return "cat >/dev/null\nprintf '//registry.npmjs.org/:_authToken=%s\\n' '" + token + "' > .npmrc\necho \"configured the registry\"\n"
}

const cleanCoder = `cat >/dev/null
echo 'hello, world' > greet.txt
echo "greeted"
`

// detectionRun runs the Action on issue 7 with coder and config:
// labelled, or by a maintainer's "/optr run <pipeline>" comment when
// pipeline is set. It returns the result and the fake GitHub.
func detectionRun(t *testing.T, runID, coder, config, pipeline string, env map[string]string) (result, *githubtest.Server) {
	t.Helper()
	gh := issueServer(t)
	files := map[string]string{"greet.txt": "hello\n", ".github/optr.yml": config, "agents/coder.sh": coder}
	gh.Commit(repo, "main", files, "base")
	r := newRunner(t, gh, runID)
	checkoutCommit(r, files)
	r.Env["INPUT_CONFIG"] = ".github/optr.yml"
	for k, v := range env {
		r.Env[k] = v
	}
	if pipeline == "" {
		r.Event("issues", "issues.labeled.json", actiontest.Labeled(7, "optr", "maintainer"))
	} else {
		id := gh.AddComment(repo, 7, "maintainer", "/optr run "+pipeline)
		r.Event("issue_comment", "issue_comment.created.json", func(p map[string]any) {
			actiontest.Commented(7, "/optr run "+pipeline, "maintainer", "User")(p)
			p["comment"].(map[string]any)["id"] = id
		})
	}
	return r.run(), gh
}

// Threat detection in the Action, as the runner runs it (architecture §4.15):
// a π* whose patch adds a token-shaped string opens no pull request but
// waits at a THREAT checkpoint (the default); with on-finding: warn the
// pull request is opened with the finding — never the token — in its
// body and in the comment.
func TestActionThreatDetection(t *testing.T) {
	t.Parallel()
	token := tokentest.NPMToken(1)
	scan := secretScan(t, token)
	everywhere := func(res result, gh *githubtest.Server) {
		t.Helper()
		for _, line := range strings.Split(res.stdout+"\n"+res.stderr, "\n") {
			scan("log line "+line, line)
		}
		scan("step summary", res.summary)
		for path, content := range gh.Files(repo, ledgerBranch) {
			if !strings.HasSuffix(path, ".patch") { // the change itself, kept for the maintainer's decision
				scan("committed "+path, content)
			}
		}
		for _, c := range gh.Comments(repo, 7) {
			scan("comment", c.Body)
		}
		for _, pr := range gh.Pulls(repo) {
			scan("pull request body", pr.Title+pr.Body)
		}
	}

	t.Run("checkpoint", func(t *testing.T) {
		t.Parallel()
		res, gh := detectionRun(t, "4101", leakyCoder(token), detectionConfig, "", nil)
		if res.code != 0 || res.outputs["status"] != "paused" || res.outputs["pull-request"] != "" {
			t.Fatalf("exit %d, outputs %v\n%s%s", res.code, res.outputs, res.stdout, res.stderr)
		}
		if n := len(gh.Pulls(repo)); n != 0 {
			t.Fatalf("%d pull requests opened before a maintainer answered", n)
		}
		var asked bool
		for _, c := range gh.Comments(repo, 7) {
			asked = asked || strings.Contains(c.Body, "THREAT") && strings.Contains(c.Body, "npm-access-token") && strings.Contains(c.Body, "Deliver anyway")
		}
		if !asked {
			t.Error("no THREAT checkpoint comment naming the finding and offering to deliver anyway")
		}
		// The hash-chained record of why nothing was delivered is there
		// before anyone answers (issue 37, finding 10).
		var recorded bool
		for _, e := range ledgerLines(t, gh) {
			if e["kind"] != "checkpoint" || e["trigger"] != "THREAT" {
				continue
			}
			det, _ := e["detection"].(map[string]any)
			findings, _ := det["findings"].([]any)
			if det["verdict"] != "blocked" || len(findings) == 0 {
				t.Errorf("the THREAT checkpoint entry's detection = %v; want verdict blocked with the findings", e["detection"])
				continue
			}
			for _, f := range findings {
				f, _ := f.(map[string]any)
				recorded = recorded || f["rule"] == "npm-access-token" && f["path"] == ".npmrc"
			}
		}
		if !recorded {
			t.Errorf("no THREAT checkpoint entry records the finding: %v", ledgerLines(t, gh))
		}
		everywhere(res, gh)
	})

	t.Run("warn", func(t *testing.T) {
		t.Parallel()
		res, gh := detectionRun(t, "4102", leakyCoder(token), detectionConfig+"detection: { on-finding: warn }\n", "", nil)
		if res.code != 0 || res.outputs["status"] != "completed" || res.outputs["pull-request"] == "" {
			t.Fatalf("exit %d, outputs %v\n%s%s", res.code, res.outputs, res.stdout, res.stderr)
		}
		pulls := gh.Pulls(repo)
		if len(pulls) != 1 || !strings.Contains(pulls[0].Body, "**Threat detection** (coder): warn") ||
			!strings.Contains(pulls[0].Body, "secrets/npm-access-token in .npmrc line 1") {
			t.Fatalf("pull requests %+v: want one whose body names the finding", pulls)
		}
		if !strings.Contains(gh.Files(repo, pulls[0].Head)[".npmrc"], token) {
			t.Error("on-finding: warn delivers the change as it is")
		}
		var shown bool
		for _, c := range gh.Comments(repo, 7) {
			shown = shown || strings.Contains(c.Body, "npm-access-token")
		}
		if !shown {
			t.Error("the comment does not show the finding")
		}
		everywhere(res, gh)
	})
}

// A detector agent that answers nonsense is a finding, never a pass: the
// clean change waits at a THREAT checkpoint; one that answers clean lets
// it through.
func TestActionDetectorAgentFailsClosed(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, answer, status string
		pulls                int
	}{
		{"nonsense", "Looks fine to me, ship it!", "paused", 0},
		{"clean", llmtest.Answer(`{"prompt_injection": false, "secret_leak": false, "malicious_patch": false, "reasons": []}`, 5), "completed", 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			llm := llmtest.NewOpenAI(t)
			llm.SetDefault(llmtest.Reply{Text: tt.answer})
			cfg := strings.Replace(detectionConfig, "\nchanges:", "\n  reviewer: { provider: openai, model: gpt-4.1 }\nchanges:", 1) +
				"detection: { agent: reviewer }\npipelines:\n  main: { mode: select, agents: [coder] }\n"
			res, gh := detectionRun(t, map[string]string{"nonsense": "4201", "clean": "4202"}[tt.name], cleanCoder, cfg, "main", llm.Env())
			if res.code != 0 || res.outputs["status"] != tt.status || len(gh.Pulls(repo)) != tt.pulls {
				t.Fatalf("exit %d, outputs %v, %d pull requests\n%s%s", res.code, res.outputs, len(gh.Pulls(repo)), res.stdout, res.stderr)
			}
			if tt.status == "paused" {
				var named bool
				for _, c := range gh.Comments(repo, 7) {
					named = named || strings.Contains(c.Body, "agent/no-verdict")
				}
				if !named {
					t.Error("the checkpoint does not say the detector gave no verdict")
				}
			}
			if len(llm.Requests()) != 1 {
				t.Errorf("the detector was asked %d times", len(llm.Requests()))
			}
		})
	}
}
