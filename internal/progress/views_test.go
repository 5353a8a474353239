package progress

import (
	"time"

	"github.com/optr-dev/optr/internal/status"
)

// Views used by the golden files and the property tests.

var (
	t0         = time.Date(2025, 3, 14, 9, 26, 53, 0, time.UTC)
	ledgerHash = "3f2a9c0d5e7b8a1c4d6e8f0a2b4c6d8e0f1a3b5c7d9e1f2a4b6c8d0e2f4a6b8c"
	commitSHA  = "9fceb02d0ae598e95dc970b74767f19372d61af8"
	resultPath = ".optr/workflows/issue-7/runs/1658821493-1/result.md"
)

func runningView() View {
	return View{
		RunID:    "1658821493-1",
		Workflow: "issue-7",
		Title:    "Fix the README | spelling, thanks @octocat",
		Status:   status.Running,
		Agents: []AgentLine{
			{Name: "codex", Provider: "openai", State: status.Succeeded, Elapsed: 2100 * time.Millisecond, Attempts: 1},
			{Name: "claude", Provider: "anthropic", State: status.Running, Elapsed: 4 * time.Second, Attempts: 1},
			{Name: "copilot", Provider: "copilot", State: status.Retrying, Elapsed: 3200 * time.Millisecond, Attempts: 2, Note: "429 Too Many Requests: retry after 4s"},
			{Name: "aider", Provider: "command", State: status.Queued},
		},
		Started: t0,
	}
}

func completedView() View {
	v := runningView()
	v.Status = status.Completed
	v.Agents = []AgentLine{
		{Name: "codex", Provider: "openai", State: status.Succeeded, Elapsed: 2100 * time.Millisecond, Attempts: 1},
		{Name: "claude", Provider: "anthropic", State: status.Succeeded, Elapsed: 7400 * time.Millisecond, Attempts: 1},
		{Name: "copilot", Provider: "copilot", State: status.Succeeded, Elapsed: 65 * time.Second, Attempts: 3},
		{Name: "aider", Provider: "command", State: status.Failed, Elapsed: 850 * time.Millisecond, Attempts: 2, Note: "exit status 1: <b>boom</b> | see #12"},
	}
	v.Table = []Row{
		{Agent: "codex", Admissible: true, Invariants: []string{"no-todo", "max-length"}, TTVms: 1800, ExecMS: 2100, Score: 87.5, Tokens: tokens(1234), CostUSD: ptr(0.0123)},
		{Agent: "claude", Admissible: true, Invariants: []string{"no-todo", "max-length"}, TTVms: 5000, ExecMS: 7400, Score: 80.25, Tokens: tokens(2048), CostUSD: ptr(0.0301)},
		{Agent: "copilot", Admissible: false, Invariants: []string{"no-todo"}, Failed: []string{"max-length: 5123 > 4000 characters", "json: found `TODO` | twice\nsecond line"}, ExecMS: 65000, Score: 31, Tokens: tokens(15000)},
		{Agent: "aider", Admissible: false, Failed: []string{"agent failed: exit status 1"}, ExecMS: 850},
	}
	v.Selected = "codex"
	v.Result = "Fixed the spelling of **commit** in README.md.\n\n```diff\n- comitt\n+ commit\n```\n\n<!-- optr:checkpoint=cp-1 --> </details> @octocat"
	v.ResultPath = resultPath
	v.LedgerHash = ledgerHash
	v.Commit = commitSHA
	v.CommitURL = "https://github.com/octo-org/octo-repo/commit/" + commitSHA
	v.ResultURL = BlobURL("https://github.com", "octo-org/octo-repo", commitSHA, resultPath)
	v.RunURL = ActionsRunURL("https://github.com", "octo-org/octo-repo", "1658821493")
	v.Finished = t0.Add(72 * time.Second)
	return v
}

func failedView() View {
	v := runningView()
	v.Status = status.Failed
	v.Agents = []AgentLine{
		{Name: "codex", Provider: "openai", State: status.Escalated, Elapsed: 300 * time.Millisecond, Attempts: 1, Note: "fatal unauthorized (HTTP 401)"},
		{Name: "claude", Provider: "anthropic", State: status.Failed, Elapsed: 12 * time.Second, Attempts: 3, Note: "transient timeout"},
	}
	v.Message = "every agent failed:\n- codex: 401 Unauthorized — check OPENAI_API_KEY\n- claude: timed out 3 times\n```\nraw provider error\n```"
	v.LedgerHash = ledgerHash
	v.Commit = commitSHA
	v.CommitURL = "https://github.com/octo-org/octo-repo/commit/" + commitSHA
	v.Finished = t0.Add(13 * time.Second)
	return v
}

func pausedView() View {
	v := completedView()
	v.Status = status.Paused
	for i := range v.Table {
		v.Table[i].Admissible = false
		v.Table[i].Failed = append(v.Table[i].Failed, "tests-pass: 2 tests failed")
	}
	v.Selected, v.Result, v.ResultPath = "", "", ""
	v.CheckpointID = "cp-1658821493-1-no-admissible"
	v.Message = "No result passed every hard constraint."
	v.Commit, v.CommitURL = "", ""
	return v
}

func ptr(v float64) *float64 { return &v }

func tokens(n int64) *int64 { return &n }
