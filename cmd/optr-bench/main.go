// Command optr-bench measures optr's performance targets and prints a table:
//
//	P1 fan-out, optr run as a whole process over K = 4, 16, 64, 256 agents that
//	   each take L: directly exec'd and sh -c command agents, the sandbox on
//	   and off, against a minimal static program that starts the same K
//	   processes, measured in the same repetition (wall and CPU, optr ÷
//	   spawner; goals ≤ 1.02 and ≤ 1.2), and the sandbox on ÷ off (goal
//	   ≤ 1.05) with the sandbox's CPU per agent (on − off, ÷ K); the default
//	   config at K = 64 (wall / L ≤ 1.3). optr is built as released, with
//	   its optr-sandbox-launcher beside it (with -optr, the one beside that
//	   binary, if any); the table names the launcher used. Medians of -runs
//	   runs, min–max;
//	P1b LLM agents against the llmtest fake: optr ÷ a minimal HTTP client
//	   sending the same K requests (goal ≤ 1.02 at K = 64);
//	S1 the egress proxy's added latency per request (median, p99): 64 agents
//	   × -proxy-requests GETs to a loopback server through the proxy, against
//	   the same run with the sandbox off (direct);
//	G1 the model gateway: 64 command agents × -gateway-requests streamed
//	   Anthropic answers from a loopback upstream paced as a fast model
//	   streams, through the gateway against straight to the upstream (the
//	   sandbox off for both): the added latency to an answer's first byte
//	   (goal: median ≤ 1 ms, p99 ≤ 5 ms), and metering's share of optr's
//	   CPU in the run through the gateway (goal ≤ 2%);
//	S2 what the seccomp layer adds to a connect (its supervisor connects for
//	   the program and puts the socket in its place): 1,000 connects to a
//	   loopback listener through the launcher with and without the layer
//	   (goal ≤ 0.2 ms; Linux);
//	P2 optr ledger verify time (with its tree files) / openssl dgst -sha256
//	   time on the same bytes of a 1M-entry ledger in the layout the Action
//	   keeps, 8 MiB sealed segments (goal ≤ 1.5), and verify's peak RSS
//	   (goal ≤ 64 MiB); beside it / sha256sum, CPU / openssl's, and the
//	   same as one flat file;
//	P3 append time on a 1M-entry ledger / on a 10-entry ledger (goal ≤ 1.5);
//	P4 worktree set-up and patch capture for 8 coding agents on a 10,000-file
//	   repository, as a share of the wall time of agents that run 10 s
//	   (goal ≤ 10%);
//	P5 a delegate run's context reduction with four ≈10 KB reports (goal ≥ 96%);
//	P6 a delegate run's wall time / (coordinator time + L) for four
//	   specialists that each take L (goal ≤ 1.05);
//	P7 commit-back bytes and time on a 1M-entry segmented ledger / on a
//	   10-entry one (goal ≤ 1.5; bytes ≤ 8 MiB + the run's files);
//	P8 checkpoint and verify --witness time on a 1M-entry ledger in git /
//	   sha256sum of its files (goal ≤ 3.0), peak RSS (goal ≤ 64 MiB);
//	P9 prove on 1M entries (goal < 1 s);
//	P14 prove --from 1 and --from size−1 on 1M entries (goal ≤ 150 ms each,
//	   peak RSS ≤ 64 MiB), and the requests a witness costs per commit-back
//	   (goal ≤ 2);
//	P10 optr run's peak RSS with 4 agents × 50 MiB output (goal ≤ 2 × 50 + 64 MiB);
//	P11 GitHub requests of a labelled-issue run (optr action against the
//	   githubtest fake) whose agents finish over -span, 60 s (goal ≤ 12);
//	P12 commit-back under contention: 1, 8 and 32 runs committing onto one
//	   ledger branch at once (githubtest, -p12-latency per request):
//	   requests per commit, and the time until the last landed / a serial
//	   queue of the same commit-backs (goal at 8: ≤ 2);
//	P13 optr ledger stats --since 30d on a 1M-entry ledger, every run of which
//	   opened a pull request whose outcome follows it, whose last 30 days
//	   are 20,000 entries (10,000 pull requests): time, verifying what it
//	   reads (goal ≤ 0.5 s) and peak RSS (goal ≤ 64 MiB); the budget check
//	   before a run on the same ledger (goal ≤ 50 ms);
//	M1 optr gather over 256 matrix task results: time (goal < 2 s) and
//	   peak RSS (goal < 64 MiB), GitHub round trips excluded;
//	C1 optr version's cold start, a release build, median of -cold-runs
//	   runs (goal ≤ 50 ms), and its CPU time;
//	D1 threat detection over a change of keyword-dense code (goal ≥ 20
//	   MB/s of CPU); D2 redaction of the same, streamed (≥ 20 MB/s); D3
//	   detection over 5 × 7.5 MB of key = "…" lines (goal ≤ 10 s, the
//	   findings listed bounded); D4 over text with every rule's keywords
//	   on every line (stopped at its bound, ≤ 2 min, with a finding);
//	B1 the stripped binary's size (goal ≤ 40 MiB).
//
// Run it from the repository root: go run ./cmd/optr-bench
// (-only P7 runs the benchmarks that report P7).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	if ok, err := childMain(os.Args[1:]); ok {
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) == 5 && os.Args[1] == "gather-child" {
		if err := gatherChild(context.Background(), os.Args[2], os.Args[3], os.Args[4]); err != nil {
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

// parseKs reads -k.
func parseKs(s string) ([]int, error) {
	var ks []int
	for _, f := range strings.Split(s, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || k < 1 {
			return nil, fmt.Errorf("-k %q: want positive whole numbers, comma-separated", s)
		}
		ks = append(ks, k)
	}
	return ks, nil
}

// bench is one benchmark: the row ids it reports and how to run it.
type bench struct {
	ids []string
	run func() ([]row, error)
}

func run(ctx context.Context) error {
	agentTime := flag.Duration("agent-time", time.Second, "L: how long each agent takes in P1 and each specialist in P6")
	entries := flag.Int("entries", 1_000_000, "ledger entries for P2, P3, P7, P8, P9 and P13")
	appends := flag.Int("appends", 25, "appends timed per ledger in P3 (the median counts)")
	commits := flag.Int("commits", 5, "commit-backs timed per ledger in P7 (the median counts)")
	only := flag.String("only", "", "run only the benchmark that reports this id (P1, P1b … P14, S1, S2, G1, M1, C1, D1 … D4, B1)")
	recent := flag.Int("recent", 20_000, "P13: the entries of the last 30 days (of -entries): half of them runs that opened a pull request, half those pull requests' outcomes")
	outputKiB := flag.Int("output-kib", 4, "size of each task's output in M1, in KiB")
	coldRuns := flag.Int("cold-runs", 30, "C1: optr version runs timed (the median counts, min–max shown)")
	runs := flag.Int("runs", 5, "repetitions of each P1 measure (the median counts, min–max shown)")
	proxyRequests := flag.Int("proxy-requests", 50, "S1: GETs each of the 64 agents sends through the proxy")
	gatewayRequests := flag.Int("gateway-requests", 10, "G1: streamed answers each of the 64 agents asks for through the model gateway")
	span := flag.Duration("span", time.Minute, "P11: the agents of the labelled-issue run finish evenly over this span")
	p12Runs := flag.Int("p12-runs", 5, "P12: repetitions of each concurrency (the median counts)")
	p12Latency := flag.Duration("p12-latency", 100*time.Millisecond, "P12: how long the fake GitHub takes to answer each request, on top of its own time")
	flag.StringVar(&prebuiltOptr, "optr", "", "P1, P2, P10, P11: measure this optr binary instead of building ./cmd/optr (P1: with the optr-sandbox-launcher beside it, if there is one)")
	kList := flag.String("k", "4,16,64,256", "agent counts K of P1, comma-separated")
	flag.Parse()

	dir, err := os.MkdirTemp("", "optr-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	var big string // the 1M-entry ledger P2 and P3 share, made once
	ledgerOf := func() (string, error) {
		if big != "" {
			return big, nil
		}
		var err error
		big, err = synthetic(dir, *entries)
		return big, err
	}
	benches := []bench{
		{[]string{"P1"}, func() ([]row, error) {
			ks, err := parseKs(*kList)
			if err != nil {
				return nil, err
			}
			return fanOut(ctx, dir, *agentTime, ks, *runs)
		}},
		{[]string{"P1b"}, func() ([]row, error) {
			ks, err := parseKs(*kList)
			if err != nil {
				return nil, err
			}
			return llmFanOut(ctx, dir, *agentTime, ks, *runs)
		}},
		{[]string{"S1"}, func() ([]row, error) { return proxyLatency(ctx, dir, 64, *proxyRequests, *runs) }},
		{[]string{"G1"}, func() ([]row, error) { return gatewayLatency(ctx, dir, 64, *gatewayRequests, *runs) }},
		{[]string{"S2"}, func() ([]row, error) { return supervisedConnect(ctx, dir, 1000, *runs) }},
		{[]string{"P10"}, func() ([]row, error) { return outputRSS(ctx, dir, *runs, 50) }},
		{[]string{"P11"}, func() ([]row, error) { return issueRequests(ctx, dir, *span) }},
		{[]string{"P12"}, func() ([]row, error) { return contentionRows(ctx, []int{1, 8, 32}, *p12Runs, *p12Latency) }},
		{[]string{"P2"}, func() ([]row, error) {
			l, err := ledgerOf()
			if err != nil {
				return nil, err
			}
			return verifyRows(ctx, dir, l, *entries)
		}},
		{[]string{"P3"}, func() ([]row, error) {
			l, err := ledgerOf()
			if err != nil {
				return nil, err
			}
			r, err := appendRatio(dir, l, *entries, *appends)
			return []row{r}, err
		}},
		{[]string{"P4"}, func() ([]row, error) {
			return changesOverhead(ctx, dir, *changesFiles, *changesAgents, *runs, *changesAgentTime, *changesByGit, *changesRoot)
		}},
		{[]string{"P5", "P6"}, func() ([]row, error) { return delegateBench(ctx, dir, *agentTime) }},
		{[]string{"P7"}, func() ([]row, error) { return commitBackRows(ctx, dir, *entries, *commits) }},
		{[]string{"P8", "P9", "P14"}, func() ([]row, error) { return provenanceRows(ctx, dir, *entries) }},
		{[]string{"P14"}, func() ([]row, error) { return witnessRequests(ctx, dir, 10) }},
		{[]string{"P13"}, func() ([]row, error) { return standingsRows(ctx, dir, *entries, *recent, *runs) }},
		{[]string{"M1"}, func() ([]row, error) { return gatherBench(ctx, dir, *outputKiB<<10) }},
		{[]string{"C1"}, func() ([]row, error) { return coldStart(ctx, dir, *coldRuns) }},
		{[]string{"D1", "D2", "D3", "D4"}, func() ([]row, error) { return detectionRows(ctx, 16) }},
		{[]string{"B1"}, func() ([]row, error) { return binarySize(ctx, dir) }},
	}
	var rows []row
	ran := false
	for _, b := range benches {
		if *only != "" && !slices.Contains(b.ids, *only) {
			continue
		}
		ran = true
		r, err := b.run()
		if err != nil {
			return fmt.Errorf("%s: %w", strings.Join(b.ids, "/"), err)
		}
		rows = append(rows, r...)
	}
	if !ran {
		return fmt.Errorf("-only %q: no benchmark reports that id", *only)
	}
	printTable(os.Stdout, rows)
	return nil
}
