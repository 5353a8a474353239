package inputfile

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/testkit/fifotest"
)

// TestOpenRefusesWhatIsNotARegularFile checks issue 27 items 9 and 12: a
// FIFO named as a config or an intent file blocked optr forever (and
// ignored SIGTERM), a directory was an unclear failure. Each is refused at
// once, naming the path and what it is. A FIFO with no writer would block
// a plain open(2): this test would then never end.
func TestOpenRefusesWhatIsNotARegularFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := map[string]string{dir: "a directory"}
	if runtime.GOOS != "windows" {
		fifo := filepath.Join(dir, "fifo")
		fifotest.Make(t, fifo)
		tests[fifo] = "a FIFO"
		tests["/dev/null"] = "a character device"
	}
	for path, kind := range tests {
		f, err := Open(path)
		var nr *NotRegularError
		if !errors.As(err, &nr) || nr.Kind != kind || !strings.Contains(err.Error(), path) {
			t.Errorf("Open(%s) = %v, want a *NotRegularError naming it %s", path, err, kind)
		}
		if f != nil {
			f.Close()
		}
		if _, err := ReadFile(path, 10); !errors.As(err, &nr) {
			t.Errorf("ReadFile(%s) = %v, want a *NotRegularError", path, err)
		}
	}
}

func TestReadFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "intent.md")
	if err := os.WriteFile(path, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadFile(path, 5); err != nil || string(data) != "hello" {
		t.Errorf("ReadFile = %q, %v", data, err)
	}
	if _, err := ReadFile(path, 4); err == nil || !strings.Contains(err.Error(), "is 5 bytes; at most 4 are read") {
		t.Errorf("ReadFile over the limit = %v", err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadFile(link, 5); err != nil || string(data) != "hello" {
		t.Errorf("ReadFile through a symbolic link = %q, %v", data, err)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing"), 5); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ReadFile of a missing file = %v, want os.ErrNotExist", err)
	}
}
