package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/inputfile"
	"github.com/optr-dev/optr/internal/pipeline"
	"github.com/optr-dev/optr/internal/provider"
)

const configUsage = `optr config check|default [flags]

check    reads the config (--config, default .github/optr.yml; without that
         file, the embedded default) and checks it as a run would before
         any agent starts: the file against its rules and its JSON Schema,
         every pipeline resolved, every agent built and asked whether it
         can work here (its key, its program), every check's program and
         schema file, the ledger and datalake, the sandbox's layers. It
         prints the effective config, every default filled in, on stdout
         (save it as .github/optr.yml and it means the same) and what it
         found on stderr. Exits 0 when a run would start here, 2 naming
         every problem when it would be refused.
default  prints the embedded default config: what a run uses when
         .github/optr.yml does not exist, for the keys set here.`

// configFlags are the flags of optr config.
type configFlags struct {
	config, datalake, ledger string
}

func (c *CLI) cmdConfig(ctx context.Context, args []string) error {
	var f configFlags
	fs := c.flags("config")
	fs.StringVar(&f.config, "config", config.DefaultPath, "check: the config file (without it the embedded default is checked)")
	fs.StringVar(&f.datalake, "datalake", ".optr", "check: the datalake a run would write")
	fs.StringVar(&f.ledger, "ledger", "", "check: the ledger a run would append to (default <datalake>/ledger.jsonl)")
	if err := c.parse(fs, configUsage, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		c.printUsage(c.Stderr, fs, configUsage)
		return usageErr(errors.New("config needs a subcommand: check or default"))
	}
	switch sub := fs.Arg(0); sub {
	case "check":
		return c.configCheck(ctx, f, fs.Changed("config"))
	case "default":
		for _, name := range []string{"config", "datalake", "ledger"} {
			if fs.Changed(name) {
				return usageErr(fmt.Errorf("--%s does not apply to config default", name))
			}
		}
		return c.configDefault()
	default:
		return usageErr(fmt.Errorf("unknown config subcommand %q (want check or default)", sub))
	}
}

// configDefault prints the embedded default as a config file, with a
// header saying which agents depend on which keys.
func (c *CLI) configDefault() error {
	cfg := config.Default(c.Getenv)
	text, err := cfg.YAML()
	if err != nil {
		return err
	}
	fmt.Fprintf(c.Stdout, "# optr's embedded default: the config a run uses when %s does not exist.\n", config.DefaultPath)
	fmt.Fprintf(c.Stdout, "# Its agents: %s.\n", defaultAgentsSaid(c.Getenv))
	fmt.Fprintln(c.Stdout, "# Every default is filled in; saved as a file it means the same.")
	_, err = io.WriteString(c.Stdout, withNewline(text))
	return err
}

// withNewline is text ending in one newline.
func withNewline(text []byte) string { return strings.TrimRight(string(text), "\n") + "\n" }

// defaultAgentsSaid says which agents the embedded default has, and on
// which keys set here.
func defaultAgentsSaid(getenv func(string) string) string {
	var parts []string
	for _, p := range provider.Defaults() {
		switch {
		case p.DefaultAlways:
			parts = append(parts, p.DefaultAgent+" ("+p.Name+") always")
		case len(p.KeyEnv) > 0:
			here := "not set here"
			if getenv(p.KeyEnv[0]) != "" {
				here = "set here"
			}
			parts = append(parts, fmt.Sprintf("%s (%s) when %s is set (%s)", p.DefaultAgent, p.Name, p.KeyEnv[0], here))
		}
	}
	return strings.Join(parts, "; ")
}

