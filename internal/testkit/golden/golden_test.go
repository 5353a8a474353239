package golden

import (
	"os"
	"path/filepath"
	"testing"
)

type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true }

func TestCheck(t *testing.T) {
	t.Chdir(t.TempDir())
	os.MkdirAll("testdata", 0o755)
	os.WriteFile(filepath.Join("testdata", "x.golden"), []byte("hello\n"), 0o644)
	t.Setenv("UPDATE_GOLDEN", "")
	r := &recorder{TB: t}
	Check(r, "x.golden", "hello\n")
	if r.failed {
		t.Fatal("equal content failed")
	}
	Check(r, "x.golden", "bye\n")
	if !r.failed {
		t.Fatal("different content passed")
	}
	t.Setenv("UPDATE_GOLDEN", "1")
	Check(t, "x.golden", "bye\n")
	if data, _ := os.ReadFile(filepath.Join("testdata", "x.golden")); string(data) != "bye\n" {
		t.Fatalf("UPDATE_GOLDEN=1 did not rewrite the file: %q", data)
	}
}
