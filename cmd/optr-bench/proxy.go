package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// proxyLatency is S1, the egress proxy's added latency per request: k
// command agents (httpAgentSource) start at once and each sends n GETs,
// one after another, to a server on optr-bench's loopback — with the
// sandbox on through the proxy (sandbox.network lists the server; in a
// network namespace of their own it is their only way out), with it off
// directly. The timed requests start once every agent has started (see
// httpAgentSource). Each repetition runs both, in alternating order; the value is
// the difference of their per-request latencies (median and 99th
// percentile over every request of the run), as the median over the
// repetitions with min–max.
func proxyLatency(ctx context.Context, dir string, k, n, runs int) ([]row, error) {
	lb, err := newLoopbackBench(ctx, dir, "http-agent", httpAgentSource, k, "/warm", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("ok\n"))
	})
	if err != nil {
		return nil, err
	}
	defer lb.close()
	addr := lb.addr
	config := func(sandbox string) (string, error) {
		var y strings.Builder
		fmt.Fprintf(&y, "executor: { max-parallel: %d }\n", k)
		if sandbox == sandboxOff {
			y.WriteString("sandbox: { mode: off }\n")
		} else {
			fmt.Fprintf(&y, "sandbox: { network: [%q], read: [%q] }\n", addr, dir)
		}
		y.WriteString("agents:\n")
		for i := range k {
			fmt.Fprintf(&y, "  a%03d: { provider: command, run: [%q, %q, \"%d\"] }\n", i, lb.agent, "http://"+addr+"/", n)
		}
		return lb.workspace("s1-"+sandbox+"-", y.String())
	}
	on, err := config(sandboxOn)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(on)
	off, err := config(sandboxOff)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(off)
	var addMed, addP99, onMed, onP99, offMed, offP99 []float64
	for rep := range runs {
		var proxied, direct []float64
		steps := []func() error{
			func() (err error) { proxied, err = latencies(ctx, lb, on, rep, addr, n); return err },
			func() (err error) { direct, err = latencies(ctx, lb, off, rep, "", n); return err },
		}
		for i := range steps {
			if err := steps[(rep+i)%2](); err != nil {
				return nil, err
			}
		}
		pm, p99 := quantile(proxied, 0.5), quantile(proxied, 0.99)
		dm, d99 := quantile(direct, 0.5), quantile(direct, 0.99)
		onMed, onP99, offMed, offP99 = append(onMed, pm), append(onP99, p99), append(offMed, dm), append(offP99, d99)
		addMed, addP99 = append(addMed, pm-dm), append(addP99, p99-d99)
	}
	what := fmt.Sprintf("proxy's added latency per request, K=%d agents × %d GETs to a loopback server", k, n)
	return []row{
		{id: "S1", what: what + ": median",
			measured: fmt.Sprintf("through the proxy %s ms, direct %s ms", spreadOf(onMed).format("%.2f"), spreadOf(offMed).format("%.2f")),
			value:    spreadOf(addMed).format("%.2f") + " ms"},
		{id: "S1", what: what + ": p99",
			measured: fmt.Sprintf("through the proxy %s ms, direct %s ms", spreadOf(onP99).format("%.2f"), spreadOf(offP99).format("%.2f")),
			value:    spreadOf(addP99).format("%.2f") + " ms"},
	}, nil
}

// latencies runs optr in ws once and returns every request's latency in
// milliseconds from its agents' outputs. With proxied set (the server's
// address), each agent's network record must show its n+1 requests
// through the proxy.
func latencies(ctx context.Context, lb *loopbackBench, ws string, rep int, proxied string, n int) ([]float64, error) {
	var ms []float64
	_, err := lb.run(ctx, ws, cleanEnv(nil), rep, "get", func(f string, res agentResult) error {
		got := 0
		for _, line := range strings.Fields(res.Output) {
			us, err := strconv.ParseFloat(line, 64)
			if err != nil {
				return fmt.Errorf("%s: output %q is not latencies", f, line)
			}
			ms = append(ms, us/1000)
			got++
		}
		if got != n {
			return fmt.Errorf("%s: %d latencies, want %d", f, got, n)
		}
		if proxied != "" && !slices.ContainsFunc(res.Network, func(h hostRecord) bool {
			return net.JoinHostPort(h.Host, strconv.Itoa(h.Port)) == proxied && h.Requests == n+1
		}) {
			return fmt.Errorf("%s: the proxy did not record %d requests to %s: %+v", f, n, proxied, res.Network)
		}
		return nil
	})
	return ms, err
}

