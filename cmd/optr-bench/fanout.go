package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/optr-dev/optr/internal/agent/llm/llmtest"
)

// fanOutBench is P1: optr run, as a whole process, over K agents that each
// take L, against what the machine allows.
//
//   - command agents exec'd directly (a small program, agentSource) and
//     through sh -c: optr's wall time ÷ the wall time of a bare Go program
//     that starts the same K processes at once (bare-child), both measured
//     in the same repetition, so the ratio is optr's own cost over the
//     spawn floor (goal ≤ 1.02); and the CPU time of the whole process
//     tree, optr ÷ bare (goal ≤ 1.2 per agent);
//   - LLM agents (openai) against the llmtest fake, which answers after L:
//     wall / L (goal ≤ 1.05 at K = 64), beside the floor: a bare Go
//     program that starts and sends the same K requests (bare-http);
//   - the default config (no executor key) with K = 64 command agents:
//     wall / L (goal ≤ 1.3: every agent at once, not in waves).
//
// Every figure is the median of runs repetitions, with min–max.
type fanOutBench struct {
	dir   string
	optr  string // the optr binary
	self  string // this program, for bare-child
	agent string // the directly exec'd agent (agentSource)
	l     time.Duration
	runs  int
}

// agentKind is how P1's agents are run.
type agentKind struct {
	name string
	// yaml is one agent's value in the config.
	yaml func(b *fanOutBench) string
	// bare is the argv the bare baseline starts K times (nil: no baseline).
	bare func(b *fanOutBench) []string
}

var (
	execAgents = agentKind{"exec",
		func(b *fanOutBench) string {
			return fmt.Sprintf("{ provider: command, run: [%q, %q] }", b.agent, b.l)
		},
		func(b *fanOutBench) []string { return []string{b.agent, b.l.String()} }}
	shAgents = agentKind{"sh",
		func(b *fanOutBench) string {
			return fmt.Sprintf("{ provider: command, run: [sh, -c, %q] }", b.shScript())
		},
		func(b *fanOutBench) []string { return []string{"sh", "-c", b.shScript()} }}
	llmAgents = agentKind{"llm",
		func(*fanOutBench) string { return "{ provider: openai, model: gpt-4.1 }" }, nil}
)

func (b *fanOutBench) shScript() string { return fmt.Sprintf("sleep %.3f; echo done", b.l.Seconds()) }

func fanOut(ctx context.Context, dir string, l time.Duration, ks []int, runs int) ([]row, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	optr, agent, err := buildBoth(ctx, dir)
	if err != nil {
		return nil, err
	}
	b := &fanOutBench{dir: dir, optr: optr, self: self, agent: agent, l: l, runs: runs}
	var rows []row
	for _, kind := range []agentKind{execAgents, shAgents} {
		for _, k := range ks {
			r, err := b.versusBare(ctx, kind, k)
			if err != nil {
				return nil, fmt.Errorf("%s agents, K=%d: %w", kind.name, k, err)
			}
			rows = append(rows, r...)
		}
	}
	var llmErr error
	withTB(func(tb testing.TB) {
		fake := llmtest.NewOpenAI(tb)
		fake.SetDefault(llmtest.Reply{Text: llmtest.Answer("done", 1), Delay: l})
		for _, k := range ks {
			r, err := b.againstFloor(ctx, llmAgents, k, true, fake.Env(), []string{b.self, bareHTTP, fmt.Sprint(k)},
				"bare HTTP client", "≤ 1.05 at K=64", 1.05, k == 64)
			if err != nil {
				llmErr = fmt.Errorf("llm agents, K=%d: %w", k, err)
				return
			}
			rows = append(rows, r)
		}
	})
	if llmErr != nil {
		return nil, llmErr
	}
	r, err := b.againstFloor(ctx, execAgents, 64, false, nil, append([]string{b.self, bareChild, "64"}, execAgents.bare(b)...),
		"bare spawn", "≤ 1.3 (spawn floor), not 8.6", 1.3, true)
	if err != nil {
		return nil, fmt.Errorf("default config: %w", err)
	}
	return append(rows, r), nil
}

