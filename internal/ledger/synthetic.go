package ledger

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"time"
)

// WriteSynthetic writes a valid ledger of n realistic run entries to w and
// returns its head. Each entry records three agents with their scores,
// timings and output hashes, like a real run; the content is pseudo-random
// but the same for the same n. It exists for benchmarks and load tests, and
// writes several hundred thousand entries a second.
func WriteSynthetic(w io.Writer, n int) (Head, error) {
	return WriteSyntheticWith(w, n, SyntheticOptions{})
}

// SyntheticOptions shape the entries WriteSyntheticWith writes.
type SyntheticOptions struct {
	// Time, when set, is entry i's time (from 0); times must not go
	// backwards. Unset, entry i is recorded i seconds after 2026-01-01.
	Time func(i int) time.Time
	// Spend records what each run spent, as optr does since architecture §4.17:
	// the run's totals (tokens, cost_usd), its mode and status, and each
	// result's status, attempts, tokens and cost (the copilot agent's cost
	// unknown, as a model no price covers leaves it).
	Spend bool
	// Outcomes makes every run open a pull request (its results naming
	// their models) and every other entry the outcome of the run just
	// before it (architecture §4.19): merged three times in four, else
	// closed. n entries are then n/2 pull requests.
	Outcomes bool
}

// WriteSyntheticWith is WriteSynthetic with entries shaped by o.
func WriteSyntheticWith(w io.Writer, n int, o SyntheticOptions) (Head, error) {
	if n < 0 {
		return Head{}, fmt.Errorf("write synthetic ledger: entry count %d is negative", n)
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	g := newSynth()
	g.opts = o
	var head Head
	var buf []byte
	for i := range n {
		r := g.next(i)
		var line []byte
		line, buf, head = r.appendLine(buf[:0], head)
		if _, err := bw.Write(line); err != nil {
			return Head{}, fmt.Errorf("write synthetic ledger: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return Head{}, fmt.Errorf("write synthetic ledger: %w", err)
	}
	return head, nil
}

var (
	synthAgents      = [3]string{"claude", "codex", "copilot"}
	synthModels      = [3]string{"claude-sonnet-4-5", "gpt-5-codex", "gpt-5"}
	synthConstraints = []string{"json", "max-length", "no-secrets", "tests-pass"}
	synthEpoch       = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
)

// synth generates the content of synthetic run entries.
type synth struct {
	rng  *rand.Rand
	opts SyntheticOptions
	// last is the last run made, whose outcome may follow it.
	last synthRun
}

func newSynth() *synth { return &synth{rng: rand.New(rand.NewPCG(1, 2))} }

type synthRun struct {
	run, workflow, selected string
	intent, commit          string
	time                    time.Time
	constraints             []string
	results                 [3]synthResult
	// spend: the entry records what the run spent (SyntheticOptions.Spend).
	spend   bool
	tokens  int64
	costUSD float64
	// pull is the pull request the run opened (SyntheticOptions.Outcomes),
	// 0 for none; outcome, when set, makes the entry that pull request's
	// outcome instead of a run.
	pull    int64
	outcome *synthOutcome
}

// synthOutcome is the outcome entry of a synthetic run's pull request.
type synthOutcome struct {
	what, agent, model, commit string
	at                         time.Time
	openMS                     int64
	costUSD                    *float64
}

// synthResult mirrors what the executor records for one agent. The JSON
// tags make it usable as a Draft field, so tests can compare the fast
// encoding below with Chain's.
type synthResult struct {
	Admissible   bool     `json:"admissible"`
	Agent        string   `json:"agent"`
	Attempts     int64    `json:"attempts,omitempty"`
	CostUSD      *float64 `json:"cost_usd,omitempty"`
	ExecMS       int64    `json:"exec_ms"`
	Invariants   []string `json:"invariants"`
	Model        string   `json:"model,omitempty"`
	OutputSHA256 string   `json:"output_sha256"`
	Score        float64  `json:"score"`
	Status       string   `json:"status,omitempty"`
	TokensIn     int64    `json:"tokens_in,omitempty"`
	TokensOut    int64    `json:"tokens_out,omitempty"`
	TTVMS        int64    `json:"ttv_ms"`
}

func (g *synth) hex(n int) string {
	var b [32]byte
	for i := 0; i < len(b); i += 8 {
		binary.LittleEndian.PutUint64(b[i:], g.rng.Uint64())
	}
	return hex.EncodeToString(b[:n/2])
}

func (g *synth) next(i int) synthRun {
	if g.opts.Outcomes && i%2 == 1 {
		return g.outcomeOf(i, g.last)
	}
	r := synthRun{
		run:         strconv.Itoa(9000000000+i) + "-1",
		workflow:    "issue-" + strconv.Itoa(i%997),
		intent:      g.hex(64),
		commit:      g.hex(40),
		time:        synthEpoch.Add(time.Duration(i)*time.Second + time.Duration(g.rng.IntN(1000))*time.Millisecond),
		constraints: synthConstraints[:1+g.rng.IntN(len(synthConstraints))],
		spend:       g.opts.Spend,
	}
	if g.opts.Time != nil {
		r.time = g.opts.Time(i)
	}
	best := -1.0
	for k := range r.results {
		admissible := g.rng.IntN(4) > 0
		inv := r.constraints
		if !admissible {
			inv = inv[:len(inv)-1]
		}
		res := synthResult{
			Admissible:   admissible,
			Agent:        synthAgents[k],
			ExecMS:       int64(g.rng.IntN(120000)),
			Invariants:   inv,
			OutputSHA256: g.hex(64),
			Score:        float64(g.rng.IntN(10001)) / 100,
			TTVMS:        int64(g.rng.IntN(120000)),
		}
		if admissible && res.Score > best {
			best, r.selected = res.Score, res.Agent
		}
		if r.spend {
			res.Attempts, res.Status = 1, "succeeded"
			res.TokensIn, res.TokensOut = int64(500+g.rng.IntN(20000)), int64(100+g.rng.IntN(4000))
			r.tokens += res.TokensIn + res.TokensOut
			if res.Agent != "copilot" {
				usd := float64(1+g.rng.IntN(5000)) / 1e4 // $0.0001 to $0.5
				res.CostUSD = &usd
				r.costUSD += usd
			}
		}
		if g.opts.Outcomes {
			res.Model = synthModels[k]
		}
		r.results[k] = res
	}
	if g.opts.Outcomes {
		r.pull = int64(i/2 + 1)
	}
	g.last = r
	return r
}

// outcomeOf is entry i: the outcome of run r's pull request.
func (g *synth) outcomeOf(i int, r synthRun) synthRun {
	o := &synthOutcome{what: "merged", agent: r.selected, openMS: int64(60_000 + g.rng.IntN(3*24*3600_000))}
	if g.rng.IntN(4) == 0 || r.selected == "" {
		o.what = "closed"
	} else {
		o.commit = g.hex(40)
	}
	for k, res := range r.results {
		if res.Agent == r.selected {
			o.model = synthModels[k]
		}
	}
	if r.spend && r.selected != "copilot" {
		usd := r.costUSD
		o.costUSD = &usd
	}
	out := synthRun{run: r.run, workflow: r.workflow, pull: r.pull, outcome: o,
		time: synthEpoch.Add(time.Duration(i)*time.Second + time.Duration(g.rng.IntN(1000))*time.Millisecond)}
	if g.opts.Time != nil {
		out.time = g.opts.Time(i)
	}
	o.at = out.time.Add(-time.Minute).Truncate(time.Second)
	return out
}

// draft is the same entry as a Draft, for Chain.
func (r synthRun) draft() Draft {
	if o := r.outcome; o != nil {
		f := map[string]any{"agent": o.agent, "at": o.at.UTC().Format(time.RFC3339), "by": "maintainer", "by_type": "User",
			"iterations": int64(1), "open_ms": o.openMS, "outcome": o.what, "pull_request": r.pull, "source": "event"}
		if o.model != "" {
			f["model"] = o.model
		}
		if o.commit != "" {
			f["commit"] = o.commit
		}
		if o.costUSD != nil {
			f["change_cost_usd"] = *o.costUSD
		}
		return Draft{Kind: KindOutcome, Run: r.run, Workflow: r.workflow, Time: r.time, Fields: f}
	}
	d := Draft{
		Kind: KindRun, Run: r.run, Workflow: r.workflow, Time: r.time,
		Fields: map[string]any{
			"commit":        r.commit,
			"constraints":   r.constraints,
			"intent_sha256": r.intent,
			"results":       r.results[:],
			"selected":      r.selected,
		},
	}
	if r.spend {
		d.Fields["mode"], d.Fields["status"] = "select", "completed"
		d.Fields["tokens"], d.Fields["cost_usd"] = r.tokens, r.costUSD
	}
	if r.pull > 0 {
		d.Fields["pull_request"], d.Fields["iteration"] = r.pull, int64(1)
	}
	return d
}

// appendLine encodes the entry that follows head straight into canonical
// bytes, keys in sorted order, without the generic encoder: Chain costs
// tens of microseconds an entry, far too slow for a million-entry
// benchmark. The output is held to Chain's by TestSyntheticMatchesChain.
// It returns the line, the scratch buffer for reuse, and the new head.
func (r synthRun) appendLine(buf []byte, head Head) (line, scratch []byte, next Head) {
	if r.outcome != nil {
		return r.appendOutcome(buf, head)
	}
	seq := head.Seq + 1
	// The entry without its hash: the members before "hash", then the rest.
	b := append(buf, `{"commit":"`...)
	b = append(b, r.commit...)
	b = append(b, `","constraints":`...)
	b = appendStrings(b, r.constraints)
	b = append(b, ',')
	if r.spend {
		b = append(b, `"cost_usd":`...)
		b = appendNumber(b, r.costUSD)
		b = append(b, ',')
	}
	cut := len(b)
	b = append(b, `"intent_sha256":"`...)
	b = append(b, r.intent...)
	b = append(b, `",`...)
	if r.pull > 0 {
		b = append(b, `"iteration":1,`...)
	}
	b = append(b, `"kind":"run",`...)
	if r.spend {
		b = append(b, `"mode":"select",`...)
	}
	b = append(b, `"prev":"`...)
	b = append(b, head.prevHash()...)
	b = append(b, `",`...)
	if r.pull > 0 {
		b = append(b, `"pull_request":`...)
		b = strconv.AppendInt(b, r.pull, 10)
		b = append(b, ',')
	}
	b = append(b, `"results":[`...)
	for k, res := range r.results {
		if k > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"admissible":`...)
		b = strconv.AppendBool(b, res.Admissible)
		b = append(b, `,"agent":"`...)
		b = append(b, res.Agent...)
		b = append(b, '"')
		if r.spend {
			b = append(b, `,"attempts":`...)
			b = strconv.AppendInt(b, res.Attempts, 10)
			if res.CostUSD != nil {
				b = append(b, `,"cost_usd":`...)
				b = appendNumber(b, *res.CostUSD)
			}
		}
		b = append(b, `,"exec_ms":`...)
		b = strconv.AppendInt(b, res.ExecMS, 10)
		b = append(b, `,"invariants":`...)
		b = appendStrings(b, res.Invariants)
		if res.Model != "" {
			b = append(b, `,"model":"`...)
			b = append(b, res.Model...)
			b = append(b, '"')
		}
		b = append(b, `,"output_sha256":"`...)
		b = append(b, res.OutputSHA256...)
		b = append(b, `","score":`...)
		// Scores lie in [0, 100]: there ECMAScript prints the shortest
		// round-tripping decimal, which is what 'f' with precision -1 gives.
		b = strconv.AppendFloat(b, res.Score, 'f', -1, 64)
		if r.spend {
			b = append(b, `,"status":"`...)
			b = append(b, res.Status...)
			b = append(b, `","tokens_in":`...)
			b = strconv.AppendInt(b, res.TokensIn, 10)
			b = append(b, `,"tokens_out":`...)
			b = strconv.AppendInt(b, res.TokensOut, 10)
		}
		b = append(b, `,"ttv_ms":`...)
		b = strconv.AppendInt(b, res.TTVMS, 10)
		b = append(b, '}')
	}
	b = append(b, `],"run":"`...)
	b = append(b, r.run...)
	b = append(b, `","selected":"`...)
	b = append(b, r.selected...)
	b = append(b, `","seq":`...)
	b = strconv.AppendInt(b, seq, 10)
	if r.spend {
		b = append(b, `,"status":"completed"`...)
	}
	b = append(b, `,"time":"`...)
	b = r.time.UTC().AppendFormat(b, timeLayout)
	b = append(b, '"')
	if r.spend {
		b = append(b, `,"tokens":`...)
		b = strconv.AppendInt(b, r.tokens, 10)
	}
	b = append(b, `,"workflow":"`...)
	b = append(b, r.workflow...)
	b = append(b, `"}`...)
	return spliceHash(b, cut, seq)
}

// spliceHash hashes the entry b (without its hash member, which goes at
// cut) and returns its line, the scratch buffer and the new head.
func spliceHash(b []byte, cut int, seq int64) (line, scratch []byte, next Head) {
	noHash := len(b)
	sum := sha256.Sum256(b)
	hashHex := hex.EncodeToString(sum[:])
	// The line: the same bytes with the hash member spliced in at cut.
	b = append(b, b[:cut]...)
	b = append(b, `"hash":"`...)
	b = append(b, hashHex...)
	b = append(b, `",`...)
	b = append(b, b[cut:noHash]...)
	b = append(b, '\n')
	return b[noHash:], b, Head{Seq: seq, Hash: hashHex}
}

// appendOutcome is appendLine of an outcome entry.
func (r synthRun) appendOutcome(buf []byte, head Head) (line, scratch []byte, next Head) {
	o, seq := r.outcome, head.Seq+1
	b := append(buf, `{"agent":"`...)
	b = append(b, o.agent...)
	b = append(b, `","at":"`...)
	b = o.at.UTC().AppendFormat(b, time.RFC3339)
	b = append(b, `","by":"maintainer","by_type":"User",`...)
	if o.costUSD != nil {
		b = append(b, `"change_cost_usd":`...)
		b = appendNumber(b, *o.costUSD)
		b = append(b, ',')
	}
	if o.commit != "" {
		b = append(b, `"commit":"`...)
		b = append(b, o.commit...)
		b = append(b, `",`...)
	}
	cut := len(b)
	b = append(b, `"iterations":1,"kind":"outcome",`...)
	if o.model != "" {
		b = append(b, `"model":"`...)
		b = append(b, o.model...)
		b = append(b, `",`...)
	}
	b = append(b, `"open_ms":`...)
	b = strconv.AppendInt(b, o.openMS, 10)
	b = append(b, `,"outcome":"`...)
	b = append(b, o.what...)
	b = append(b, `","prev":"`...)
	b = append(b, head.prevHash()...)
	b = append(b, `","pull_request":`...)
	b = strconv.AppendInt(b, r.pull, 10)
	b = append(b, `,"run":"`...)
	b = append(b, r.run...)
	b = append(b, `","seq":`...)
	b = strconv.AppendInt(b, seq, 10)
	b = append(b, `,"source":"event","time":"`...)
	b = r.time.UTC().AppendFormat(b, timeLayout)
	b = append(b, `","workflow":"`...)
	b = append(b, r.workflow...)
	b = append(b, `"}`...)
	return spliceHash(b, cut, seq)
}

// appendNumber appends a non-negative number of at most a few thousand:
// there ECMAScript, hence RFC 8785, prints the shortest round-tripping
// decimal, which is what 'f' with precision -1 gives (for values of at
// least 1e-6, which costs are).
func appendNumber(b []byte, v float64) []byte { return strconv.AppendFloat(b, v, 'f', -1, 64) }

// appendStrings appends a JSON array of strings that need no escaping.
func appendStrings(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, s...)
		b = append(b, '"')
	}
	return append(b, ']')
}
