package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/optr-dev/optr/internal/ledger"
	"github.com/optr-dev/optr/internal/ledger/witness"
)

// provenanceChild runs one provenance command in its own process, so its
// peak RSS is its own: "checkpoint" (HeadCheckpoint, as `optr ledger
// checkpoint` and the Action once per run), "verify" (VerifyTree, as `optr
// ledger verify --checkpoint`), "witness" (VerifyTree and the git walk, as
// `optr ledger verify --witness`), "prove" (as `optr ledger prove --seq`),
// "consistency" (as `optr ledger prove --from`).
func provenanceChild(ctx context.Context, what, path string, seq int64) error {
	switch what {
	case "checkpoint":
		_, err := ledger.HeadCheckpoint(path, ledger.LocalOrigin, "")
		return err
	case "verify":
		_, err := ledger.VerifyTree(path)
		return err
	case "witness":
		if _, err := ledger.VerifyTree(path); err != nil {
			return err
		}
		_, err := witness.Check(ctx, path)
		return err
	case "prove":
		p, _, err := ledger.Prove(path, ledger.LocalOrigin, seq)
		if err != nil {
			return err
		}
		_, err = p.Check("")
		return err
	case "consistency":
		p, _, err := ledger.ProveConsistency(path, ledger.LocalOrigin, seq)
		if err == nil && len(p) == 0 {
			err = fmt.Errorf("an empty consistency proof from size %d", seq)
		}
		return err
	}
	return fmt.Errorf("unknown provenance child %q", what)
}

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

// provenanceRows measures checkpoint, verify --witness and prove on an
// n-entry segmented ledger in a git repository against sha256sum of the
// same files (best of three each), with each one's peak RSS.
func provenanceRows(ctx context.Context, dir string, n int) ([]row, error) {
	self, err := os.Executable()
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
			d, rss, err := timeChild(ctx, name, args...)
			if err != nil {
				return 0, 0, err
			}
			ds = append(ds, d)
			peak = max(peak, rss)
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
	for _, what := range []string{"checkpoint", "verify", "witness"} {
		d, rss, err := best(self, "provenance-child", what, path, "0")
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
	d, rss, err := best(self, "provenance-child", "prove", path, strconv.Itoa(n/2))
	if err != nil {
		return nil, fmt.Errorf("prove: %w", err)
	}
	rows = append(rows, row{id: "P9", what: fmt.Sprintf("prove --seq %d on %d entries (and check the proof)", n/2, n),
		measured: fmt.Sprintf("%s, peak RSS %.1f MiB", d.Round(time.Millisecond), float64(rss)/(1<<20)),
		value:    d.Round(time.Millisecond).String(), goal: "< 1s", ok: d < time.Second})
	// Issue 25's P10 (the id P10 was taken by the output-RSS row).
	for _, from := range []int{1, n - 1} {
		d, rss, err := best(self, "provenance-child", "consistency", path, strconv.Itoa(from))
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

// hwmLine starts the line a provenance child prints last: its own peak
// RSS (ownPeakRSS).
const hwmLine = "optr-bench-vmhwm"

// timeChild is timeCmd for a command that may print a hwmLine: its own
// peak RSS then counts instead of what rusage says.
func timeChild(ctx context.Context, name string, args ...string) (time.Duration, int64, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stderr = os.Stderr
	var out bytes.Buffer
	cmd.Stdout = &out
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	rss := peakRSS(cmd.ProcessState)
	for _, l := range strings.Split(out.String(), "\n") {
		if v, ok := strings.CutPrefix(l, hwmLine+" "); ok {
			if n, perr := strconv.ParseInt(v, 10, 64); perr == nil && n > 0 {
				rss = n
			}
		}
	}
	return d, rss, err
}
