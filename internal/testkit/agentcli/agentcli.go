// Package agentcli installs the real coding-agent CLIs the presets run —
// Claude Code, Codex CLI, Gemini CLI, the Copilot CLI — from npm, at the
// releases the presets name (preset.Preset.Tested): once per machine, each
// into a directory of its own under the user's cache (optr-<preset>),
// where .ci/run installs them too, taking turns with a file lock. A test
// skips, with npm's reason, only when npm cannot install them.
//
// A CLI is installed as npm installs it for a user: its command is a
// symbolic link in node_modules/.bin into its package, which runs a native
// binary (Claude Code, the Copilot CLI) or a Node.js program (Codex CLI's
// wrapper of its native binary, Gemini CLI). Tests put Bin on the PATH
// optr runs with, so they meet what users meet.
package agentcli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/optr-dev/optr/internal/preset"
	"github.com/optr-dev/optr/internal/testkit/npmtest"
)

// CLI is an installed coding-agent CLI.
type CLI struct {
	// Preset is the preset that runs it.
	Preset preset.Preset
	// Bin is the directory npm put its command in (node_modules/.bin), for
	// PATH.
	Bin string
	// Path is its command: Bin/<Program>, a symbolic link into its
	// package.
	Path string
	// Dir is the npm prefix it was installed into.
	Dir string
}

// setup is one CLI's installation, done once per test binary.
type setup struct {
	once sync.Once
	cli  CLI
	skip string
	err  error
}

var setups sync.Map // preset name → *setup

// Get returns the CLI of the preset called name, installing it on first
// use. The test is skipped when npm cannot install it, and fails when the
// installed CLI does not run.
func Get(t testing.TB, name string) CLI {
	t.Helper()
	p, ok := preset.Lookup(name)
	if !ok {
		t.Fatalf("agentcli: no preset %q", name)
	}
	v, _ := setups.LoadOrStore(name, &setup{})
	s := v.(*setup)
	s.once.Do(func() { s.cli, s.skip, s.err = install(t.Context(), p) })
	if s.err != nil {
		t.Fatalf("%s: %v", p.Title, s.err)
	}
	if s.skip != "" {
		t.Skip(s.skip)
	}
	return s.cli
}

// CacheName is the directory under the user's cache that holds the CLI of
// the preset called name (.ci/run installs there too).
func CacheName(name string) string { return "optr-" + name }

// install installs p's package into its cache directory unless it is there
// at its version, then checks that its command answers --version.
func install(ctx context.Context, p preset.Preset) (CLI, string, error) {
	dir, err := npmtest.CacheDir(CacheName(p.Name))
	if err != nil {
		return CLI{}, "", err
	}
	bin := filepath.Join(dir, "node_modules", ".bin")
	cli := CLI{Preset: p, Bin: bin, Path: filepath.Join(bin, p.Program), Dir: dir}
	s := npmtest.Setup{
		Dir:      dir,
		Packages: []npmtest.Package{{Name: p.Package, Version: p.Tested}},
		Files:    []string{filepath.Join("node_modules", ".bin", p.Program)},
		Then:     func() error { return runs(ctx, cli) },
	}
	skip, err := npmtest.Install(ctx, s)
	if skip != "" {
		skip += fmt.Sprintf("; the %s tests skip (.ci/run installs it)", p.Title)
	}
	return cli, skip, err
}

// runs checks that the installed command starts: npm may have left a
// stub where an install script did not run.
func runs(ctx context.Context, cli CLI) error {
	home, err := os.MkdirTemp("", "optr-agentcli-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(home)
	cmd := exec.CommandContext(ctx, cli.Path, "--version")
	cmd.Env = []string{"HOME=" + home, "PATH=" + cli.Bin + ":/usr/local/bin:/usr/bin:/bin", "CI=true"}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s --version: %w: %s", cli.Path, err, npmtest.LastLines(out, 5))
	}
	return nil
}
