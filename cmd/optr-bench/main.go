// Command optr-bench measures optr's performance targets and prints a table:
//
//	P1 fan-out efficiency: wall time / L for K = 4, 16, 64 command agents that
//	   each take L (goal ≤ 1.05; run one after another it would be K);
//	P2 ledger verify time / sha256sum time on the same 1M-entry ledger
//	   (goal ≤ 2.0), and verify's peak RSS (goal ≤ 64 MiB);
//	P3 append time on a 1M-entry ledger / on a 10-entry ledger (goal ≤ 1.5);
//	P4 worktree set-up and patch capture for 8 coding agents on a 10,000-file
//	   repository, as a share of the wall time of agents that run 10 s
//	   (goal ≤ 10%).
//
// Run it from the repository root: go run ./cmd/optr-bench
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/optr-dev/optr/internal/ledger"
)

func main() {
	// The verify child: a separate process so its peak RSS is its own.
	if len(os.Args) == 3 && os.Args[1] == "verify-child" {
		if _, err := ledger.VerifyFile(os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "optr-bench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	agentTime := flag.Duration("agent-time", time.Second, "L: how long each agent takes in P1")
	entries := flag.Int("entries", 1_000_000, "ledger entries for P2 and P3")
	appends := flag.Int("appends", 25, "appends timed per ledger in P3 (the median counts)")
	only := flag.String("only", "", "run only P1, P2, P3 or P4")
	flag.Parse()

	dir, err := os.MkdirTemp("", "optr-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	var rows []row
	if *only == "" || *only == "P1" {
		r, err := fanOut(ctx, dir, *agentTime, []int{4, 16, 64})
		if err != nil {
			return fmt.Errorf("P1: %w", err)
		}
		rows = append(rows, r...)
	}
	if *only == "" || *only == "P2" || *only == "P3" {
		big, err := synthetic(dir, *entries)
		if err != nil {
			return err
		}
		if *only != "P3" {
			r, err := verifyVsSHA(ctx, big, *entries)
			if err != nil {
				return fmt.Errorf("P2: %w", err)
			}
			rows = append(rows, r...)
		}
		if *only != "P2" {
			r, err := appendRatio(dir, big, *entries, *appends)
			if err != nil {
				return fmt.Errorf("P3: %w", err)
			}
			rows = append(rows, r)
		}
	}
	if *only == "" || *only == "P4" {
		r, err := changesOverhead(ctx, dir, *changesFiles, *changesAgents, *changesAgentTime)
		if err != nil {
			return fmt.Errorf("P4: %w", err)
		}
		rows = append(rows, r...)
	}
	printTable(os.Stdout, rows)
	return nil
}
