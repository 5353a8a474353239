package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/optr-dev/optr/internal/agent/llm/llmtest"
)

// fanOutBench is P1: optr run, as a whole process, over K agents that each
// take L, against the smallest program that does what optr cannot avoid.
//
//   - command agents exec'd directly (a small program, agentSource) and
//     through sh -c, with the sandbox on (the default) and off: optr's wall
//     time ÷ that of the minimal spawner (spawnerSource: a static program
//     that starts the same K processes at once and waits for them), all
//     three measured in the same repetition, so the ratio is optr's own
//     cost over the spawn floor (goal ≤ 1.02); the CPU time of the whole
//     process tree, optr ÷ spawner (goal ≤ 1.2); and sandbox on ÷ off
//     (goal ≤ 1.05), with the sandbox's CPU per agent;
//   - P1b, LLM agents (openai) against the llmtest fake, which answers
//     after L: optr's wall ÷ that of a minimal HTTP client that sends the
//     same K requests (httpClientSource), goal ≤ 1.02 at K = 64, with
//     both walls / L beside it;
//   - the default config (no executor key) with K = 64 command agents:
//     wall / L (goal ≤ 1.3: every agent at once, not in waves).
//
// optr is measured as it is released (static, stripped, with its sandbox
// launcher beside it: buildReleasePair).
// Every figure is the median of runs repetitions, with min–max.
type fanOutBench struct {
	dir  string
	optr string // the optr binary
	// launcher is the sandbox launcher optr uses (buildReleasePair).
	launcher string
	spawner  string // the spawn floor (spawnerSource)
	// netnsSpawner is the spawn floor with a network namespace per agent
	// (netnsSpawnerSource); "" but on Linux.
	netnsSpawner string
	client       string // the HTTP floor (httpClientSource)
	agent        string // the directly exec'd agent (agentSource)
	l            time.Duration
	runs         int
	// lakeRoot holds each optr run's datalake; "" means its workspace.
	lakeRoot string
}