// Sandbox settings of a P1 config: on (sandbox.mode auto, the default,
// with the bench's programs readable) or off.
const (
	sandboxOn  = "on"
	sandboxOff = "off"
)

// sandboxReading is the sandbox setting of a bench config whose agents
// are programs under dir: the default mode (auto), with dir readable, so
// that a confined agent, run as the unprivileged user when optr runs as
// root, can execute them (buildProgram makes dir readable to every user).
func sandboxReading(dir string) string {
	return fmt.Sprintf("sandbox: { read: [%q] }\n", dir)
}

// config writes a config of k agents of kind; parallel sets
// executor.max-parallel to k, else the default applies.
func (b *fanOutBench) config(kind agentKind, k int, parallel bool) (string, error) {
	return b.configSandbox(kind, k, parallel, sandboxOn)
}

// configSandbox is config with the sandbox on or off.
func (b *fanOutBench) configSandbox(kind agentKind, k int, parallel bool, sandbox string) (string, error) {
	var y strings.Builder
	if parallel {
		fmt.Fprintf(&y, "executor: { max-parallel: %d }\n", k)
	}
	if sandbox == sandboxOff {
		y.WriteString("sandbox: { mode: off }\n")
	} else {
		y.WriteString(sandboxReading(b.dir))
	}
	y.WriteString("agents:\n")
	for i := range k {
		fmt.Fprintf(&y, "  a%03d: %s\n", i, kind.yaml(b))
	}
	ws, err := os.MkdirTemp(b.dir, fmt.Sprintf("p1-%s-%d-%s-", kind.name, k, sandbox))
	if err != nil {
		return "", err
	}
	return ws, os.WriteFile(filepath.Join(ws, "optr.yml"), []byte(y.String()), 0o644)
}

// optrRun runs optr once in ws, in a datalake of its own.
func (b *fanOutBench) optrRun(ctx context.Context, ws string, rep int, extra map[string]string) (usage, error) {
	dl := filepath.Join(ws, fmt.Sprintf("lake-%d", rep))
	defer os.RemoveAll(dl)
	return measure(ctx, ws, cleanEnv(extra), b.optr, "run", "--config", "optr.yml", "--workflow", "bench",
		"--intent", "sleep", "--datalake", dl, "--interactive", "never")
}

