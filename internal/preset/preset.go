package preset

import (
	"maps"
	"slices"
	"strings"
	"time"
)

// Preset is what optr knows of one coding-agent CLI: how to run it
// headless, quietly, and how to read what it says.
type Preset struct {
	// Name is the value of an agent's preset: key.
	Name string
	// Title names the CLI in prose, such as Claude Code.
	Title string
	// Package is the npm package that installs the CLI, and Tested the
	// release its settings were measured with (architecture §6): the one
	// the tests drive and the docs install.
	Package, Tested string
	// Program is the command the package puts on PATH.
	Program string
	// Args follow Program in a headless run: the intent comes on stdin,
	// events go to stdout as they happen.
	Args []string
	// ModelFlag passes the agent's model: to the CLI.
	ModelFlag string
	// NeedsModel is true when the CLI has no model of its own to fall
	// back on (the Copilot CLI on a provider of the user's).
	NeedsModel bool
	// Env turns the CLI's telemetry, update checks and prompts off.
	Env map[string]string
	// Gateway names the providers the CLI calls, as the model gateway
	// serves them: the gateway gives the agent their base-URL and key
	// variables (architecture §4.18).
	Gateway []string
	// Timeout is an agent's timeout when its config writes none: a coding
	// agent works for longer than an answer takes.
	Timeout time.Duration
	// Format is the kind of event stream the CLI writes on stdout.
	Format Format
	// home makes the files the CLI needs in its HOME for a run whose
	// environment getenv reads.
	home func(getenv func(string) string) []File
	// derive makes variables the CLI reads from the ones the agent is
	// given (the gateway's base URL and key under the CLI's own names).
	derive func(getenv func(string) string) []string
}

// File is a file a preset puts in the agent's HOME before it starts.
type File struct {
	// Path is relative to HOME, slash-separated.
	Path string
	// Data is its content.
	Data []byte
}

// Lookup returns the preset called name.
func Lookup(name string) (Preset, bool) {
	for _, p := range presets {
		if p.Name == name {
			return p, true
		}
	}
	return Preset{}, false
}

// Names lists the presets' names, in the order messages list them.
func Names() []string {
	names := make([]string, len(presets))
	for i, p := range presets {
		names[i] = p.Name
	}
	return names
}

// All returns every preset.
func All() []Preset { return slices.Clone(presets) }

// Argv is the command line of an agent of this preset: run when its
// config writes one, else Program and Args; then the model flag with
// model, when model is set.
func (p Preset) Argv(run []string, model string) []string {
	argv := slices.Clone(run)
	if len(argv) == 0 {
		argv = append([]string{p.Program}, p.Args...)
	}
	if model != "" && p.ModelFlag != "" {
		argv = append(argv, p.ModelFlag, model)
	}
	return argv
}

// Environ returns the preset's variables with the agent's own env over
// them.
func (p Preset) Environ(own map[string]string) map[string]string {
	env := maps.Clone(p.Env)
	if env == nil {
		env = map[string]string{}
	}
	maps.Copy(env, own)
	return env
}

// Home returns the files the CLI needs in its HOME, made for the
// environment getenv reads: the one the agent starts with.
func (p Preset) Home(getenv func(string) string) []File {
	if p.home == nil {
		return nil
	}
	return p.home(getenv)
}

// Derived returns variables ("KEY=value") the CLI reads, made from the
// ones getenv reads: the agent's environment once the gateway's (or
// pass-env's) variables are in it. A variable the agent's own env sets is
// not made again.
func (p Preset) Derived(getenv func(string) string, own map[string]string) []string {
	if p.derive == nil {
		return nil
	}
	return slices.DeleteFunc(p.derive(getenv), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		_, set := own[k]
		return set
	})
}
