package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/optr-dev/optr/internal/check"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/matrix"
	"github.com/optr-dev/optr/internal/pipeline"
	"github.com/optr-dev/optr/internal/status"
)

// gatherTasks is M1's matrix size: the most jobs one matrix may hold.
const gatherTasks = matrix.MaxTasks

// gatherBench is M1: `optr gather` over 256 task results laid out as
// download-artifact lays them out (one folder per artifact), in a child
// process so that its time and peak RSS are its own. The gather reads,
// verifies and loads every result, selects, writes the run into a datalake
// and appends the ledger; GitHub round trips are not part of it (the e2e
// test TestMatrixIsTheOneJobRun counts those against a one-job run).
func gatherBench(ctx context.Context, dir string, outputBytes int) ([]row, error) {
	plan, from, err := gatherFixture(ctx, dir, outputBytes)
	if err != nil {
		return nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	var times []time.Duration
	var peak int64
	for i := range 3 {
		lake := filepath.Join(dir, fmt.Sprintf("lake-%d", i))
		d, rss, err := timeCmd(ctx, self, "gather-child", plan, from, lake)
		if err != nil {
			return nil, fmt.Errorf("gather: %w", err)
		}
		times = append(times, d)
		peak = max(peak, rss)
	}
	best := slices.Min(times)
	mib := float64(peak) / (1 << 20)
	what := fmt.Sprintf("gather %d task results (%d KiB outputs)", gatherTasks, outputBytes>>10)
	return []row{
		{id: "M1", what: what, measured: best.Round(time.Millisecond).String(),
			value: best.Round(time.Millisecond).String(), goal: "< 2s", ok: best < 2*time.Second},
		{id: "M1", what: "gather peak RSS", measured: fmt.Sprintf("%.1f MiB", mib),
			value: fmt.Sprintf("%.1f MiB", mib), goal: "< 64 MiB", ok: mib < 64},
	}, nil
}

// gatherFixture plans a run of 256 command agents under one hard
// constraint and writes each task's folder as `optr task` would, each in
// its own artifact folder. It returns the plan file and the results folder.
func gatherFixture(ctx context.Context, dir string, outputBytes int) (string, string, error) {
	var b strings.Builder
	b.WriteString("agents:\n")
	for i := range gatherTasks {
		fmt.Fprintf(&b, "  agent-%03d: { provider: command, run: [\"true\"] }\n", i)
	}
	b.WriteString("constraints:\n  no-todo: { check: not-regex, pattern: TODO }\n")
	cfg, err := config.Parse("bench.yml", []byte(b.String()))
	if err != nil {
		return "", "", err
	}
	plan, _, err := matrix.MakePlan(ctx, pipeline.Spec{
		Config: cfg, Workflow: "bench", RunID: "bench-1", Intent: "Summarise the benchmark.", Dir: dir,
	}, pipeline.Deps{Environ: os.Environ()}, 0, "")
	if err != nil {
		return "", "", err
	}
	planFile, err := plan.Write(filepath.Join(dir, "optr-plan"))
	if err != nil {
		return "", "", err
	}
	from := filepath.Join(dir, "optr-tasks")
	start := time.Now()
	for i, t := range plan.Tasks {
		if err := ctx.Err(); err != nil {
			return "", "", err
		}
		line := fmt.Sprintf("Finding %d of agent %s.\n", i, t.Agent)
		out := strings.Repeat(line, outputBytes/len(line)+1)[:outputBytes]
		r := &executor.Result{
			Agent: t.Agent, Provider: config.ProviderCommand, Status: status.Succeeded,
			Output: out, OutputSHA256: executor.SHA256Hex(out), TTVms: int64(1000 + i), TTVSource: "measured",
			ExecMS: int64(1000 + i), StartedAt: start, FinishedAt: start.Add(time.Second),
			Checks: check.Evaluation{
				Verdicts:   []check.Verdict{{Constraint: "no-todo", Hard: true, Status: status.Passed}},
				Invariants: []string{"no-todo"}, Admissible: true,
			},
		}
		// download-artifact without merge-multiple: optr-tasks/<artifact>/optr-task-<id>/
		if _, err := matrix.WriteTask(filepath.Join(from, matrix.TaskDirName(t.ID)), plan, t, r, matrix.Extras{}); err != nil {
			return "", "", err
		}
	}
	return planFile, from, nil
}

// gatherChild is the measured process: read the plan, gather, and carry
// the run through the driver into lake.
func gatherChild(ctx context.Context, planFile, from, lake string) error {
	plan, err := matrix.ReadPlan(planFile)
	if err != nil {
		return err
	}
	g, err := matrix.Gather(ctx, plan, from)
	if err != nil {
		return err
	}
	if len(g.Refused)+len(g.Missing) > 0 {
		return fmt.Errorf("refused %v, missing %v", g.Refused, g.Missing)
	}
	spec, err := plan.Spec(lake, filepath.Join(lake, "ledger.jsonl"), filepath.Dir(filepath.Dir(planFile)))
	if err != nil {
		return err
	}
	gm, err := matrix.NewGatherMode(plan, g)
	if err != nil {
		return err
	}
	d := &pipeline.Driver{Deps: pipeline.Deps{Environ: os.Environ()}, Mode: gm}
	rep, err := d.Run(ctx, spec)
	if err != nil {
		return err
	}
	if rep.Status != status.Completed || len(rep.Results) != gatherTasks {
		return fmt.Errorf("gather ended %s with %d results", rep.Status, len(rep.Results))
	}
	return nil
}
