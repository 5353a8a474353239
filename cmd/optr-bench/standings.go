package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"github.com/optr-dev/optr/internal/budget"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/ledger"
)

// standingsRows measures P13 on an n-entry segmented ledger whose last
// recent entries were recorded over the 30 days before now, the rest in
// the year before, every run opening a pull request whose outcome is the
// next entry (architecture §4.19): `optr ledger stats --since 30d` as a whole
// process, verifying what it reads (its time and peak RSS), and the budget
// check a run makes before it starts with a day's and a month's budget —
// at today's date, and over the 30 days a month window spans at its end.
func standingsRows(ctx context.Context, dir string, n, recent, runs int) ([]row, error) {
	bin, err := buildOptr(ctx, dir)
	if err != nil {
		return nil, err
	}
	now := time.Now().UTC()
	windowStart := now.Add(-30 * 24 * time.Hour)
	older := n - recent
	if older < 0 || recent < 1 {
		return nil, fmt.Errorf("-recent %d: want between 1 and -entries (%d)", recent, n)
	}
	// Evenly spread: the older entries over the year before the window,
	// the recent ones over the window (a minute in from either end).
	oldStep := 365 * 24 * time.Hour / time.Duration(max(older, 1))
	newStep := (30*24*time.Hour - 2*time.Minute) / time.Duration(recent)
	at := func(i int) time.Time {
		if i < older {
			return windowStart.Add(-365 * 24 * time.Hour).Add(time.Duration(i) * oldStep)
		}
		return windowStart.Add(time.Minute).Add(time.Duration(i-older) * newStep)
	}
	start := time.Now()
	path, err := segmentedLedgerWith(filepath.Join(dir, "standings"), n, ledger.SyntheticOptions{Spend: true, Outcomes: true, Time: at})
	if err != nil {
		return nil, err
	}
	files, size, err := ledgerFiles(path)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "optr-bench: %d-entry ledger (%d in the last 30 days) written in %s\n", n, recent, time.Since(start).Round(time.Second))

	// The stats must be of the recent entries, their runs and outcomes, and
	// verified: a check that the figures are the window's, not a measure of
	// reading nothing.
	out, err := exec.CommandContext(ctx, bin, "ledger", "stats", "--ledger", path, "--since", "30d", "--json").Output()
	if err != nil {
		return nil, fmt.Errorf("optr ledger stats: %w", err)
	}
	var v struct {
		Runs, Outcomes int
		Verified       bool
	}
	if err := json.Unmarshal(out, &v); err != nil || v.Runs < recent/2-1 || v.Runs > recent/2+1 || v.Outcomes < recent/2-1 || !v.Verified {
		return nil, fmt.Errorf("optr ledger stats --json counted %d runs and %d outcomes in the last 30 days (verified %v), want %d of each (%v)", v.Runs, v.Outcomes, v.Verified, recent/2, err)
	}
	var walls, cpus []time.Duration
	var peak int64
	for range runs {
		u, err := timeSmall(ctx, bin, "ledger", "stats", "--ledger", path, "--since", "30d")
		if err != nil {
			return nil, err
		}
		walls, cpus, peak = append(walls, u.wall), append(cpus, u.cpu), max(peak, u.rss)
	}
	stats := spreadOf(seconds(walls))
	mib := float64(peak) / (1 << 20)

	b := config.Budget{MaxUSDPerDay: 1e9, MaxUSDPerMonth: 1e9, MaxTokensPerMonth: 1 << 60}
	today, todayCPU, err := timeIt(runs, func() error { _, err := budget.Check(ctx, ledger.Local(path), b, now, ""); return err })
	if err != nil {
		return nil, fmt.Errorf("budget check: %w", err)
	}
	month, monthCPU, err := timeIt(runs, func() error { _, err := budget.Recorded(ctx, ledger.Local(path), windowStart); return err })
	if err != nil {
		return nil, fmt.Errorf("budget check over 30 days: %w", err)
	}
	worst := max(today.med, month.med)
	what := fmt.Sprintf("on %d entries (%.0f MiB, %d files), %d in the last 30 days (%d pull requests and their outcomes)", n, float64(size)/(1<<20), len(files), recent, v.Runs)
	return []row{
		{id: "P13", what: "optr ledger stats --since 30d " + what, measured: "wall " + stats.format("%.3fs") + ", CPU " + spreadOf(seconds(cpus)).format("%.3fs"),
			value: fmt.Sprintf("%.3fs", stats.med), goal: "≤ 0.5 s", ok: stats.med <= 0.5},
		{id: "P13", what: "ledger stats peak RSS", measured: fmt.Sprintf("%.1f MiB", mib), value: fmt.Sprintf("%.1f MiB", mib), goal: "≤ 64 MiB", ok: mib <= 64},
		{id: "P13", what: "budget check before a run (day and month budgets) " + what,
			measured: fmt.Sprintf("this month %s (CPU %.4fs), a 30-day month %s (CPU %.4fs)", today.format("%.4fs"), todayCPU.med, month.format("%.4fs"), monthCPU.med),
			value:    fmt.Sprintf("%.1f ms", worst*1000), goal: "≤ 50 ms", ok: worst <= 0.050},
	}, nil
}

// timeIt runs fn n times (after one run to warm the page cache) and
// returns the spread of its wall and CPU times in seconds.
func timeIt(n int, fn func() error) (wall, cpu spread, err error) {
	if err := fn(); err != nil {
		return spread{}, spread{}, err
	}
	var walls, cpus []time.Duration
	for range n {
		start, startCPU := time.Now(), cpuTime()
		if err := fn(); err != nil {
			return spread{}, spread{}, err
		}
		walls, cpus = append(walls, time.Since(start)), append(cpus, cpuTime()-startCPU)
	}
	return spreadOf(seconds(walls)), spreadOf(seconds(cpus)), nil
}

func seconds(ds []time.Duration) []float64 {
	out := make([]float64, len(ds))
	for i, d := range ds {
		out[i] = d.Seconds()
	}
	slices.Sort(out)
	return out
}
