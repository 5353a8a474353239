package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"github.com/optr-dev/optr/internal/ledger"
)

// synthetic writes an n-entry ledger of realistic run entries.
func synthetic(dir string, n int) (string, error) {
	path := filepath.Join(dir, "big.jsonl")
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if _, err := ledger.WriteSynthetic(w, n); err != nil {
		f.Close()
		return "", err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return "", err
	}
	return path, f.Close()
}

// verifyVsSHA times `sha256sum` and `optr-bench verify-child` (the ledger
// verifier in its own process) on the same file, best of three each, and
// reads the verifier's peak RSS from the kernel.
func verifyVsSHA(ctx context.Context, path string, n int) ([]row, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	// Warm the page cache so neither side pays for the disk.
	if _, _, err := timeCmd(ctx, "sha256sum", path); err != nil {
		return nil, fmt.Errorf("sha256sum: %w", err)
	}
	var shaT, verT []time.Duration
	var peak int64
	for range 3 {
		d, _, err := timeCmd(ctx, "sha256sum", path)
		if err != nil {
			return nil, err
		}
		shaT = append(shaT, d)
		d, rss, err := timeCmd(ctx, self, "verify-child", path)
		if err != nil {
			return nil, fmt.Errorf("verify: %w", err)
		}
		verT = append(verT, d)
		peak = max(peak, rss)
	}
	sha, ver := slices.Min(shaT), slices.Min(verT)
	st, _ := os.Stat(path)
	ratio := ver.Seconds() / sha.Seconds()
	mib := float64(peak) / (1 << 20)
	return []row{
		{id: "P2", what: fmt.Sprintf("verify %d entries (%.0f MiB) / sha256sum", n, float64(st.Size())/(1<<20)),
			measured: fmt.Sprintf("verify %s, sha256sum %s", ver.Round(time.Millisecond), sha.Round(time.Millisecond)),
			value:    fmt.Sprintf("%.2f", ratio), goal: "≤ 2.0", ok: ratio <= 2.0},
		{id: "P2", what: "verify peak RSS", measured: fmt.Sprintf("%.1f MiB", mib),
			value: fmt.Sprintf("%.1f MiB", mib), goal: "≤ 64 MiB", ok: mib <= 64},
	}, nil
}

func timeCmd(ctx context.Context, name string, args ...string) (time.Duration, int64, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stderr = os.Stderr
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	return d, peakRSS(cmd.ProcessState), err
}

// appendRatio times appends on the big ledger and on a 10-entry one.
func appendRatio(dir, big string, n, count int) (row, error) {
	small := filepath.Join(dir, "small.jsonl")
	f, err := os.Create(small)
	if err != nil {
		return row{}, err
	}
	if _, err := ledger.WriteSynthetic(f, 10); err != nil {
		f.Close()
		return row{}, err
	}
	f.Close()
	tb, err := timeAppends(big, count)
	if err != nil {
		return row{}, err
	}
	ts, err := timeAppends(small, count)
	if err != nil {
		return row{}, err
	}
	ratio := tb.Seconds() / ts.Seconds()
	return row{id: "P3", what: fmt.Sprintf("append on %d entries / on 10 (median of %d)", n, count),
		measured: fmt.Sprintf("%s vs %s", tb.Round(time.Microsecond), ts.Round(time.Microsecond)),
		value:    fmt.Sprintf("%.2f", ratio), goal: "≤ 1.5", ok: ratio <= 1.5}, nil
}

func timeAppends(path string, count int) (time.Duration, error) {
	var ds []time.Duration
	for i := range count {
		d := ledger.Draft{Kind: "run", Run: fmt.Sprintf("bench-%d", i), Workflow: "bench", Time: time.Now().UTC(),
			Fields: map[string]any{"selected": "a", "results": []any{}}}
		start := time.Now()
		if _, err := ledger.Append(path, d); err != nil {
			return 0, err
		}
		ds = append(ds, time.Since(start))
	}
	slices.Sort(ds)
	return ds[len(ds)/2], nil
}
