package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// usage is what one whole-process run cost.
type usage struct {
	// start is when the process was started, and wall how long it ran.
	start time.Time
	wall  time.Duration
	// cpu is user + system time of the process and every descendant it
	// waited for (the agents): wait4's rusage.
	cpu time.Duration
	// rss is the peak resident set size of the process or of its largest
	// descendant.
	rss int64
}

// measure runs argv in dir with env and reports its cost. Its output goes
// to a log file, quoted when it fails.
func measure(ctx context.Context, dir string, env []string, argv ...string) (usage, error) {
	log, err := os.CreateTemp(dir, "log-*")
	if err != nil {
		return usage{}, err
	}
	defer os.Remove(log.Name())
	defer log.Close()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, env, log, log
	start := time.Now()
	err = cmd.Run()
	u := usage{start: start, wall: time.Since(start)}
	if ps := cmd.ProcessState; ps != nil {
		u.cpu = ps.UserTime() + ps.SystemTime()
		u.rss = peakRSS(ps)
	}
	if err != nil {
		out, _ := os.ReadFile(log.Name())
		if len(out) > 2000 {
			out = out[len(out)-2000:]
		}
		return u, fmt.Errorf("%s: %w\n%s", strings.Join(argv[:min(len(argv), 3)], " "), err, bytes.TrimSpace(out))
	}
	return u, nil
}

// prebuiltOptr is -optr: a binary to measure instead of building one.
var prebuiltOptr string

// buildOptr builds cmd/optr into dir (once), so that runs are whole
// processes as a user starts them; -optr names a binary to use instead.
func buildOptr(ctx context.Context, dir string) (string, error) {
	if prebuiltOptr != "" {
		return prebuiltOptr, nil
	}
	bin := filepath.Join(dir, "optr")
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/optr")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build optr (run optr-bench from the repository root): %w\n%s", err, out)
	}
	return bin, nil
}

// buildBoth builds optr and the bench agent (agentSource) into dir.
func buildBoth(ctx context.Context, dir string) (optr, agent string, err error) {
	if optr, err = buildOptr(ctx, dir); err != nil {
		return "", "", err
	}
	agent, err = buildAgent(ctx, dir)
	return optr, agent, err
}

// cleanEnv is the environment without provider keys and GitHub tokens, so
// that no default agent is added and nothing leaves the machine, plus
// extra.
func cleanEnv(extra map[string]string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasSuffix(name, "_API_KEY") || strings.HasSuffix(name, "_TOKEN") || strings.HasSuffix(name, "_BASE_URL") ||
			strings.HasPrefix(name, "GITHUB_") || strings.HasPrefix(name, "INPUT_") || strings.HasPrefix(name, "AZURE_") {
			continue
		}
		env = append(env, kv)
	}
	for k, v := range extra {
		env = append(env, k+"="+v)
	}
	return env
}

// withTB calls f once with a testing.TB, which the fake servers need:
// testing.Benchmark hands one out outside `go test` (b.N is not used).
func withTB(f func(tb testing.TB)) {
	once := false
	testing.Benchmark(func(b *testing.B) {
		if once {
			return
		}
		once = true
		f(b)
	})
}
