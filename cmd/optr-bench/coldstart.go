package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// coldStart is C1: how long a fresh `optr version` takes, start to exit,
// over runs processes (the median counts, min–max shown), and the CPU it
// uses. The command does nothing, so this is the cost every optr command
// pays before its first line: loading the binary, the runtime and every
// linked package's init. The binary is built as a release builds it
// (static, -trimpath, stripped) unless -optr names one. Goal: ≤ 60 ms
// (was 50 ms while optr carried a copy of the JSON Schema library whose
// metaschemas compiled on first use; upstream compiles them in init, about
// 6 ms of every start on a 2-core machine).
func coldStart(ctx context.Context, dir string, runs int) ([]row, error) {
	if runs < 1 {
		return nil, fmt.Errorf("-cold-runs %d: want at least 1", runs)
	}
	bin, err := buildRelease(ctx, dir)
	if err != nil {
		return nil, err
	}
	env := cleanEnv(nil)
	if _, err := measure(ctx, dir, env, bin, "version"); err != nil { // page the binary in
		return nil, err
	}
	walls, cpus := make([]float64, runs), make([]float64, runs)
	for i := range runs {
		u, err := measure(ctx, dir, env, bin, "version")
		if err != nil {
			return nil, err
		}
		walls[i], cpus[i] = ms(u.wall), ms(u.cpu)
	}
	wall, cpu := spreadOf(walls), spreadOf(cpus)
	measured := fmt.Sprintf("optr version, %d runs", runs)
	return []row{
		{id: "C1", what: "cold start, wall (ms)", measured: measured, value: wall.format("%.1f"), goal: fmt.Sprintf("≤ %d", coldStartGoal), ok: wall.med <= coldStartGoal},
		{id: "C1", what: "cold start, CPU user+sys (ms)", measured: measured, value: cpu.format("%.1f")},
	}, nil
}

// coldStartGoal is C1's goal, in milliseconds.
const coldStartGoal = 60

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// buildRelease builds cmd/optr into dir the way scripts/release.sh does
// (static, -trimpath, stripped); -optr names a binary to use instead.
func buildRelease(ctx context.Context, dir string) (string, error) {
	if prebuiltOptr != "" {
		return filepath.Abs(prebuiltOptr) // runs start in a temporary directory
	}
	bin := filepath.Join(dir, "optr-release")
	return bin, goBuildRelease(ctx, bin, "./cmd/optr")
}

// buildReleasePair builds optr as buildRelease does with its sandbox
// launcher beside it, as the releases ship them, and says which launcher
// optr uses: with -optr, the one beside that binary, if any, else optr
// itself (nothing is built then).
func buildReleasePair(ctx context.Context, dir string) (optr, launcher string, err error) {
	if optr, err = buildRelease(ctx, dir); err != nil {
		return "", "", err
	}
	sibling := filepath.Join(filepath.Dir(optr), "optr-sandbox-launcher")
	if prebuiltOptr == "" {
		if err := goBuildRelease(ctx, sibling, "./cmd/optr-sandbox-launcher"); err != nil {
			return "", "", err
		}
	}
	if resolved, err := filepath.EvalSymlinks(optr); err == nil {
		sibling = filepath.Join(filepath.Dir(resolved), "optr-sandbox-launcher")
	}
	if _, err := os.Stat(sibling); err != nil {
		return optr, "optr itself (no optr-sandbox-launcher beside it)", nil
	}
	return optr, sibling, nil
}

// goBuildRelease builds pkg into bin the way scripts/release.sh does.
func goBuildRelease(ctx context.Context, bin, pkg string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags", "-s -w", "-o", bin, pkg)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("build %s (run optr-bench from the repository root): %w\n%s", pkg, err, out)
	}
	return nil
}
