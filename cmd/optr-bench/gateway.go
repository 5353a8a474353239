package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/optr-dev/optr/internal/gateway"
)

// streamAgentSource is the G1 agent: it calls Anthropic's Messages API at
// $ANTHROPIC_BASE_URL with $ANTHROPIC_API_KEY, streamed, n times one
// after another, reads each answer to its end, and prints each call's
// time to the answer's first byte and to its last, in microseconds; its
// last line is its own CPU time (user + system), so that optr's can be
// told from its agents': stream-agent PATH n. A first GET
// <base>/v1/warm holds until every agent has sent its own.
const streamAgentSource = `package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

const body = ` + "`" + `{"model":"claude-sonnet-4-5","max_tokens":1024,"stream":true,"messages":[{"role":"user","content":"Write the release notes of a change that makes the ledger faster to verify."}]}` + "`" + `

func main() {
	_, _ = io.Copy(io.Discard, os.Stdin)
	n, err := strconv.Atoi(os.Args[2])
	if err != nil {
		panic(err)
	}
	base, key := os.Getenv("ANTHROPIC_BASE_URL"), os.Getenv("ANTHROPIC_API_KEY")
	c := &http.Client{Transport: &http.Transport{Proxy: nil}}
	send := func(method, path string, payload string) (time.Duration, time.Duration) {
		req, err := http.NewRequest(method, base+path, strings.NewReader(payload))
		if err != nil {
			panic(err)
		}
		req.Header.Set("x-api-key", key)
		req.Header.Set("anthropic-version", "2023-06-01")
		req.Header.Set("content-type", "application/json")
		start := time.Now()
		res, err := c.Do(req)
		if err != nil {
			panic(err)
		}
		buf := make([]byte, 32<<10)
		var first time.Duration
		for {
			m, err := res.Body.Read(buf)
			if m > 0 && first == 0 {
				first = time.Since(start)
			}
			if err != nil {
				break
			}
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			panic(res.Status)
		}
		return first, time.Since(start)
	}
	send(http.MethodGet, "/v1/warm", "")
	for range n {
		first, all := send(http.MethodPost, os.Args[1], body)
		fmt.Println(first.Microseconds(), all.Microseconds())
	}
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	fmt.Println("cpu", (ru.Utime.Nano()+ru.Stime.Nano())/1000)
}
`

// The G1 upstream's pace, as a fast model streams: its first event after
// firstEvent, the next ones every eventGap.
const (
	firstEvent = 100 * time.Millisecond
	eventGap   = 20 * time.Millisecond
)

// gatewayEvents are the answer the G1 upstream streams: an Anthropic
// Messages stream of 40 text deltas (about 6 KB, 46 events).
func gatewayEvents() []string {
	ev := func(name, data string) string { return fmt.Sprintf("event: %s\ndata: %s\n\n", name, data) }
	out := []string{
		ev("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":30,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}}`),
		ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`),
	}
	for range 40 {
		out = append(out, ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"The ledger now verifies in a single streaming pass, hashing each line once."}}`))
	}
	return append(out,
		ev("content_block_stop", `{"type":"content_block_stop","index":0}`),
		ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":600}}`),
		ev("message_stop", `{"type":"message_stop"}`))
}

// gatewayStream streams gatewayEvents as a model's tokens come: the first
// after firstEvent, the others eventGap apart, each flushed.
func gatewayStream(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	f, _ := w.(http.Flusher)
	for i, e := range gatewayEvents() {
		if i == 0 {
			time.Sleep(firstEvent)
		} else {
			time.Sleep(eventGap)
		}
		_, _ = io.WriteString(w, e)
		if f != nil {
			f.Flush()
		}
	}
}

