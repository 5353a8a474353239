package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
)

// outputRSS is P10: the peak RSS of optr run (as a whole process) over
// four command agents that each print outputMiB MiB. Goal: at most twice
// the largest single output plus 64 MiB, the budget of a run that streams
// outputs to their files instead of copying them in memory. The agents
// run confined (the sandbox's default), as they do for users.
func outputRSS(ctx context.Context, dir string, runs, outputMiB int) ([]row, error) {
	optr, agent, err := buildBoth(ctx, dir)
	if err != nil {
		return nil, err
	}
	ws, err := os.MkdirTemp(dir, "p10-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(ws)
	size := outputMiB << 20
	cfg := fmt.Sprintf("executor: { max-output: %d }\n%sagents:\n", size+1, sandboxReading(dir))
	for i := range 4 {
		cfg += fmt.Sprintf("  a%d: { provider: command, run: [%q, 100ms, %q] }\n", i, agent, fmt.Sprint(size))
	}
	if err := os.WriteFile(filepath.Join(ws, "optr.yml"), []byte(cfg), 0o644); err != nil {
		return nil, err
	}
	var rss, wall []float64
	for rep := range runs {
		dl := filepath.Join(ws, fmt.Sprintf("lake-%d", rep))
		u, err := measure(ctx, ws, cleanEnv(nil), optr, "run", "--config", "optr.yml", "--workflow", "bench",
			"--intent", "print", "--datalake", dl, "--interactive", "never")
		os.RemoveAll(dl)
		if err != nil {
			return nil, err
		}
		rss = append(rss, float64(u.rss)/(1<<20))
		wall = append(wall, u.wall.Seconds())
	}
	limit := float64(2*outputMiB + 64)
	s := spreadOf(rss)
	return []row{{
		id: "P10", what: fmt.Sprintf("peak RSS, 4 agents × %d MiB output", outputMiB),
		measured: fmt.Sprintf("wall %s s, %d runs", spreadOf(wall).format("%.2f"), runs),
		value:    s.format("%.0f") + " MiB", goal: fmt.Sprintf("≤ %.0f MiB (2 × %d + 64)", limit, outputMiB), ok: s.hi <= limit,
	}}, nil
}