// loopbackBench is what the benchmarks of a server on optr-bench's
// loopback (S1, G1) run on: optr and their agent program, built into
// dir, and the server.
type loopbackBench struct {
	dir, optr, agent string
	addr             string // the server's
	srv              *http.Server
}

// newLoopbackBench builds optr and the agent program name (source) into
// dir and serves h on optr-bench's loopback. A request to warm first
// waits until k have arrived: the agents' timed requests start together,
// after every agent started.
func newLoopbackBench(ctx context.Context, dir, name, source string, k int, warm string, h http.HandlerFunc) (*loopbackBench, error) {
	optr, err := buildOptr(ctx, dir)
	if err != nil {
		return nil, err
	}
	agent, err := buildProgram(ctx, dir, name, source)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	bar := &barrier{k: k, open: make(chan struct{})}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == warm {
			bar.wait(r.Context())
		}
		h(w, r)
	})}
	go srv.Serve(ln)
	return &loopbackBench{dir: dir, optr: optr, agent: agent, addr: ln.Addr().String(), srv: srv}, nil
}

// close stops the server.
func (lb *loopbackBench) close() { lb.srv.Close() }

// workspace makes a directory under lb's, its name starting with prefix,
// whose optr.yml is config.
func (lb *loopbackBench) workspace(prefix, config string) (string, error) {
	ws, err := os.MkdirTemp(lb.dir, prefix)
	if err != nil {
		return "", err
	}
	return ws, os.WriteFile(filepath.Join(ws, "optr.yml"), []byte(config), 0o644)
}

// agentResult is what a loopback benchmark reads of an agent's result.
type agentResult struct {
	Output  string       `json:"output"`
	Network []hostRecord `json:"network"`
}

// run runs optr's bench workflow on intent in ws once, with env, in a
// datalake of its own (rep names it), and calls each with every agent's
// result and its file. It returns the run's usage.
func (lb *loopbackBench) run(ctx context.Context, ws string, env []string, rep int, intent string, each func(file string, res agentResult) error) (usage, error) {
	dl := filepath.Join(ws, fmt.Sprintf("lake-%d", rep))
	defer os.RemoveAll(dl)
	u, err := measure(ctx, ws, env, lb.optr, "run", "--config", "optr.yml", "--workflow", "bench",
		"--intent", intent, "--datalake", dl, "--interactive", "never")
	if err != nil {
		return usage{}, err
	}
	files, _ := filepath.Glob(filepath.Join(dl, "workflows", "bench", "runs", "*", "agent-outputs", "*.json"))
	if len(files) == 0 {
		return usage{}, fmt.Errorf("no agent outputs under %s", dl)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return usage{}, err
		}
		var res agentResult
		if err := json.Unmarshal(b, &res); err != nil {
			return usage{}, fmt.Errorf("%s: %w", f, err)
		}
		if err := each(f, res); err != nil {
			return usage{}, err
		}
	}
	return u, nil
}

// barrier holds requests until k arrived, then lets them all go, and
// starts over.
type barrier struct {
	mu   sync.Mutex
	k, n int
	open chan struct{}
}

func (b *barrier) wait(ctx context.Context) {
	b.mu.Lock()
	open := b.open
	if b.n++; b.n == b.k {
		close(open)
		b.n, b.open = 0, make(chan struct{})
	}
	b.mu.Unlock()
	select {
	case <-open:
	case <-ctx.Done():
	}
}

// hostRecord is an entry of an agent result's network.
type hostRecord struct {
	Host     string `json:"host"`
	Port     int    `json:"port"`
	Requests int    `json:"requests"`
}

// quantile is the q-quantile of xs (nearest rank).
func quantile(xs []float64, q float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	i := int(q*float64(len(s))+0.5) - 1
	return s[min(max(i, 0), len(s)-1)]
}