// meteringCPU is what metering one answer of gatewayEvents costs: the
// gateway's metering of it, event by event as it comes off the wire
// (gateway.MeterAnswer), timed over many answers on one goroutine.
func meteringCPU() (time.Duration, error) {
	events := gatewayEvents()
	const answers = 20_000
	start := cpuTime()
	for range answers {
		u, _, done, err := gateway.MeterAnswer(http.MethodPost, "/v1/messages", "text/event-stream", &pieces{events: events})
		if err != nil || !done || u.OutputTokens != 600 {
			return 0, fmt.Errorf("metering the G1 answer: %+v, done %v, %v", u, done, err)
		}
	}
	return (cpuTime() - start) / answers, nil
}

// pieces reads one event per Read, as a stream comes off the wire.
type pieces struct {
	events []string
	i, off int
}

func (p *pieces) Read(b []byte) (int, error) {
	if p.i == len(p.events) {
		return 0, io.EOF
	}
	n := copy(b, p.events[p.i][p.off:])
	if p.off += n; p.off == len(p.events[p.i]) {
		p.i, p.off = p.i+1, 0
	}
	return n, nil
}

// gatewayLatency is G1, the model gateway's cost: k command agents
// (streamAgentSource) start at once and each streams n answers of an
// Anthropic-shaped upstream on optr-bench's loopback, paced as a fast
// model streams (gatewayStream), in two runs of optr with the sandbox off
// (so that only the gateway differs): straight to the upstream (direct)
// and through the gateway (gateway: [anthropic]). The added latency per
// request is the gateway run's time to an answer's first byte, median and
// 99th percentile over every request, less the direct run's. Metering's
// share of the run's CPU is what metering an answer costs (meteringCPU)
// times the answers, over optr's CPU in the run through the gateway (the
// run's, less what its agents report for themselves). Each repetition
// runs the two in alternating order; the values are medians over the
// repetitions, with min–max.
func gatewayLatency(ctx context.Context, dir string, k, n, runs int) ([]row, error) {
	perAnswer, err := meteringCPU()
	if err != nil {
		return nil, err
	}
	const key = "bench-upstream-key-0123456789abcdef"
	lb, err := newLoopbackBench(ctx, dir, "stream-agent", streamAgentSource, k, "/v1/warm", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("x-api-key") != key {
			http.Error(w, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`, http.StatusUnauthorized)
			return
		}
		if r.URL.Path != "/v1/warm" {
			gatewayStream(w)
		}
	})
	if err != nil {
		return nil, err
	}
	defer lb.close()
	upstream := "http://" + lb.addr
	config := func(name, wiring, path string) (string, error) {
		var y strings.Builder
		fmt.Fprintf(&y, "executor: { max-parallel: %d }\nsandbox: { mode: off }\nprices:\n  claude-sonnet-4-5: { input: 3, output: 15 }\nagents:\n", k)
		for i := range k {
			fmt.Fprintf(&y, "  a%03d: { provider: command, run: [%q, %q, \"%d\"]%s }\n", i, lb.agent, path, n, wiring)
		}
		return lb.workspace("g1-"+name+"-", y.String())
	}
	type variant struct {
		name, ws string
	}
	var vs []variant
	for _, v := range []struct{ name, wiring, path string }{
		{"direct", "", "/v1/messages"},
		{"gateway", ", gateway: [anthropic]", "/v1/messages"},
	} {
		ws, err := config(v.name, v.wiring, v.path)
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(ws)
		vs = append(vs, variant{v.name, ws})
	}
	env := cleanEnv(map[string]string{"ANTHROPIC_BASE_URL": upstream, "ANTHROPIC_API_KEY": key})
	var addMed, addP99, gwMed, gwP99, dMed, dP99, addAll, share []float64
	var optrCPU [2][]float64
	for rep := range runs {
		var got [2]streamRun
		for i := range vs {
			j := (rep + i) % len(vs)
			r, err := streamRunOf(ctx, lb, vs[j].ws, env, rep, n*k)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", vs[j].name, err)
			}
			got[j] = r
		}
		d, g := got[0], got[1]
		dm, d99 := quantile(d.first, 0.5), quantile(d.first, 0.99)
		gm, g99 := quantile(g.first, 0.5), quantile(g.first, 0.99)
		dMed, dP99, gwMed, gwP99 = append(dMed, dm), append(dP99, d99), append(gwMed, gm), append(gwP99, g99)
		addMed, addP99 = append(addMed, gm-dm), append(addP99, g99-d99)
		addAll = append(addAll, quantile(g.all, 0.5)-quantile(d.all, 0.5))
		for i, r := range got {
			optrCPU[i] = append(optrCPU[i], r.optrCPU.Seconds()*1000)
		}
		share = append(share, 100*float64(perAnswer)*float64(n*k)/float64(g.optrCPU))
	}
	what := fmt.Sprintf("model gateway, K=%d agents × %d streamed answers (~6 KB, 46 events, the first after %s, then one every %s)", k, n, firstEvent, eventGap)
	medAdd, p99Add, sh := spreadOf(addMed), spreadOf(addP99), spreadOf(share)
	return []row{
		{id: "G1", what: what + ": added latency to the first byte, median",
			measured: fmt.Sprintf("through the gateway %s ms, direct %s ms", spreadOf(gwMed).format("%.2f"), spreadOf(dMed).format("%.2f")),
			value:    medAdd.format("%.2f") + " ms", goal: "≤ 1 ms", ok: medAdd.med <= 1},
		{id: "G1", what: what + ": added latency to the first byte, p99",
			measured: fmt.Sprintf("through the gateway %s ms, direct %s ms", spreadOf(gwP99).format("%.2f"), spreadOf(dP99).format("%.2f")),
			value:    p99Add.format("%.2f") + " ms", goal: "≤ 5 ms", ok: p99Add.med <= 5},
		{id: "G1", what: what + ": added time to the last byte, median",
			value: spreadOf(addAll).format("%.2f") + " ms"},
		{id: "G1", what: what + ": metering's share of optr's CPU in the run",
			measured: fmt.Sprintf("metering %.1f µs an answer × %d answers; optr's CPU through the gateway %s ms, direct %s ms",
				float64(perAnswer.Nanoseconds())/1000, n*k, spreadOf(optrCPU[1]).format("%.0f"), spreadOf(optrCPU[0]).format("%.0f")),
			value: sh.format("%.2f") + " %", goal: "≤ 2 %", ok: sh.med <= 2},
	}, nil
}

// streamRun is what one G1 run of optr measured.
type streamRun struct {
	// first and all are every request's time to its answer's first and
	// last byte, in milliseconds.
	first, all []float64
	// optrCPU is optr's own CPU: the run's, less its agents'.
	optrCPU time.Duration
}

// streamRunOf runs optr in ws once and reads its agents' outputs: want
// requests in all, each agent's CPU on its last line.
func streamRunOf(ctx context.Context, lb *loopbackBench, ws string, env []string, rep, want int) (streamRun, error) {
	var r streamRun
	u, err := lb.run(ctx, ws, env, rep, "stream", func(f string, res agentResult) error {
		for _, line := range strings.Split(strings.TrimSpace(res.Output), "\n") {
			fs := strings.Fields(line)
			if len(fs) != 2 {
				return fmt.Errorf("%s: output line %q", f, line)
			}
			a, err1 := strconv.ParseFloat(fs[0], 64)
			b, err2 := strconv.ParseFloat(fs[1], 64)
			switch {
			case fs[0] == "cpu" && err2 == nil:
				r.optrCPU -= time.Duration(b) * time.Microsecond
			case err1 != nil || err2 != nil:
				return fmt.Errorf("%s: output line %q", f, line)
			default:
				r.first, r.all = append(r.first, a/1000), append(r.all, b/1000)
			}
		}
		return nil
	})
	if err != nil {
		return streamRun{}, err
	}
	r.optrCPU += u.cpu
	if len(r.first) != want {
		return streamRun{}, fmt.Errorf("%d requests timed, want %d", len(r.first), want)
	}
	return r, nil
}
