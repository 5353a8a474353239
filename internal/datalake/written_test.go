package datalake

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// forget drops what this process noted about dir, as a new process (a
// resumed run) starts without it.
func forget(dir string) {
	runsWritten.Lock()
	delete(runsWritten.byDir, absPath(dir))
	runsWritten.Unlock()
}

// relFiles is files relative to dir, slash-separated.
func relFiles(t *testing.T, dir string, files []string) []string {
	t.Helper()
	abs := absPath(dir)
	var out []string
	for _, f := range files {
		rel, err := filepath.Rel(abs, f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, filepath.ToSlash(rel))
	}
	return out
}

// Committable keeps what optr wrote (through a run's methods and through
// the package's path functions, and what an earlier process wrote) and
// agent-files/, and refuses by name what anything else left in the run
// directory: files, symbolic links, a hard link.
func TestCommittableOnlyWhatOptrWrote(t *testing.T) {
	t.Parallel()
	l := Open(filepath.Join(t.TempDir(), ".optr"))
	r, err := l.NewRun("demo", "r1")
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(r.WriteFile(FileWorkflow, []byte("wf")))
	must(r.WriteJSON("agent-outputs/a.json", map[string]string{"output": "ok"}))
	must(Replace(r.Path(".coordination/blackboard.json"), []byte("{}")))
	must(Append(r.Path(".coordination/watcher-log.md"), []byte("line\n")))
	must(CreateExclusive(r.Path(".coordination/ceo-inbox.md"), []byte("inbox")))
	must(Replace(r.Path(".coordination/escalate.md"), []byte("trigger")))
	must(Link(r.Path(".coordination/escalate.md"), r.Path(".coordination/archived.md")))
	must(os.Remove(r.Path(".coordination/escalate.md")))
	out, err := r.OutputDir()
	must(err)
	must(os.WriteFile(filepath.Join(out, "notes.txt"), []byte("agent file"), 0o644))

	// What an agent leaves beside $OPTR_OUTPUT_DIR.
	secret := filepath.Join(t.TempDir(), "secret")
	must(os.WriteFile(secret, []byte("token"), 0o644))
	must(os.WriteFile(filepath.Join(out, "..", "x"), []byte("token"), 0o644))
	must(os.WriteFile(r.Path("agent-outputs/x.json"), []byte("token"), 0o644))
	must(os.Symlink(secret, r.Path("linked")))
	must(os.MkdirAll(r.Path("dir"), 0o755))
	must(os.Symlink(filepath.Dir(secret), r.Path("dir/sub")))
	must(os.Link(r.Path(FileWorkflow), filepath.Join(t.TempDir(), "other-name")))
	must(Link(r.Path("agent-outputs/x.json"), r.Path("agent-outputs/y.json"))) // an agent's file stays an agent's

	want := []string{".coordination/archived.md", ".coordination/blackboard.json", ".coordination/ceo-inbox.md",
		".coordination/watcher-log.md", "agent-files/notes.txt", "agent-outputs/a.json"}
	wantRefused := []string{"agent-outputs/x.json", "agent-outputs/y.json", "dir/sub", "linked", "workflow-optr.yaml", "x"}
	check := func() {
		t.Helper()
		files, refused, err := r.Committable()
		must(err)
		if diff := cmp.Diff(want, relFiles(t, r.Dir, files)); diff != "" {
			t.Errorf("kept (-want +got):\n%s", diff)
		}
		var names []string
		for _, f := range refused {
			names = append(names, f.Path)
			if f.Reason == "" {
				t.Errorf("%s refused without a reason", f.Path)
			}
		}
		if diff := cmp.Diff(wantRefused, names); diff != "" {
			t.Errorf("refused (-want +got):\n%s", diff)
		}
		if files2, err := r.Files(); err != nil || !cmp.Equal(files, files2) {
			t.Errorf("Files() = %v, %v; want Committable's %v", files2, err, files)
		}
	}
	check()
	// A new process (a resumed run) knows what the earlier one wrote.
	forget(r.Dir)
	r2, err := l.OpenRun("demo", "r1")
	must(err)
	r = r2
	must(r.WriteFile(FileResult, []byte("result")))
	want = append(want, FileResult)
	check()
}

// A paused run resumed in a fresh job finds its files as the job that
// paused it recorded them, without FileWritten (never committed): they are
// refused as earlier files, left as they are, while a file that appears
// after the run was opened is refused as an agent's.
func TestCommittableOfARunFromACheckout(t *testing.T) {
	t.Parallel()
	l := Open(filepath.Join(t.TempDir(), ".optr"))
	r, err := l.NewRun("demo", "r1")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.WriteFile(FileResult, []byte("paused")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.Committable(); err != nil {
		t.Fatal(err)
	}
	// The fresh job's checkout: the recorded files, no FileWritten.
	if err := os.Remove(r.Path(FileWritten)); err != nil {
		t.Fatal(err)
	}
	forget(r.Dir)
	r, err = l.OpenRun("demo", "r1")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.WriteFile(FileSelection, []byte("{}")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(r.Path("planted"), []byte("token"), 0o644); err != nil {
		t.Fatal(err)
	}
	files, refused, err := r.Committable()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{FileSelection}, relFiles(t, r.Dir, files)); diff != "" {
		t.Errorf("kept (-want +got):\n%s", diff)
	}
	got := map[string]bool{}
	for _, f := range refused {
		got[f.Path] = f.Earlier
	}
	if diff := cmp.Diff(map[string]bool{FileResult: true, "planted": false}, got); diff != "" {
		t.Errorf("refused path → earlier (-want +got):\n%s", diff)
	}
}
