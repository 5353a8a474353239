package program

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// An npm install puts a link in node_modules/.bin into its package; the
// package's code reads its sibling packages: the whole node_modules is
// what it needs. A link elsewhere needs its target's directory.
func TestInstall(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	nm := filepath.Join(root, "prefix", "node_modules")
	pkgBin := filepath.Join(nm, "@openai", "codex", "bin")
	for _, d := range []string{pkgBin, filepath.Join(nm, ".bin"), filepath.Join(root, "opt", "tool"), filepath.Join(root, "bin")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p string) {
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(pkgBin, "codex.js"))
	write(filepath.Join(root, "opt", "tool", "tool"))
	write(filepath.Join(root, "bin", "plain"))
	link := func(target, at string) {
		if err := os.Symlink(target, at); err != nil {
			t.Fatal(err)
		}
	}
	link("../@openai/codex/bin/codex.js", filepath.Join(nm, ".bin", "codex"))
	link(filepath.Join(root, "opt", "tool", "tool"), filepath.Join(root, "bin", "tool"))
	link(filepath.Join(nm, ".bin", "codex"), filepath.Join(root, "bin", "codex"))
	link(filepath.Join(root, "missing"), filepath.Join(root, "bin", "dangling"))

	tests := []struct {
		prog string
		want []string
		ok   bool
	}{
		{filepath.Join(nm, ".bin", "codex"), []string{nm}, true},
		{filepath.Join(root, "bin", "codex"), []string{nm}, true}, // a link to the .bin link
		{filepath.Join(root, "bin", "tool"), []string{filepath.Join(root, "opt", "tool")}, true},
		{filepath.Join(root, "bin", "plain"), nil, true},
		{filepath.Join(root, "bin", "dangling"), nil, false},
	}
	for _, tt := range tests {
		got, ok := Install(tt.prog)
		if ok != tt.ok || !slices.Equal(got, tt.want) {
			t.Errorf("Install(%s) = %q, %v; want %q, %v", tt.prog, got, ok, tt.want, tt.ok)
		}
	}
}
