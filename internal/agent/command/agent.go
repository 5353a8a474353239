package command

import (
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/optr-dev/optr/internal/agent"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/gateway"
	"github.com/optr-dev/optr/internal/preset"
	"github.com/optr-dev/optr/internal/redact"
	"github.com/optr-dev/optr/internal/sandbox"
)

// Default limits.
const (
	// DefaultMaxOutput bounds stdout with frames removed (64 MiB, the
	// default of executor.max-output).
	DefaultMaxOutput = 64 << 20
	// DefaultInMemory is the largest output kept in memory when the
	// request names a SpoolDir (1 MiB); a larger one is spooled to disk.
	// It is not below the size up to which the datalake indents JSON, so a
	// spooled output's agent file is always the compact encoding.
	DefaultInMemory = 1 << 20
	// DefaultMaxStderr bounds the tail of stderr kept in Response.Stderr.
	DefaultMaxStderr = 64 << 10
	// DefaultKillGrace is the time between SIGTERM and SIGKILL.
	DefaultKillGrace = 3 * time.Second
)

// Options are an Agent's dependencies and limits. The zero value is usable.
type Options struct {
	// Environ is the base environment, as "KEY=value" pairs, that the
	// configured env and the OPTR_* variables are added to. Nil means
	// os.Environ() at each Run; an empty, non-nil slice means none.
	Environ []string
	// Logger receives malformed control frames and other things worth a
	// warning that do not fail the attempt. Nil means slog.Default().
	Logger *slog.Logger
	// MaxOutput bounds stdout with frames removed (default DefaultMaxOutput).
	MaxOutput int
	// InMemory is the largest output kept in memory when the request names
	// a SpoolDir (default DefaultInMemory).
	InMemory int
	// MaxStderr bounds the tail of stderr kept (default DefaultMaxStderr).
	MaxStderr int
	// KillGrace is how long a stopped process group gets between SIGTERM
	// and SIGKILL, and how long Run waits for stdout and stderr to close
	// after the process ended (default DefaultKillGrace).
	KillGrace time.Duration
	// Sandbox, when set, starts every attempt (architecture §4.14): its
	// environment is built, not inherited (Environ is not used), and the
	// process is confined. Nil runs attempts as before, unconfined.
	Sandbox *sandbox.Run
	// Redactor removes secrets from stdout and stderr before they are cut
	// to MaxOutput and MaxStderr, so that no piece of a key split by the cut
	// escapes, and from stdout on its way to a spool file, a key split
	// across reads included (nil redacts nothing; the caller redacts the
	// in-memory response again).
	Redactor *redact.Redactor
	// Gateway, when set, is the agent's place at the run's model gateway
	// (its gateway: list, architecture §4.18): every attempt gets its
	// providers' base URLs pointing at optr and placeholder keys, and what
	// the attempt spends is metered. Nil: its use is unknown.
	Gateway *gateway.Badge
}

// Agent is a configured command agent. It is safe for concurrent use: every
// Run is a separate process.
type Agent struct {
	name    string
	argv    []string
	env     map[string]string
	passEnv []string
	timeout time.Duration
	opts    Options
	// model is the agent's configured model, "" when its config names
	// none (its result then names the one the gateway saw answer).
	model string
	// preset is the CLI's preset, nil for a plain command.
	preset *preset.Preset
}

var _ agent.Agent = (*Agent)(nil)

// New returns the command agent name configured by cfg. The executable is
// looked up at each Run, on the PATH of the environment it runs with.
func New(name string, cfg config.Agent, opts Options) (*Agent, error) {
	if cfg.Provider != "" && cfg.Provider != config.ProviderCommand {
		return nil, fmt.Errorf("agents.%s: provider is %q, not %q", name, cfg.Provider, config.ProviderCommand)
	}
	argv, env := cfg.Run, cfg.Env
	var pre *preset.Preset
	if cfg.Preset != "" {
		p, ok := preset.Lookup(cfg.Preset)
		if !ok {
			return nil, fmt.Errorf("agents.%s.preset: %q is not a preset (the presets are %s)", name, cfg.Preset, strings.Join(preset.Names(), ", "))
		}
		pre, argv, env = &p, p.Argv(cfg.Run, cfg.Model), p.Environ(cfg.Env)
	}
	if len(argv) == 0 || argv[0] == "" {
		return nil, fmt.Errorf("agents.%s.run is empty: give the command to run as a list, e.g. run: [./agent.sh], or a preset, e.g. preset: claude-code", name)
	}
	for k, v := range env {
		if k == "" || strings.ContainsAny(k, "=\x00") || strings.ContainsRune(v, 0) {
			return nil, fmt.Errorf("agents.%s.env: %q is not a valid environment variable (no '=' or NUL in names, no NUL in values)", name, k)
		}
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	opts.MaxOutput = orDefault(opts.MaxOutput, DefaultMaxOutput)
	opts.MaxStderr = orDefault(opts.MaxStderr, DefaultMaxStderr)
	opts.InMemory = orDefault(opts.InMemory, DefaultInMemory)
	if opts.KillGrace <= 0 {
		opts.KillGrace = DefaultKillGrace
	}
	timeout := cfg.AttemptTimeout.D()
	if timeout <= 0 {
		timeout = cfg.Timeout.D()
	}
	if timeout < 0 {
		return nil, errors.New("agents." + name + ".timeout is negative")
	}
	return &Agent{
		name:    name,
		argv:    slices.Clone(argv),
		env:     maps.Clone(env),
		passEnv: slices.Clone(cfg.PassEnv),
		timeout: timeout,
		opts:    opts,
		model:   cfg.Model,
		preset:  pre,
	}, nil
}

func orDefault(v, def int) int {
	if v <= 0 {
		return def
	}
	return v
}

// Name returns the agent's configured name.
func (a *Agent) Name() string { return a.name }

// CanRun says, before any agent starts, why the command agent name
// (configured by cfg) could not start its program in dir as it would
// run: under sbx (nil: unsandboxed, in environ). The error names the
// agent's key and what to change; nil means it can start.
func CanRun(name string, cfg config.Agent, dir string, sbx *sandbox.Run, environ []string) error {
	a, err := New(name, cfg, Options{Environ: environ, Sandbox: sbx})
	if err != nil {
		return err
	}
	req := agent.Request{Dir: dir}
	p := a.process(req)
	if sbx == nil {
		p.Env = a.environ(req)
	}
	if err := sbx.CanRun(p); err != nil {
		return fmt.Errorf("agents.%s: %s cannot run: %w", name, a.argv[0], err)
	}
	return nil
}
