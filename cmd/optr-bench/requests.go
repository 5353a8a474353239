package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/optr-dev/optr/internal/github/githubtest"
)

// issueRequests is P11: the GitHub requests of one labelled-issue run,
// `optr action` as the runner starts it, against the githubtest fake, with
// four command agents that finish evenly over span (goal ≤ 12: the
// requests must not grow with the run's length).
func issueRequests(ctx context.Context, dir string, span time.Duration) ([]row, error) {
	optr, err := buildOptr(ctx, dir)
	if err != nil {
		return nil, err
	}
	payload, err := os.ReadFile(filepath.Join("testdata", "webhooks", "issues.labeled.json"))
	if err != nil {
		return nil, fmt.Errorf("read the webhook fixture (run optr-bench from the repository root): %w", err)
	}
	var rows []row
	var runErr error
	withTB(func(tb testing.TB) {
		gh := githubtest.NewServer(tb)
		rows, runErr = issueRun(ctx, dir, optr, gh, payload, span)
	})
	return rows, runErr
}

func issueRun(ctx context.Context, dir, optr string, gh *githubtest.Server, payload []byte, span time.Duration) ([]row, error) {
	const agents = 4
	gh.AddIssue(githubtest.DefaultRepo, 7, "Explain the ledger", "Please explain.", "maintainer")
	gh.SetPermission(githubtest.DefaultRepo, "maintainer", "write")
	job, err := os.MkdirTemp(dir, "p11-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(job)
	ws := filepath.Join(job, "workspace")
	var cfg strings.Builder
	cfg.WriteString("agents:\n")
	for i := range agents {
		at := span * time.Duration(i+1) / agents
		fmt.Fprintf(&cfg, "  a%d: { provider: command, run: [sh, -c, %q] }\n", i, fmt.Sprintf("cat >/dev/null; sleep %.3f; echo answer %d", at.Seconds(), i))
	}
	if err := os.MkdirAll(filepath.Join(ws, ".github"), 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(ws, ".github", "optr.yml"), []byte(cfg.String()), 0o644); err != nil {
		return nil, err
	}
	var p map[string]any
	if err := json.Unmarshal(payload, &p); err != nil {
		return nil, err
	}
	p["label"].(map[string]any)["name"] = "optr"
	issue := p["issue"].(map[string]any)
	issue["number"] = 7
	issue["labels"] = []any{map[string]any{"name": "optr"}}
	p["sender"].(map[string]any)["login"] = "maintainer"
	p["sender"].(map[string]any)["type"] = "User"
	event, _ := json.Marshal(p)
	if err := os.WriteFile(filepath.Join(job, "event.json"), event, 0o644); err != nil {
		return nil, err
	}
	env := cleanEnv(map[string]string{
		"GITHUB_ACTIONS": "true", "GITHUB_API_URL": gh.URL(), "GITHUB_SERVER_URL": "https://github.com",
		"GITHUB_REPOSITORY": githubtest.DefaultRepo, "GITHUB_WORKSPACE": ws, "GITHUB_RUN_ID": "11", "GITHUB_RUN_ATTEMPT": "1",
		"GITHUB_SHA": "ffac537e6cbbf934b08745a378932722df287a53", "GITHUB_OUTPUT": filepath.Join(job, "output"),
		"GITHUB_STEP_SUMMARY": filepath.Join(job, "summary.md"), "GITHUB_EVENT_PATH": filepath.Join(job, "event.json"),
		"GITHUB_EVENT_NAME": "issues", "INPUT_GITHUB-TOKEN": "ghs_bench", "INPUT_CONFIG": ".github/optr.yml",
		"INPUT_COMMAND": "auto", "INPUT_TRIGGER-LABEL": "optr", "INPUT_DATALAKE": ".optr", "INPUT_COMMIT": "true",
		"HOME": job,
	})
	gh.ResetRequests()
	u, err := measure(ctx, ws, env, optr, "action")
	if err != nil {
		return nil, err
	}
	out, _ := os.ReadFile(filepath.Join(job, "output"))
	if !strings.Contains(string(out), "completed") {
		return nil, fmt.Errorf("the run did not complete; GITHUB_OUTPUT:\n%s", out)
	}
	counts := gh.Counts()
	total := 0
	for _, n := range counts {
		total += n
	}
	var by []string
	for _, op := range slices.Sorted(maps.Keys(counts)) {
		by = append(by, fmt.Sprintf("%d× %s", counts[op], op))
	}
	fmt.Fprintf(os.Stderr, "P11 requests by operation:\n  %s\n", strings.Join(by, "\n  "))
	return []row{{
		id: "P11", what: fmt.Sprintf("GitHub requests, labelled issue, %d agents finishing over %s", agents, span),
		measured: fmt.Sprintf("wall %s; edits of the progress comment %d", u.wall.Round(time.Second), counts["PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}"]),
		value:    fmt.Sprint(total), goal: "≤ 12", ok: total <= 12,
	}}, nil
}
