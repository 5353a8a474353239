package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/optr-dev/optr/internal/ledger"
)

// witnessRepo makes a git clone-like repository holding an n-entry
// segmented ledger, committed once and then grown by a few commits of one
// entry each, every commit with its Optr-Ledger trailers.
func witnessRepo(ctx context.Context, dir string, n, commits int) (string, error) {
	git := func(args ...string) error {
		cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir, "-c", "core.compression=1", "-c", "core.looseCompression=1"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %v: %w: %s", args, err, out)
		}
		return nil
	}
	if err := git("init", "-q", "-b", "optr-ledger"); err != nil {
		return "", err
	}
	for _, kv := range [][2]string{{"user.name", "optr"}, {"user.email", "optr@example.com"}, {"commit.gpgsign", "false"}} {
		if err := git("config", kv[0], kv[1]); err != nil {
			return "", err
		}
	}
	path, err := segmentedLedger(filepath.Join(dir, ".optr"), n)
	if err != nil {
		return "", err
	}
	commit := func(msg string) error {
		head, err := ledger.TailHead(path)
		if err != nil {
			return err
		}
		if err := git("add", "-A", "."); err != nil {
			return err
		}
		return git("commit", "-q", "-m", ledger.WithTrailers(msg, head))
	}
	if err := commit("optr: the ledger so far"); err != nil {
		return "", err
	}
	for i := range commits {
		d := ledger.Draft{Kind: ledger.KindRun, Run: fmt.Sprintf("w-%d", i), Workflow: "bench", Time: time.Now().UTC(), Fields: map[string]any{"selected": "a"}}
		if _, err := ledger.Append(path, d); err != nil {
			return "", err
		}
		if err := commit(fmt.Sprintf("optr: record run w-%d", i)); err != nil {
			return "", err
		}
	}
	return path, nil
}

// provenanceRows measures the optr binary's ledger checkpoint, verify,
// verify --witness and prove (--seq and --from) on an n-entry segmented
// ledger in a git repository against sha256sum of the same files (best of
// three each), with each one's peak RSS: the commands as people run them,
// the process included.
func provenanceRows(ctx context.Context, dir string, n int) ([]row, error) {
	bin, err := buildRelease(ctx, dir)
	if err != nil {
		return nil, err
	}
	repoDir := filepath.Join(dir, "witness")
	if err := os.MkdirAll(repoDir, 0o755); err != nil {
		return nil, err
	}
	start := time.Now()
	path, err := witnessRepo(ctx, repoDir, n, 5)
	if err != nil {
		return nil, fmt.Errorf("build the repository: %w", err)
	}
	fmt.Fprintf(os.Stderr, "optr-bench: %d-entry ledger committed in %s\n", n, time.Since(start).Round(time.Second))
	files, size, err := ledgerFiles(path)
	if err != nil {
		return nil, err
	}
	best := func(name string, args ...string) (time.Duration, int64, error) {
		var ds []time.Duration
		var peak int64
		for range 3 {
			u, err := timeSmall(ctx, name, args...)
			if err != nil {
				return 0, 0, err
			}
			ds = append(ds, u.wall)
			peak = max(peak, u.rss)
		}
		return slices.Min(ds), peak, nil
	}
	if _, _, err := timeCmd(ctx, "sha256sum", files...); err != nil { // warm the cache
		return nil, err
	}
	sha, _, err := best("sha256sum", files...)
	if err != nil {
		return nil, err
	}
	var rows []row
	for _, c := range []struct{ what, cmd, flag string }{{"checkpoint", "checkpoint", ""}, {"verify", "verify", ""}, {"witness", "verify", "--witness"}} {
		what, args := c.what, []string{"ledger", c.cmd, "--ledger", path}
		if c.flag != "" {
			args = append(args, c.flag)
		}
		d, rss, err := best(bin, args...)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		ratio := d.Seconds() / sha.Seconds()
		mib := float64(rss) / (1 << 20)
		rows = append(rows,
			row{id: "P8", what: fmt.Sprintf("%s on %d entries (%.0f MiB, %d segments) / sha256sum", what, n, float64(size)/(1<<20), len(files)),
				measured: fmt.Sprintf("%s %s, sha256sum %s", what, d.Round(time.Millisecond), sha.Round(time.Millisecond)),
				value:    fmt.Sprintf("%.2f", ratio), goal: "≤ 3.0", ok: ratio <= 3},
			row{id: "P8", what: what + " peak RSS", measured: fmt.Sprintf("%.1f MiB", mib), value: fmt.Sprintf("%.1f MiB", mib), goal: "≤ 64 MiB", ok: mib <= 64})
	}
	d, rss, err := best(bin, "ledger", "prove", "--ledger", path, "--seq", strconv.Itoa(n/2))
	if err != nil {
		return nil, fmt.Errorf("prove: %w", err)
	}
	rows = append(rows, row{id: "P9", what: fmt.Sprintf("prove --seq %d on %d entries (the process)", n/2, n),
		measured: fmt.Sprintf("%s, peak RSS %.1f MiB", d.Round(time.Millisecond), float64(rss)/(1<<20)),
		value:    d.Round(time.Millisecond).String(), goal: "< 1s", ok: d < time.Second})
	// Issue 25's P10 (the id P10 was taken by the output-RSS row).
	for _, from := range []int{1, n - 1} {
		d, rss, err := best(bin, "ledger", "prove", "--ledger", path, "--from", strconv.Itoa(from))
		if err != nil {
			return nil, fmt.Errorf("prove --from %d: %w", from, err)
		}
		mib := float64(rss) / (1 << 20)
		rows = append(rows,
			row{id: "P14", what: fmt.Sprintf("prove --from %d on %d entries (the process)", from, n),
				measured: d.Round(time.Millisecond).String(), value: d.Round(time.Millisecond).String(), goal: "≤ 150ms", ok: d <= 150*time.Millisecond},
			row{id: "P14", what: fmt.Sprintf("prove --from %d peak RSS", from),
				measured: fmt.Sprintf("%.1f MiB", mib), value: fmt.Sprintf("%.1f MiB", mib), goal: "≤ 64 MiB", ok: mib <= 64})
	}
	return rows, nil
}
