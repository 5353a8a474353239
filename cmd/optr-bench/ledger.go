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

// verifyRows times `optr ledger verify --ledger path`, run as the optr
// binary the other benchmarks measure (buildRelease, or -optr), against
// the two floors on the same bytes, `sha256sum` and `openssl dgst -sha256`,
// interleaved and best of three each, and reads the verifier's peak RSS
// and CPU time from the kernel: the binary's own, start-up included.
// It does so for the flat n-entry file flat and for the same entries in
// the layout the Action keeps (8 MiB sealed segments in ledger.d/ with
// their .merkle tree files, and the active segment), made in dir: the
// goal is the segmented one's.
func verifyRows(ctx context.Context, dir, flat string, n int) ([]row, error) {
	seg, err := segmentedLedger(filepath.Join(dir, "segmented"), n)
	if err != nil {
		return nil, fmt.Errorf("segmented ledger: %w", err)
	}
	segFiles, err := verifiedFiles(seg)
	if err != nil {
		return nil, err
	}
	optr, err := buildRelease(ctx, dir)
	if err != nil {
		return nil, err
	}
	var rows []row
	for _, l := range []struct {
		name, path string
		files      []string
		goal       bool
	}{
		{"segmented", seg, segFiles, true},
		{"flat file", flat, []string{flat}, false},
	} {
		r, err := verifyVsFloors(ctx, optr, l.name, l.path, l.files, n, l.goal)
		if err != nil {
			return nil, err
		}
		rows = append(rows, r...)
	}
	return rows, nil
}

// verifiedFiles lists every file verify reads for the ledger at path: its
// segments and their tree files, and the active segment.
func verifiedFiles(path string) ([]string, error) {
	files, _, err := ledgerFiles(path)
	if err != nil {
		return nil, err
	}
	segs, err := ledger.Segments(path)
	if err != nil {
		return nil, err
	}
	for _, s := range segs {
		files = append(files, s.TreePath())
	}
	return files, nil
}

// verifyVsFloors measures one layout: optr's verify of path against
// sha256sum and openssl over files (the same bytes).
func verifyVsFloors(ctx context.Context, optr, name, path string, files []string, n int, goal bool) ([]row, error) {
	var size int64
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			return nil, err
		}
		size += st.Size()
	}
	sha256sum := append([]string{"sha256sum"}, files...)
	openssl := append([]string{"openssl", "dgst", "-sha256"}, files...)
	verify := []string{optr, "ledger", "verify", "--ledger", path}
	// Each through rss-child (timeSmall): the RSS a child started from
	// this process reports is this process's, not the child's.
	run := func(argv []string) (usage, error) {
		u, err := timeSmall(ctx, argv[0], argv[1:]...)
		if err != nil {
			return u, fmt.Errorf("%s: %w", filepath.Base(argv[0]), err)
		}
		return u, nil
	}
	// Warm the page cache so that no side pays for the disk.
	if _, err := run(sha256sum); err != nil {
		return nil, err
	}
	var shaT, sslT, verT, sslCPU, verCPU []time.Duration
	var peak int64
	for range 3 {
		u, err := run(sha256sum)
		if err != nil {
			return nil, err
		}
		shaT = append(shaT, u.wall)
		if u, err = run(openssl); err != nil {
			return nil, err
		}
		sslT, sslCPU = append(sslT, u.wall), append(sslCPU, u.cpu)
		if u, err = run(verify); err != nil {
			return nil, err
		}
		verT, verCPU = append(verT, u.wall), append(verCPU, u.cpu)
		peak = max(peak, u.rss)
	}
	sha, ssl, ver := slices.Min(shaT), slices.Min(sslT), slices.Min(verT)
	mib := float64(peak) / (1 << 20)
	what := fmt.Sprintf("verify %d entries, %s (%d files, %.0f MiB)", n, name, len(files), float64(size)/(1<<20))
	measured := fmt.Sprintf("verify %s, openssl %s, sha256sum %s", ver.Round(time.Millisecond), ssl.Round(time.Millisecond), sha.Round(time.Millisecond))
	vsSSL, vsSHA := ver.Seconds()/ssl.Seconds(), ver.Seconds()/sha.Seconds()
	// CPU beside wall: on a loaded machine verify's second core is not
	// always there, and the ratio of CPU says what verify's work costs.
	cpuV, cpuS := slices.Min(verCPU), slices.Min(sslCPU)
	rows := []row{
		{id: "P2", what: what + " / openssl dgst -sha256", measured: measured, value: fmt.Sprintf("%.2f", vsSSL)},
		{id: "P2", what: what + " / sha256sum", measured: measured, value: fmt.Sprintf("%.2f", vsSHA)},
		{id: "P2", what: "verify peak RSS, " + name, measured: fmt.Sprintf("%.1f MiB", mib), value: fmt.Sprintf("%.1f MiB", mib)},
		{id: "P2", what: "verify CPU (user+sys) / openssl's, " + name, measured: fmt.Sprintf("verify %s, openssl %s", cpuV.Round(time.Millisecond), cpuS.Round(time.Millisecond)), value: fmt.Sprintf("%.2f", cpuV.Seconds()/cpuS.Seconds())},
	}
	if goal {
		rows[0].goal, rows[0].ok = "≤ 1.5", vsSSL <= 1.5
		rows[2].goal, rows[2].ok = "≤ 64 MiB", mib <= 64
	}
	return rows, nil
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
