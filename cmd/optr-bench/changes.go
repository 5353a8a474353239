package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/optr-dev/optr/internal/worktree"
)

// P4 flags.
var (
	changesFiles     = flag.Int("changes-files", 10_000, "P4: files in the repository")
	changesAgents    = flag.Int("changes-agents", 8, "P4: coding agents, each in its own worktree")
	changesAgentTime = flag.Duration("changes-agent-time", 10*time.Second, "P4: how long each agent is taken to run (not slept: the share is computed)")
)

// changesOverhead measures P4: what code changes add to a run's wall time
// (DESIGN §4.12). On a repository of n files it times, for k agents at
// once, what the driver does around them: Start (prune + lock), one
// worktree per agent (git worktree add, in parallel), then, after each
// agent edited three files, Capture of every change (in parallel) and
// Close. The agents' own run time is not slept: it is added as the given
// agentTime, since the agents run at once and their wall time is the
// slowest one's. The share is overhead / (agentTime + overhead).
//
// Two rows: P4 with the wall time measured here, and P4cpu with the CPU
// time (user + system, git processes included) spread over the machine's
// cores: the wall time an otherwise idle runner with those cores would
// see. On a shared machine the first is inflated by everyone else's load;
// the second is not.
func changesOverhead(ctx context.Context, dir string, n, k int, agentTime time.Duration) ([]row, error) {
	repo := filepath.Join(dir, "changes-repo")
	if err := makeRepo(ctx, repo, n); err != nil {
		return nil, err
	}
	var best changesTimes
	for i := range 3 {
		t, err := changesRound(ctx, repo, filepath.Join(dir, "wt"), fmt.Sprintf("bench-%d", i), k)
		if err != nil {
			return nil, err
		}
		if i == 0 || t.setup+t.capture < best.setup+best.capture {
			best = t
		}
	}
	what := fmt.Sprintf("changes: %d worktrees + captures, %d-file repo, agents of %s", k, n, agentTime)
	wall := best.setup + best.capture
	cores := runtime.NumCPU()
	cpu := best.cpu / time.Duration(cores)
	share := func(d time.Duration) float64 { return float64(d) / float64(agentTime+d) }
	return []row{{
		id: "P4", what: what + " (wall)",
		measured: fmt.Sprintf("set-up %s + capture/cleanup %s", best.setup.Round(time.Millisecond), best.capture.Round(time.Millisecond)),
		value:    fmt.Sprintf("%.1f%%", 100*share(wall)), goal: "≤ 10%", ok: share(wall) <= 0.10,
	}, {
		id: "P4cpu", what: what + fmt.Sprintf(" (CPU / %d cores)", cores),
		measured: fmt.Sprintf("%s CPU (set-up %s) / %d", best.cpu.Round(time.Millisecond), best.setupCPU.Round(time.Millisecond), cores),
		value:    fmt.Sprintf("%.1f%%", 100*share(cpu)), goal: "≤ 10%", ok: share(cpu) <= 0.10,
	}}, nil
}

// changesTimes is one round of P4: wall times of the set-up and of the
// capture and cleanup, and the CPU time of both and of the set-up alone.
type changesTimes struct {
	setup, capture, cpu, setupCPU time.Duration
}

// changesRound runs one measured round and returns the set-up time
// (Start and every Add) and the time to capture every change and Close.
func changesRound(ctx context.Context, repo, root, runID string, k int) (changesTimes, error) {
	var ct changesTimes
	t0, c0 := time.Now(), cpuTime()
	run, err := worktree.Start(ctx, worktree.Options{Workspace: repo, Root: root, RunID: runID})
	if err != nil {
		return ct, err
	}
	defer run.Close(ctx)
	trees := make([]*worktree.Tree, k)
	var g errgroup.Group
	for i := range trees {
		g.Go(func() (err error) {
			trees[i], err = run.Add(ctx, fmt.Sprintf("agent-%d", i))
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return ct, err
	}
	ct.setup, ct.setupCPU = time.Since(t0), cpuTime()-c0

	// The agents' work, not timed: each edits a file, adds one, deletes one.
	for i, t := range trees {
		edit := filepath.Join(t.Dir(), "d000", "f00000.txt")
		if err := os.WriteFile(edit, []byte(fmt.Sprintf("changed by agent %d\n", i)), 0o644); err != nil {
			return ct, err
		}
		if err := os.WriteFile(filepath.Join(t.Dir(), fmt.Sprintf("new-%d.txt", i)), []byte("new\n"), 0o644); err != nil {
			return ct, err
		}
		if err := os.Remove(filepath.Join(t.Dir(), "d001", "f00100.txt")); err != nil {
			return ct, err
		}
	}

	t1, c1 := time.Now(), cpuTime()
	for _, t := range trees {
		g.Go(func() error {
			ch, err := t.Capture(ctx, worktree.Limits{})
			if err == nil && (ch.Refused != "" || len(ch.Files) != 3) {
				err = fmt.Errorf("capture of %s: refused %q, %d files", t.Agent(), ch.Refused, len(ch.Files))
			}
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return ct, err
	}
	if err := run.Close(ctx); err != nil {
		return ct, err
	}
	ct.capture, ct.cpu = time.Since(t1), ct.setupCPU+cpuTime()-c1
	return ct, nil
}

// makeRepo commits n small text files, 100 per directory.
func makeRepo(ctx context.Context, repo string, n int) error {
	for i := range n {
		d := filepath.Join(repo, fmt.Sprintf("d%03d", i/100))
		if i%100 == 0 {
			if err := os.MkdirAll(d, 0o755); err != nil {
				return err
			}
		}
		body := strings.Repeat(fmt.Sprintf("line of file %d\n", i), 20)
		if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("f%05d.txt", i)), []byte(body), 0o644); err != nil {
			return err
		}
	}
	cmd := exec.CommandContext(ctx, "sh", "-ec", "git init -q -b main . && git add -A && git commit -qm base")
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@example.com",
		"GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@example.com")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("make the %d-file repository: %v: %s", n, err, out)
	}
	return nil
}