// configCheck checks the config as a run would before any agent starts.
func (c *CLI) configCheck(ctx context.Context, f configFlags, explicit bool) error {
	cfg, err := c.loadConfig(f.config, explicit)
	if err != nil {
		return err
	}
	say := func(format string, args ...any) { fmt.Fprintf(c.Stderr, "optr: "+format+"\n", args...) }
	var problems []error
	if cfg.Path == "" {
		say("%s does not exist: checking the embedded default (`optr config default` prints it)", f.config)
	} else {
		if err := schemaCheck(cfg.Path); err != nil {
			problems = append(problems, err)
		}
		say("%s: valid", cfg.Path)
	}
	wd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("find the working directory: %w", err)
	}
	pipelines := append([]string{""}, slices.Sorted(maps.Keys(cfg.Pipelines))...)
	unusable := map[string]agent.Failure{}
	var layers string
	var notes, warnings []string
	for _, name := range pipelines {
		if name == "" && len(cfg.Candidates()) == 0 && len(cfg.Pipelines) > 0 {
			say("the default pipeline: no agent of its own (every agent is a stage): runs name a pipeline with --pipeline")
			continue
		}
		spec := pipeline.Spec{
			Config: cfg, Workflow: "config-check", RunID: "config-check", Intent: "optr config check",
			Pipeline: name, Datalake: f.datalake, LedgerPath: ledgerPath(f.ledger, f.datalake), Dir: wd, ConfigPath: f.config,
		}
		p, err := pipeline.Prepare(spec, c.quietDeps())
		if err != nil {
			problems = append(problems, fmt.Errorf("%s: %w", pipelineSaid(name), err))
			continue
		}
		for _, u := range p.Unusable() {
			unusable[u.Agent] = u
		}
		w, err := p.Preflight(ctx)
		warnings = append(warnings, w...)
		if err != nil {
			problems = append(problems, fmt.Errorf("%s: %w", pipelineSaid(name), err))
			continue
		}
		l, n := p.Sandbox()
		layers, notes = l.String(), n
		say("%s: %s", pipelineSaid(name), membersSaid(p))
	}
	for _, name := range cfg.AgentNames {
		if u, ok := unusable[name]; ok {
			say("%s", agent.Problem(u.Message))
		}
	}
	for _, w := range dedupeStrings(warnings) {
		say("%s", w)
	}
	if layers != "" {
		say("%s", layers)
		for _, n := range notes {
			say("sandbox: %s", n)
		}
	}
	text, err := cfg.YAML()
	if err != nil {
		return err
	}
	src := "the embedded default"
	if cfg.Path != "" {
		src = cfg.Path
	}
	fmt.Fprintf(c.Stdout, "# The effective config of %s: every default filled in.\n%s", src, withNewline(text))
	if len(problems) > 0 {
		return usageErr(fmt.Errorf("a run with this config would be refused here:\n%w", errors.Join(problems...)))
	}
	say("a run with this config would start here")
	return nil
}

// schemaCheck validates the config file at path against the JSON Schema
// editors check it with; config.Parse accepted it already, so a refusal
// here is a disagreement worth a report.
func schemaCheck(path string) error {
	data, err := inputfile.ReadFile(path, config.MaxFileSize)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	if err := config.ValidateSchema(data); err != nil {
		return fmt.Errorf("%s: the JSON Schema (internal/config/schema.json) refuses it: %w", path, err)
	}
	return nil
}

// membersSaid says what a prepared run's mode runs: its agents in order,
// and the coordinator that plans for them when it has one.
func membersSaid(p *pipeline.Prepared) string {
	pl := p.Pipeline()
	agents := pl.Agents
	if len(agents) == 0 {
		agents = p.AgentNames
	}
	s := p.Traits().Name + " over " + strings.Join(agents, ", ")
	if pl.Coordinator != "" {
		s += ", planned by " + pl.Coordinator
	}
	return s
}

// pipelineSaid names a pipeline in a report line.
func pipelineSaid(name string) string {
	if name == "" {
		return "the default pipeline"
	}
	return "pipeline " + name
}

// quietDeps are the deps of a command that prepares runs without running
// them: no log lines.
func (c *CLI) quietDeps() pipeline.Deps {
	d := c.deps()
	d.Logf = func(string, ...any) {}
	d.Stderr = io.Discard
	return d
}

// dedupeStrings keeps the first of each string, in order.
func dedupeStrings(in []string) []string {
	var out []string
	for _, s := range in {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
