package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A program the run could not start is found before any process starts:
// not on its PATH, not executable, outside what a sandboxed process reads
// (the fix: sandbox.read), or behind a directory the unprivileged user
// cannot pass. A program on PATH whose link leads into an npm package
// elsewhere can run: its install is readable.
func TestCanRun(t *testing.T) {
	root, work := t.TempDir(), t.TempDir()
	outside := filepath.Join(root, "outside")
	nm := filepath.Join(root, "npm", "node_modules")
	for _, d := range []string{outside, filepath.Join(nm, ".bin"), filepath.Join(nm, "cli", "bin")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p string, mode os.FileMode) {
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(outside, "agent.sh"), 0o755)
	write(filepath.Join(outside, "plain.txt"), 0o644)
	write(filepath.Join(nm, "cli", "bin", "cli.js"), 0o755)
	if err := os.Symlink("../cli/bin/cli.js", filepath.Join(nm, ".bin", "cli")); err != nil {
		t.Fatal(err)
	}
	environ := []string{"PATH=" + filepath.Join(nm, ".bin") + ":/usr/bin:/bin"}
	r := New(Settings{Mode: "auto", Environ: environ})
	if err := r.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		program string
		read    []string
		want    string // "" = it can run
	}{
		{"sh", nil, ""},
		{"cli", nil, ""},
		{"no-such-program", nil, "was not found in PATH"},
		{filepath.Join(outside, "plain.txt"), nil, "is not executable"},
		{filepath.Join(outside, "agent.sh"), []string{outside}, ""},
	}
	if r.Layers().FS != "none" {
		tests = append(tests, struct {
			program string
			read    []string
			want    string
		}{filepath.Join(outside, "agent.sh"), nil, "is outside what a sandboxed process may read; add " + outside + " to sandbox.read"})
	}
	for _, tt := range tests {
		rr := *r
		rr.s.Read = tt.read
		err := rr.CanRun(Process{Name: "a", Program: tt.program, Dir: work})
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%s (read %q): %v, want %q", tt.program, tt.read, err, tt.want)
		}
	}
	if _, _, ok := r.Owner(); ok {
		// Run as root: a directory the unprivileged user cannot pass, of
		// another owner, keeps it out whatever Landlock allows.
		locked := filepath.Join(root, "locked")
		if err := os.MkdirAll(locked, 0o700); err != nil {
			t.Fatal(err)
		}
		write(filepath.Join(locked, "agent.sh"), 0o755)
		if err := os.Chown(locked, 1, 1); err != nil {
			t.Fatal(err)
		}
		rr := *r
		rr.s.Read = []string{locked}
		err := rr.CanRun(Process{Name: "a", Program: filepath.Join(locked, "agent.sh")})
		if err == nil || !strings.Contains(err.Error(), locked+" may not be passed by others") {
			t.Errorf("behind a locked directory: %v", err)
		}
	}
}
