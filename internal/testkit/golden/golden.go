// Package golden compares test output with golden files in a package's
// testdata directory, and rewrites them when UPDATE_GOLDEN=1 is set: the
// formats optr promises (comment bodies, summaries, ledger lines) are
// pinned byte for byte, and a deliberate change is one command away.
package golden

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Update reports whether golden files are to be rewritten.
func Update() bool { return os.Getenv("UPDATE_GOLDEN") == "1" }

// Check compares got with testdata/name, or writes got there when Update.
func Check(t testing.TB, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if Update() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with UPDATE_GOLDEN=1 to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", name, diff)
	}
}