// agentKind is how P1's agents are run.
type agentKind struct {
	name string
	// yaml is one agent's value in the config.
	yaml func(b *fanOutBench) string
	// argv is what the spawn floor starts K times (nil: not a program).
	argv func(b *fanOutBench) []string
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

// spawnFloor is the spawn floor's argv for k agents of kind.
func (b *fanOutBench) spawnFloor(kind agentKind, k int) []string {
	return append([]string{b.spawner, fmt.Sprint(k)}, kind.argv(b)...)
}

// newFanOutBench builds the released optr and the floor programs P1 and
// P1b measure against.
func newFanOutBench(ctx context.Context, dir string, l time.Duration, runs int) (*fanOutBench, error) {
	b := &fanOutBench{dir: dir, l: l, runs: runs}
	var err error
	if b.optr, b.launcher, err = buildReleasePair(ctx, dir); err != nil {
		return nil, err
	}
	for _, p := range []struct {
		bin          *string
		name, source string
	}{{&b.agent, "agent", agentSource}, {&b.spawner, "spawner", spawnerSource}, {&b.client, "http-client", httpClientSource}} {
		if *p.bin, err = buildProgram(ctx, dir, p.name, p.source); err != nil {
			return nil, err
		}
	}
	if runtime.GOOS == "linux" {
		if b.netnsSpawner, err = buildProgram(ctx, dir, "netns-spawner", netnsSpawnerSource); err != nil {
			return nil, err
		}
		// Where the kernel refuses the namespaces, the sandbox has none
		// either, and there is no such floor to show.
		if exec.CommandContext(ctx, b.netnsSpawner, "1", "true").Run() != nil {
			b.netnsSpawner = ""
		}
	}
	return b, nil
}

// fanOut is P1: command agents against the spawn floor, and the default
// config.
func fanOut(ctx context.Context, dir string, l time.Duration, ks []int, runs int) ([]row, error) {
	b, err := newFanOutBench(ctx, dir, l, runs)
	if err != nil {
		return nil, err
	}
	var rows []row
	for _, kind := range []agentKind{execAgents, shAgents} {
		for _, k := range ks {
			r, err := b.versusSpawner(ctx, kind, k)
			if err != nil {
				return nil, fmt.Errorf("%s agents, K=%d: %w", kind.name, k, err)
			}
			rows = append(rows, r...)
		}
	}
	v, err := b.againstFloor(ctx, execAgents, 64, false, nil, b.spawnFloor(execAgents, 64), nil)
	if err != nil {
		return nil, fmt.Errorf("default config: %w", err)
	}
	return append(rows, row{
		id: "P1", what: fmt.Sprintf("default config, exec agents K=64, L=%s: wall / L", l),
		measured: fmt.Sprintf("minimal spawner %s; optr ÷ it %s", v.floorL, v.ratio),
		value:    v.optrL.String(), goal: "≤ 1.3 (spawn floor), not 8.6", ok: v.optrL.med <= 1.3,
	}), nil
}

// llmFanOut is P1b: LLM agents against the minimal HTTP client.
func llmFanOut(ctx context.Context, dir string, l time.Duration, ks []int, runs int) ([]row, error) {
	b, err := newFanOutBench(ctx, dir, l, runs)
	if err != nil {
		return nil, err
	}
	var rows []row
	var llmErr error
	withTB(func(tb testing.TB) {
		fake := llmtest.NewOpenAI(tb)
		fake.SetDefault(llmtest.Reply{Text: llmtest.Answer("done", 1), Delay: l})
		arrivals := func() []time.Time {
			var at []time.Time
			for _, r := range fake.Requests() {
				at = append(at, r.Received)
			}
			return at
		}
		for _, k := range ks {
			v, err := b.againstFloor(ctx, llmAgents, k, true, fake.Env(), []string{b.client, fmt.Sprint(k)}, arrivals)
			if err != nil {
				llmErr = fmt.Errorf("llm agents, K=%d: %w", k, err)
				return
			}
			gated := k == 64
			goal := "≤ 1.02 at K=64"
			if !gated {
				goal = "—"
			}
			rows = append(rows, row{
				id: "P1b", what: fmt.Sprintf("llm agents K=%d, L=%s: wall, optr ÷ minimal HTTP client", k, l),
				measured: fmt.Sprintf("wall/L optr %s, HTTP client %s; CPU optr ÷ client %s; optr: %s; HTTP client: %s",
					v.optrL, v.floorL, v.cpu, v.optrPhases, v.floorPhases),
				value: v.ratio.String(), goal: goal, ok: !gated || v.ratio.med <= 1.02,
			})
		}
		if slices.Contains(ks, 64) {
			r, err := b.onMemory(ctx, fake.Env(), arrivals)
			if err != nil {
				llmErr = fmt.Errorf("llm agents, K=64, datalake in memory: %w", err)
				return
			}
			rows = append(rows, r...)
		}
	})
	return rows, llmErr
}

// memoryDir is a file system in memory where the machine has one in the
// usual place (tmpfs, on Linux).
const memoryDir = "/dev/shm"

// onMemory is P1b at K = 64 again with each run's datalake (its result
// files, their fsyncs and the ledger) in memory, where the machine has a
// file system there: beside the row on disk, it shows what the disk
// costs optr, which the HTTP client, writing nothing, does not pay. On a
// disk whose ext4 has no journal, every fsync is a flush of the device,
// and a new file's inode is looked for past every one deleted in the
// last half minute, as the bench deletes each run's datalake.
func (b *fanOutBench) onMemory(ctx context.Context, env map[string]string, arrivals func() []time.Time) ([]row, error) {
	if _, err := os.Stat(memoryDir); errors.Is(err, fs.ErrNotExist) {
		return nil, nil // no such file system here: no row
	}
	root, err := os.MkdirTemp(memoryDir, "optr-bench-lakes-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(root)
	mem := *b // the same bench, its datalakes in memory
	mem.lakeRoot = root
	const k = 64
	v, err := mem.againstFloor(ctx, llmAgents, k, true, env, []string{b.client, fmt.Sprint(k)}, arrivals)
	if err != nil {
		return nil, err
	}
	return []row{{
		id: "P1b", what: fmt.Sprintf("llm agents K=%d, L=%s, datalake in memory (%s): wall, optr ÷ minimal HTTP client", k, b.l, memoryDir),
		measured: fmt.Sprintf("wall/L optr %s, HTTP client %s; optr: %s; what the disk costs is this row's ratio against the one on disk",
			v.optrL, v.floorL, v.optrPhases),
		value: v.ratio.String(), goal: "(informative)", ok: true,
	}}, nil
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
	root := b.lakeRoot
	if root == "" {
		root = ws
	}
	dl := filepath.Join(root, fmt.Sprintf("lake-%d", rep))
	defer os.RemoveAll(dl)
	return measure(ctx, ws, cleanEnv(extra), b.optr, "run", "--config", "optr.yml", "--workflow", "bench",
		"--intent", "sleep", "--datalake", dl, "--interactive", "never")
}

// versusSpawner measures, in the same repetitions and in turn going
// first, optr on k agents of kind with the sandbox on and off, and the
// spawn floor.
func (b *fanOutBench) versusSpawner(ctx context.Context, kind agentKind, k int) ([]row, error) {
	wss := map[string]string{}
	for _, sb := range []string{sandboxOn, sandboxOff} {
		ws, err := b.configSandbox(kind, k, true, sb)
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(ws)
		wss[sb] = ws
	}
	floorArgv := b.spawnFloor(kind, k)
	var floorL, onOff, sandboxCPU, nsWall, nsCPU []float64
	wall := map[string][]float64{}
	cpu := map[string][]float64{}
	for rep := range b.runs {
		var floor, nsFloor usage
		u := map[string]usage{}
		steps := []func() error{
			func() (err error) { floor, err = measure(ctx, wss[sandboxOn], cleanEnv(nil), floorArgv...); return err },
			func() (err error) { u[sandboxOn], err = b.optrRun(ctx, wss[sandboxOn], rep, nil); return err },
			func() (err error) { u[sandboxOff], err = b.optrRun(ctx, wss[sandboxOff], rep, nil); return err },
		}
		if b.netnsSpawner != "" {
			nsArgv := append([]string{b.netnsSpawner}, floorArgv[1:]...)
			steps = append(steps, func() (err error) { nsFloor, err = measure(ctx, wss[sandboxOn], cleanEnv(nil), nsArgv...); return err })
		}
		for i := range steps {
			if err := steps[(rep+i)%len(steps)](); err != nil {
				return nil, err
			}
		}
		for sb, o := range u {
			wall[sb] = append(wall[sb], o.wall.Seconds()/floor.wall.Seconds())
			cpu[sb] = append(cpu[sb], o.cpu.Seconds()/floor.cpu.Seconds())
		}
		floorL = append(floorL, floor.wall.Seconds()/b.l.Seconds())
		onOff = append(onOff, u[sandboxOn].wall.Seconds()/u[sandboxOff].wall.Seconds())
		sandboxCPU = append(sandboxCPU, ms(u[sandboxOn].cpu-u[sandboxOff].cpu)/float64(k))
		if b.netnsSpawner != "" {
			nsWall = append(nsWall, nsFloor.wall.Seconds()/floor.wall.Seconds())
			nsCPU = append(nsCPU, ms(nsFloor.cpu-floor.cpu)/float64(k))
		}
	}
	what := func(s string) string { return fmt.Sprintf("%s agents K=%d, L=%s: %s", kind.name, k, b.l, s) }
	var rows []row
	for _, sb := range []string{sandboxOn, sandboxOff} {
		w, c := spreadOf(wall[sb]), spreadOf(cpu[sb])
		rows = append(rows, row{
			id: "P1", what: what("wall, optr ÷ minimal spawner, sandbox " + sb),
			measured: fmt.Sprintf("the spawner's wall/L %s", spreadOf(floorL)),
			value:    w.String(), goal: "≤ 1.02", ok: w.med <= 1.02,
		}, row{
			id: "P1", what: what("CPU, optr ÷ minimal spawner, sandbox " + sb),
			measured: "user+sys of the process tree",
			value:    c.String(), goal: "≤ 1.2", ok: c.med <= 1.2,
		})
	}
	oo := spreadOf(onOff)
	rows = append(rows, row{
		id: "P1", what: what("wall, sandbox on ÷ off"),
		measured: fmt.Sprintf("the sandbox's CPU per agent %s ms; launcher %s", spreadOf(sandboxCPU).format("%.1f"), b.launcher),
		value:    oo.String(), goal: "≤ 1.05", ok: oo.med <= 1.05,
	})
	if len(nsWall) > 0 {
		// Informative: what a network namespace per agent costs by
		// itself, the floor under "sandbox on" that no launcher removes.
		rows = append(rows, row{
			id: "P1", what: what("wall, spawner with a network namespace per agent ÷ minimal spawner"),
			measured: fmt.Sprintf("the namespace's CPU per agent %s ms (made and torn down by the kernel)", spreadOf(nsCPU).format("%.1f")),
			value:    spreadOf(nsWall).String(), goal: "—", ok: true,
		})
	}
	return rows, nil
}

// versusFloor is what againstFloor measured: optr's and the floor's
// wall / L, optr ÷ floor, optr's CPU ÷ the floor's, and, for programs
// that send requests to a fake, where each one's wall went.
type versusFloor struct {
	optrL, floorL, ratio, cpu spread
	optrPhases, floorPhases   phases
}

// againstFloor measures optr on k agents of kind (with max-parallel k, or
// the default config) and, in the same repetitions, the floor: floorArgv,
// a minimal program doing only what optr cannot avoid (starting the same
// processes, or sending the same requests). With arrivals (when the fake
// received each request so far), it splits each run into phases too.
func (b *fanOutBench) againstFloor(ctx context.Context, kind agentKind, k int, parallel bool, env map[string]string, floorArgv []string, arrivals func() []time.Time) (versusFloor, error) {
	var v versusFloor
	ws, err := b.config(kind, k, parallel)
	if err != nil {
		return v, err
	}
	defer os.RemoveAll(ws)
	// run measures one program's run, and its phases with arrivals.
	run := func(p *phases, start func() (usage, error)) (usage, error) {
		var before int
		if arrivals != nil {
			before = len(arrivals())
		}
		u, err := start()
		if err == nil && arrivals != nil {
			err = p.add(u, arrivals()[before:], k, b.l)
		}
		return u, err
	}
	var oL, fL, r, c []float64
	for rep := range b.runs {
		var o, floor usage
		optr := func() (usage, error) {
			return run(&v.optrPhases, func() (usage, error) { return b.optrRun(ctx, ws, rep, env) })
		}
		theFloor := func() (usage, error) {
			return run(&v.floorPhases, func() (usage, error) { return measure(ctx, ws, cleanEnv(env), floorArgv...) })
		}
		if rep%2 == 0 {
			if floor, err = theFloor(); err == nil {
				o, err = optr()
			}
		} else if o, err = optr(); err == nil {
			floor, err = theFloor()
		}
		if err != nil {
			return v, err
		}
		oL = append(oL, o.wall.Seconds()/b.l.Seconds())
		fL = append(fL, floor.wall.Seconds()/b.l.Seconds())
		r = append(r, o.wall.Seconds()/floor.wall.Seconds())
		c = append(c, o.cpu.Seconds()/floor.cpu.Seconds())
	}
	v.optrL, v.floorL, v.ratio, v.cpu = spreadOf(oL), spreadOf(fL), spreadOf(r), spreadOf(c)
	return v, nil
}
