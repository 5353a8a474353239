package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/pipeline"
)

// fanOut runs the whole pipeline (datalake writes, selection, ledger
// append) over k command agents that each sleep l, and reports wall / l.
func fanOut(ctx context.Context, dir string, l time.Duration, ks []int) ([]row, error) {
	var rows []row
	for _, k := range ks {
		var y strings.Builder
		fmt.Fprintf(&y, "executor: { max-parallel: %d }\nagents:\n", k)
		for i := range k {
			fmt.Fprintf(&y, "  a%02d: { provider: command, run: [sh, -c, %q] }\n", i, fmt.Sprintf("sleep %.3f; echo done", l.Seconds()))
		}
		cfg, err := config.Parse(fmt.Sprintf("fanout-%d.yml", k), []byte(y.String()))
		if err != nil {
			return nil, err
		}
		ws := filepath.Join(dir, fmt.Sprintf("fanout-%d", k))
		if err := os.MkdirAll(ws, 0o755); err != nil {
			return nil, err
		}
		spec := pipeline.Spec{
			Config: cfg, Workflow: "bench", RunID: fmt.Sprintf("k%d", k), Intent: "sleep",
			Datalake: filepath.Join(ws, ".optr"), LedgerPath: datalake.Open(filepath.Join(ws, ".optr")).LedgerPath(), Dir: ws,
		}
		start := time.Now()
		rep, err := (&pipeline.Driver{Deps: pipeline.Deps{Getenv: os.Getenv, Environ: os.Environ()}}).Run(ctx, spec)
		wall := time.Since(start)
		if err != nil {
			return nil, err
		}
		if rep.Status != pipeline.Completed {
			return nil, fmt.Errorf("k=%d: run %s: %s", k, rep.Status, rep.Message)
		}
		ratio := wall.Seconds() / l.Seconds()
		rows = append(rows, row{
			id: "P1", what: fmt.Sprintf("fan-out K=%d, L=%s", k, l),
			measured: fmt.Sprintf("wall %s, overhead %s (sequential ≈ %s)", wall.Round(time.Millisecond), (wall - l).Round(time.Millisecond), time.Duration(k)*l),
			value:    fmt.Sprintf("%.3f (seq %d)", ratio, k), goal: "≤ 1.05", ok: ratio <= 1.05,
		})
	}
	return rows, nil
}
