// Package demotest gives tests a copy of the offline demo
// (testdata/demo: configs, scripted agents, checks) in a workspace of their
// own, where the demo's relative paths resolve as they do from the
// repository root. Only tests import it.
package demotest

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Dir is the repository's testdata/demo directory.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "testdata", "demo")
}

// Copy copies the demo to workspace/testdata/demo, keeping the scripts
// executable.
func Copy(t testing.TB, workspace string) {
	t.Helper()
	src := Dir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		dst := filepath.Join(workspace, "testdata", "demo", rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o755)
	})
	if err != nil {
		t.Fatalf("copy the demo: %v", err)
	}
}
