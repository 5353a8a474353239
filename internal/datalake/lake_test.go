package datalake

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"
)

func TestValidateWorkflow(t *testing.T) {
	t.Parallel()
	good := []string{"issue-12", "demo", "a.b_c-d", strings.Repeat("a", 64)}
	bad := []string{"", ".", "..", "../x", "/etc", "a/b", ".hidden", "UPPER", "sp ace", strings.Repeat("a", 65), "x\x00y", "-flag"}
	for _, name := range good {
		if err := ValidateWorkflow(name); err != nil {
			t.Errorf("ValidateWorkflow(%q) = %v, want nil", name, err)
		}
	}
	for _, name := range bad {
		if err := ValidateWorkflow(name); err == nil {
			t.Errorf("ValidateWorkflow(%q) = nil, want an error", name)
		}
	}
}

func TestNewRunRefusesBeforeWriting(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), ".optr")
	l := Open(root)
	for _, wf := range []string{"../x", "/abs", "a/../../b"} {
		if _, err := l.NewRun(wf, "r1"); err == nil {
			t.Fatalf("NewRun(%q) succeeded", wf)
		}
	}
	if _, err := os.Stat(root); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a refused run created %s (stat err %v)", root, err)
	}
}

func TestRunWritesOnce(t *testing.T) {
	t.Parallel()
	l := Open(filepath.Join(t.TempDir(), ".optr"))
	r, err := l.NewRun("demo", "r1")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.WriteFile(FileResult, []byte("first")); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteFile(FileResult, []byte("second")); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("second write: err = %v, want ErrExist", err)
	}
	got, _ := os.ReadFile(r.Path(FileResult))
	if string(got) != "first" {
		t.Fatalf("file rewritten: %q", got)
	}
	if err := r.WriteFile("../escape", nil); err == nil {
		t.Fatal("a path leaving the run was written")
	}
	if _, err := l.NewRun("demo", "r1"); !errors.Is(err, ErrRunExists) {
		t.Fatalf("reused run id: err = %v, want ErrRunExists", err)
	}
	files, err := r.Files()
	if want, _ := filepath.Abs(r.Path(FileResult)); err != nil || len(files) != 1 || files[0] != want {
		t.Fatalf("Files() = %v, %v", files, err)
	}
	entries, _ := os.ReadDir(r.Dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".tmp-") {
			t.Fatalf("temporary file left behind: %s", e.Name())
		}
	}
}

func TestAppendErrors(t *testing.T) {
	t.Parallel()
	l := Open(filepath.Join(t.TempDir(), ".optr"))
	if err := l.AppendErrors(ErrorRecord{WorkflowID: "r", Message: "one"}); err != nil {
		t.Fatal(err)
	}
	if err := l.AppendErrors(ErrorRecord{WorkflowID: "r", Message: "two"}, ErrorRecord{WorkflowID: "r", Message: "three"}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(l.ErrorsPath())
	if n := strings.Count(string(data), "\n"); n != 3 {
		t.Fatalf("errors.jsonl has %d lines, want 3", n)
	}
}

func TestReplace(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "sub", "ledger.jsonl")
	for _, content := range []string{"one\n", "one\ntwo\n"} {
		if err := Replace(path, []byte(content)); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(path); string(got) != content {
			t.Fatalf("after Replace: %q, want %q", got, content)
		}
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("Replace left %d files behind, want only the target", len(entries))
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Fatalf("mode %v, want 0644", st.Mode().Perm())
	}
}

// TestRunFilesSyncedOnceBeforeRecording: each file of a run is synced
// once, as it is written, without the write waiting for it; Files, which
// lists the run's files to record them, waits for those syncs and syncs
// the directories that name the files, once.
func TestRunFilesSyncedOnceBeforeRecording(t *testing.T) {
	t.Parallel()
	run, err := Open(filepath.Join(t.TempDir(), ".optr")).NewRun("w", "r1")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var synced []string
	run.fsync = func(p string) error {
		rel, _ := filepath.Rel(run.Dir, p)
		mu.Lock()
		synced = append(synced, rel)
		mu.Unlock()
		return nil
	}
	for _, a := range []string{"a", "b"} {
		if err := run.WriteJSON(filepath.Join(DirOutputs, a+".json"), map[string]string{"agent": a}); err != nil {
			t.Fatal(err)
		}
	}
	if err := run.WriteFile(FileResult, []byte("answer")); err != nil {
		t.Fatal(err)
	}
	files, err := run.Files()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".", DirOutputs, filepath.Join(DirOutputs, "a.json"), filepath.Join(DirOutputs, "b.json"), FileResult}
	slices.Sort(synced)
	if diff := cmp.Diff(want, synced); diff != "" {
		t.Errorf("synced (-want +got):\n%s", diff)
	}
	if len(files) != 3 {
		t.Errorf("Files = %v, want the two outputs and result.md", files)
	}
	synced = nil
	if _, err := run.Files(); err != nil || len(synced) != 0 {
		t.Errorf("a second Files synced %v again (err %v)", synced, err)
	}
	data, err := os.ReadFile(run.AgentOutputPath("a"))
	if err != nil || !strings.Contains(string(data), `"agent": "a"`) {
		t.Errorf("a.json = %q, %v", data, err)
	}
}

