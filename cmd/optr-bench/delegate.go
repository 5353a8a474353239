package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/optr-dev/optr/internal/agent/command"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/delegate"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/status"
)

// delegateTopics are the topics of the delegate benchmark's plan.
var delegateTopics = []string{"Hash chains", "Witnesses", "Checkpoints", "Verification cost"}

// delegateBench runs a delegate run whose coordinator plans four topics
// and whose four command specialists each take l and write a report of
// about 10 KB. It reports P5, the context reduction (goal ≥ 96%), and P6,
// wall time / (coordinator time + l) (goal ≤ 1.05; one specialist after
// another it would be about 4).
func delegateBench(ctx context.Context, dir string, l time.Duration) ([]row, error) {
	ws := filepath.Join(dir, "delegate")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		return nil, err
	}
	var plan strings.Builder
	fmt.Fprintf(&plan, "%s: %d\n[", delegate.SignalPlanReady, len(delegateTopics))
	for i, t := range delegateTopics {
		if i > 0 {
			plan.WriteString(",")
		}
		fmt.Fprintf(&plan, `{"topic":%q,"focus":"the facts"}`, t)
	}
	plan.WriteString("]\n" + delegate.SignalComplete + ": SUCCESS\n")
	// The coordinator and each specialist are one shell and one program
	// (cat, sleep): their fixed cost is the same, so the ratio shows what
	// delegation adds. Specialist i gets topic i and writes its report from
	// its environment with the shell's own printf.
	cfg := &config.Config{Agents: map[string]config.Agent{
		"planner": {Provider: config.ProviderCommand, Run: []string{"sh", "-c", `printf '%s' "$PLAN"`}, Env: map[string]string{"PLAN": plan.String()}},
	}, AgentNames: []string{"planner"}}
	specialist := fmt.Sprintf(`printf '%%s' "$REPORT" >"$OPTR_REPORT_PATH" && echo "REPORT_CREATED: $OPTR_REPORT_PATH" && exec sleep %.3f`, l.Seconds())
	var agents []string
	for i, t := range delegateTopics {
		n := fmt.Sprintf("s%d", i+1)
		cfg.Agents[n] = config.Agent{Provider: config.ProviderCommand, Run: []string{"sh", "-c", specialist},
			Env: map[string]string{"REPORT": benchReport(t, 10_000)}}
		agents = append(agents, n)
	}
	env := os.Environ()
	in := delegate.Input{
		Config:   cfg,
		Pipeline: config.Pipeline{Mode: config.ModeDelegate, Coordinator: "planner", Agents: agents, MaxTopics: 4, Candidates: 1, Threshold: 0.5},
		Intent:   "How do ledgers stay honest?", Workflow: "bench", RunID: "p5",
		Datalake: filepath.Join(ws, ".optr"), Dir: ws,
		Task: func(name string) (executor.Task, error) {
			a, err := command.New(name, cfg.Agents[name], command.Options{Environ: env})
			return executor.Task{Agent: a, Provider: config.ProviderCommand, Timeout: time.Minute}, err
		},
		Exec: executor.Options{MaxParallel: 8},
	}
	start := time.Now()
	o, err := delegate.Run(ctx, in)
	wall := time.Since(start)
	if err != nil {
		return nil, err
	}
	if o.Status != status.Completed || o.Warned() {
		return nil, fmt.Errorf("delegate run %s: %s", o.Status, o.Message)
	}
	coord := time.Duration(o.Coordinator.ExecMS) * time.Millisecond
	var slowest time.Duration
	for _, r := range o.Results[1:] {
		slowest = max(slowest, time.Duration(r.ExecMS)*time.Millisecond)
	}
	ratio := wall.Seconds() / (coord + l).Seconds()
	return []row{
		{
			id: "P5", what: fmt.Sprintf("context reduction, %d reports", len(o.Topics)),
			measured: fmt.Sprintf("%d B metadata / %d B reports", o.MetadataBytes, o.ReportBytes),
			value:    delegate.Percent(o.ContextReduction) + "%", goal: "≥ 96%", ok: o.ContextReduction >= 0.96,
		},
		{
			id: "P6", what: fmt.Sprintf("delegate wall, %d specialists, L=%s", len(o.Topics), l),
			measured: fmt.Sprintf("wall %s = coordinator %s + slowest specialist %s (L + its process start) + %s optr",
				wall.Round(time.Millisecond), coord.Round(time.Millisecond), slowest.Round(time.Millisecond), (wall - coord - slowest).Round(time.Millisecond)),
			value: fmt.Sprintf("%.3f (seq ≈ %d)", ratio, len(o.Topics)), goal: "≤ 1.05", ok: ratio <= 1.05,
		},
	}, nil
}

// benchReport is a valid report of about size bytes: frontmatter, a
// summary, findings, recommendations and sources of realistic prose.
func benchReport(topic string, size int) string {
	const finding = "- The ledger keeps every entry with the hash of the one before it, so a verifier that recomputes the chain notices any change, removal or reordering at the first altered line, and an appender needs only the last hash to extend it.\n"
	n := max((size-600)/len(finding), 1)
	var b strings.Builder
	fmt.Fprintf(&b, "---\nreport_type: research\ntopic: %q\nfindings_count: %d\nrecommendations_count: 2\ncreated_date: 2026-11-23\nstatus: complete\n---\n", topic, n)
	fmt.Fprintf(&b, "# %s\n\n## Summary\n\nWhat the sources say about %s, in %d findings.\n\n## Findings\n\n", topic, strings.ToLower(topic), n)
	for range n {
		b.WriteString(finding)
	}
	b.WriteString("\n## Recommendations\n\n- Verify the chain after every fetch.\n- Compare the head with a published checkpoint.\n\n## Sources\n\n- RFC 6962\n- C2SP tlog-checkpoint\n")
	return b.String()
}
