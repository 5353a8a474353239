//go:build linux

package datalake

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReservedFileIsTheOneWritten: a file reserved ahead of its write is
// allocated when Reserve is called (its inode exists before the write),
// and the write fills that very file and names it: the same bytes, mode
// 0644, one name, no temporary file left, never over an existing file.
func TestReservedFileIsTheOneWritten(t *testing.T) {
	t.Parallel()
	if !unnamedFiles() {
		t.Skip("no unnamed files here (O_TMPFILE, /proc/self/fd)")
	}
	run, err := Open(filepath.Join(t.TempDir(), ".optr")).NewRun("w", "r1")
	if err != nil {
		t.Fatal(err)
	}
	rel := filepath.Join(DirOutputs, "a.json")
	run.Reserve(rel)
	run.mu.Lock()
	res := run.reserved[rel]
	run.mu.Unlock()
	if res == nil {
		t.Fatal("Reserve made no reservation")
	}
	<-res.ready
	if res.f == nil {
		t.Fatal("Reserve made no file")
	}
	var reserved syscall.Stat_t
	if err := syscall.Fstat(int(res.f.Fd()), &reserved); err != nil {
		t.Fatal(err)
	}
	if err := run.WriteJSON(rel, map[string]string{"agent": "a"}); err != nil {
		t.Fatal(err)
	}
	path := run.Path(rel)
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	st := info.Sys().(*syscall.Stat_t)
	if st.Ino != reserved.Ino {
		t.Errorf("%s is inode %d, want the reserved file's %d", rel, st.Ino, reserved.Ino)
	}
	if info.Mode().Perm() != 0o644 || st.Nlink != 1 {
		t.Errorf("%s: mode %v, %d names; want 0644 and one name", rel, info.Mode().Perm(), st.Nlink)
	}
	data, err := os.ReadFile(path)
	if diff := cmp.Diff("{\n  \"agent\": \"a\"\n}\n", string(data)); err != nil || diff != "" {
		t.Errorf("%s (-want +got), err %v:\n%s", rel, err, diff)
	}
	entries, err := os.ReadDir(filepath.Join(run.Dir, DirOutputs))
	if err != nil || len(entries) != 1 {
		t.Errorf("agent-outputs holds %v (err %v), want only a.json", entries, err)
	}
	run.Reserve(rel)
	if err := run.WriteFile(rel, []byte("again")); !errors.Is(err, fs.ErrExist) {
		t.Errorf("a second write into a reserved file: err = %v, want ErrExist", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "{\n  \"agent\": \"a\"\n}\n" {
		t.Errorf("the second write changed %s to %q", rel, data)
	}
}

// TestReservedFilesNeverWrittenLeaveNothing: reserved files that no write
// took are freed before the run's files are listed, and were never
// visible in the run directory: nothing is left behind, nothing is
// recorded.
func TestReservedFilesNeverWrittenLeaveNothing(t *testing.T) {
	t.Parallel()
	run, err := Open(filepath.Join(t.TempDir(), ".optr")).NewRun("w", "r1")
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []string{"a", "b", "c"} {
		run.Reserve(filepath.Join(DirOutputs, a+".json"))
	}
	if err := run.WriteFile(filepath.Join(DirOutputs, "b.json"), []byte("b")); err != nil {
		t.Fatal(err)
	}
	files, err := run.Files()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{run.AgentOutputPath("b")}, files); diff != "" {
		t.Errorf("Files (-want +got):\n%s", diff)
	}
	entries, err := os.ReadDir(filepath.Join(run.Dir, DirOutputs))
	if err != nil || len(entries) != 1 {
		t.Errorf("agent-outputs holds %v (err %v), want only b.json", entries, err)
	}
	run.mu.Lock()
	left := len(run.reserved)
	run.mu.Unlock()
	if left != 0 {
		t.Errorf("%d reservations left after Files, want none", left)
	}
}