// versusBare measures optr and the bare baseline on k agents of kind in
// alternating order, repetition by repetition.
func (b *fanOutBench) versusBare(ctx context.Context, kind agentKind, k int) ([]row, error) {
	ws, err := b.config(kind, k, true)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(ws)
	// For directly exec'd agents, the same run with the sandbox off is
	// measured in the same repetitions: the sandbox's own cost.
	offWS := ""
	if kind.name == execAgents.name {
		if offWS, err = b.configSandbox(kind, k, true, sandboxOff); err != nil {
			return nil, err
		}
		defer os.RemoveAll(offWS)
	}
	bareArgv := append([]string{b.self, bareChild, fmt.Sprint(k)}, kind.bare(b)...)
	var wallRatio, cpuRatio, optrL, bareL, cpuPerAgent, offRatio, onOff, launcherCPU []float64
	for rep := range b.runs {
		var o, bare, off usage
		steps := []func() error{
			func() (err error) { bare, err = measure(ctx, ws, cleanEnv(nil), bareArgv...); return err },
			func() (err error) { o, err = b.optrRun(ctx, ws, rep, nil); return err },
		}
		if offWS != "" {
			steps = append(steps, func() (err error) { off, err = b.optrRun(ctx, offWS, rep, nil); return err })
		}
		// A different one goes first in each repetition.
		for i := range steps {
			if err := steps[(rep+i)%len(steps)](); err != nil {
				return nil, err
			}
		}
		if offWS != "" {
			offRatio = append(offRatio, off.wall.Seconds()/bare.wall.Seconds())
			onOff = append(onOff, o.wall.Seconds()/off.wall.Seconds())
			launcherCPU = append(launcherCPU, float64((o.cpu-off.cpu).Microseconds())/1000/float64(k))
		}
		wallRatio = append(wallRatio, o.wall.Seconds()/bare.wall.Seconds())
		cpuRatio = append(cpuRatio, o.cpu.Seconds()/bare.cpu.Seconds())
		optrL = append(optrL, o.wall.Seconds()/b.l.Seconds())
		bareL = append(bareL, bare.wall.Seconds()/b.l.Seconds())
		cpuPerAgent = append(cpuPerAgent, float64(o.cpu.Microseconds())/1000/float64(k))
	}
	w, c := spreadOf(wallRatio), spreadOf(cpuRatio)
	rows := []row{{
		id: "P1", what: fmt.Sprintf("%s agents K=%d, L=%s: wall, optr ÷ bare spawn", kind.name, k, b.l),
		measured: fmt.Sprintf("wall/L optr %s, bare %s", spreadOf(optrL), spreadOf(bareL)),
		value:    w.String(), goal: "≤ 1.02", ok: w.med <= 1.02,
	}}
	if offWS != "" {
		oo := spreadOf(onOff)
		rows = append(rows, row{
			id: "P1", what: fmt.Sprintf("%s agents K=%d: wall, sandbox on ÷ off", kind.name, k),
			measured: fmt.Sprintf("optr ÷ bare spawn: on %s, off %s; the sandbox's CPU per agent %s ms", w, spreadOf(offRatio), spreadOf(launcherCPU).format("%.1f")),
			value:    oo.String(), goal: "≤ 1.05", ok: oo.med <= 1.05,
		})
	}
	if k >= 16 {
		rows = append(rows, row{
			id: "P1", what: fmt.Sprintf("%s agents K=%d: CPU, optr ÷ bare spawn", kind.name, k),
			measured: fmt.Sprintf("optr %s ms CPU per agent", spreadOf(cpuPerAgent).format("%.1f")),
			value:    c.String(), goal: "≤ 1.2", ok: c.med <= 1.2,
		})
	}
	return rows, nil
}

// againstFloor measures optr on k agents of kind (with max-parallel k, or
// the default config) and, in the same repetitions, the floor: floorArgv,
// a bare program doing only what optr cannot avoid (starting the same
// processes, or sending the same requests). The value is optr's wall / L
// (the goal's measure, limit applying when gated); beside it the floor's
// wall / L and optr ÷ floor, which say how much of the gap is optr's.
func (b *fanOutBench) againstFloor(ctx context.Context, kind agentKind, k int, parallel bool, env map[string]string, floorArgv []string, floorName, goal string, limit float64, gated bool) (row, error) {
	ws, err := b.config(kind, k, parallel)
	if err != nil {
		return row{}, err
	}
	defer os.RemoveAll(ws)
	var optrL, floorL, ratio []float64
	for rep := range b.runs {
		var o, floor usage
		if rep%2 == 0 {
			if floor, err = measure(ctx, ws, cleanEnv(env), floorArgv...); err == nil {
				o, err = b.optrRun(ctx, ws, rep, env)
			}
		} else if o, err = b.optrRun(ctx, ws, rep, env); err == nil {
			floor, err = measure(ctx, ws, cleanEnv(env), floorArgv...)
		}
		if err != nil {
			return row{}, err
		}
		optrL = append(optrL, o.wall.Seconds()/b.l.Seconds())
		floorL = append(floorL, floor.wall.Seconds()/b.l.Seconds())
		ratio = append(ratio, o.wall.Seconds()/floor.wall.Seconds())
	}
	s := spreadOf(optrL)
	what := fmt.Sprintf("%s agents K=%d, L=%s: wall / L", kind.name, k, b.l)
	if !parallel {
		what = "default config, " + what
	}
	if !gated {
		goal = "—"
	}
	return row{
		id: "P1", what: what,
		measured: fmt.Sprintf("%s %s; optr ÷ it %s", floorName, spreadOf(floorL), spreadOf(ratio)),
		value:    s.String(), goal: goal, ok: !gated || s.med <= limit,
	}, nil
}
