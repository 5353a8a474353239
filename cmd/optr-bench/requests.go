package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/optr-dev/optr/internal/action/actiontest"
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
	var rows []row
	var runErr error
	withTB(func(tb testing.TB) {
		gh := githubtest.NewServer(tb)
		rows, runErr = issueRun(ctx, optr, gh, actiontest.New(tb, gh, "11"), span)
	})
	if rows == nil && runErr == nil { // the harness stopped with tb.Fatal
		return nil, errors.New("P11: the fake GitHub or the runner's files could not be set up")
	}
	return rows, runErr
}

func issueRun(ctx context.Context, optr string, gh *githubtest.Server, r *actiontest.Runner, span time.Duration) ([]row, error) {
	const agents = 4
	gh.AddIssue(githubtest.DefaultRepo, 7, "Explain the ledger", "Please explain.", "maintainer")
	gh.SetPermission(githubtest.DefaultRepo, "maintainer", "write")
	var cfg strings.Builder
	cfg.WriteString("agents:\n")
	for i := range agents {
		at := span * time.Duration(i+1) / agents
		fmt.Fprintf(&cfg, "  a%d: { provider: command, run: [sh, -c, %q] }\n", i, fmt.Sprintf("cat >/dev/null; sleep %.3f; echo answer %d", at.Seconds(), i))
	}
	r.File(".github/optr.yml", cfg.String())
	r.Event("issues", "issues.labeled.json", actiontest.Labeled(7, "optr", "maintainer"))
	env := cleanEnv(r.Env)
	gh.ResetRequests()
	u, err := measure(ctx, r.Workspace, env, optr, "action")
	if err != nil {
		return nil, err
	}
	if out := r.Outputs(); out["status"] != "completed" {
		return nil, fmt.Errorf("the run did not complete; its outputs: %v", out)
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