// TestWrittenFileSyncsWithoutSync: a file's fsync starts as it is
// written, so that it overlaps what the run does until it records its
// files, instead of waiting for Sync with all the others; waiting for it
// here without calling Sync is a deadlock (synctest says so) when it
// does not.
func TestWrittenFileSyncsWithoutSync(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		run, err := Open(filepath.Join(t.TempDir(), ".optr")).NewRun("w", "r1")
		if err != nil {
			t.Fatal(err)
		}
		synced := make(chan string, 1)
		run.fsync = func(p string) error {
			synced <- filepath.Base(p)
			return nil
		}
		if err := run.WriteFile(FileWorkflow, []byte("intent: x\n")); err != nil {
			t.Fatal(err)
		}
		if got := <-synced; got != FileWorkflow {
			t.Errorf("synced %s, want %s", got, FileWorkflow)
		}
	})
}

// TestSyncFailureIsRetried: a file whose fsync failed is synced again by
// Sync, and by the next Sync while it fails, and the error names it.
func TestSyncFailureIsRetried(t *testing.T) {
	t.Parallel()
	run, err := Open(filepath.Join(t.TempDir(), ".optr")).NewRun("w", "r1")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	fail := true
	var synced []string
	run.fsync = func(p string) error {
		mu.Lock()
		defer mu.Unlock()
		if fail {
			return fmt.Errorf("sync %s: input/output error", p)
		}
		synced = append(synced, filepath.Base(p))
		return nil
	}
	if err := run.WriteFile(FileResult, []byte("answer")); err != nil {
		t.Fatal(err)
	}
	if err := run.Sync(); err == nil || !strings.Contains(err.Error(), FileResult) {
		t.Fatalf("Sync = %v, want the failure naming %s", err, FileResult)
	}
	mu.Lock()
	fail = false
	mu.Unlock()
	if err := run.Sync(); err != nil || !slices.Contains(synced, FileResult) {
		t.Errorf("the second Sync = %v, synced %v; want %s synced", err, synced, FileResult)
	}
}

// TestWriteJSONIndentsSmallDocuments: small documents are indented for
// people; one larger than maxIndented is written compact, and both read
// back the same.
func TestWriteJSONIndentsSmallDocuments(t *testing.T) {
	t.Parallel()
	run, err := Open(filepath.Join(t.TempDir(), ".optr")).NewRun("w", "r1")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		output   string
		indented bool
	}{
		{"small", "answer", true},
		{"large", strings.Repeat("x", maxIndented), false},
	}
	for _, tc := range tests {
		in := map[string]string{"agent": tc.name, "output": tc.output}
		rel := filepath.Join(DirOutputs, tc.name+".json")
		if err := run.WriteJSON(rel, in); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(run.Path(rel))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(data), "\n  \"agent\": "); got != tc.indented {
			t.Errorf("%s: indented = %v, want %v", tc.name, got, tc.indented)
		}
		var out map[string]string
		if err := json.Unmarshal(data, &out); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if diff := cmp.Diff(in, out); diff != "" {
			t.Errorf("%s: read back (-want +got):\n%s", tc.name, diff)
		}
	}
}

// TestNewRunRefusesARunIDOfAnotherWorkflow: a run id is recorded once,
// whatever its workflow (issue 27 item 13).
func TestNewRunRefusesARunIDOfAnotherWorkflow(t *testing.T) {
	t.Parallel()
	l := Open(filepath.Join(t.TempDir(), ".optr"))
	if _, err := l.NewRun("first", "r1"); err != nil {
		t.Fatal(err)
	}
	if _, err := l.NewRun("second", "r1"); !errors.Is(err, ErrRunExists) || !strings.Contains(err.Error(), "already used by workflow first") {
		t.Errorf("NewRun of r1 under another workflow = %v", err)
	}
	if _, err := l.NewRun("second", "r2"); err != nil {
		t.Errorf("NewRun of a new run id: %v", err)
	}
}
