package datalake

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/optr-dev/optr/internal/redact"
)

// A run killed mid-way leaves a temporary file and a run directory with no
// selection; the next start removes the one and marks the other
// abandoned, and leaves finished, paused and live runs alone.
func TestCleanStale(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), ".optr")
	l := Open(root)
	mk := func(id string) *Run {
		r, err := l.NewRun("demo", id)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	killed, finished, paused, live, old := mk("killed"), mk("finished"), mk("paused"), mk("live"), mk("old")
	// killed: its .running names a process that is gone.
	if err := os.WriteFile(filepath.Join(killed.Dir, FileRunning), []byte("999999999:1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(killed.Dir, DirOutputs, ".tmp-a.json-123")
	if err := os.MkdirAll(filepath.Dir(tmp), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tmp, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := finished.WriteJSON(FileSelection, map[string]string{}); err != nil {
		t.Fatal(err)
	}
	_ = finished.Done()
	_ = paused.Done()
	if err := WriteOnce(l.CheckpointPath("cp-1"), []byte(`{"id":"cp-1","run":"paused","workflow":"demo"}`)); err != nil {
		t.Fatal(err)
	}
	_ = old.Done() // written before .running existed
	_ = live       // its .running names this process
	// decided, recorded: killed between the decision and the append, and
	// after the append and before Done.
	decided, recordedRun := mk("decided"), mk("recorded")
	for _, r := range []*Run{decided, recordedRun} {
		if err := r.WriteJSON(FileSelection, map[string]string{}); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(r.Dir, FileRunning), []byte("999999999:1\ndemo/"+r.ID+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Delegation spec folders of a killed run and of a live one.
	deadSpec, liveSpec := filepath.Join(root, "specs", "001_demo"), filepath.Join(root, "specs", "002_demo")
	for _, d := range []string{deadSpec, liveSpec} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := MarkRunning(d, "demo", "delegate-"+filepath.Base(d)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(deadSpec, FileRunning), []byte("999999999:1\ndemo/delegate-1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	inLedger := func(workflow, id string) bool { return workflow == "demo" && id == "recorded" }

	now := time.Now().Add(time.Hour) // everything is an hour old
	got, err := l.CleanStale(t.Context(), now, time.Minute, inLedger)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{tmp}, got.Removed); diff != "" {
		t.Errorf("removed (-want +got):\n%s", diff)
	}
	slices.Sort(got.Abandoned)
	if diff := cmp.Diff([]string{deadSpec, decided.Dir, killed.Dir, old.Dir}, got.Abandoned); diff != "" {
		t.Errorf("abandoned (-want +got):\n%s", diff)
	}
	if _, err := os.Stat(filepath.Join(recordedRun.Dir, FileRunning)); !os.IsNotExist(err) {
		t.Errorf("a run the ledger recorded keeps its .running (%v)", err)
	}
	for _, d := range []string{recordedRun.Dir, liveSpec} {
		if _, err := os.Stat(filepath.Join(d, FileAbandoned)); err == nil {
			t.Errorf("%s was marked abandoned", d)
		}
	}
	var why Abandoned
	data, _ := os.ReadFile(filepath.Join(decided.Dir, FileAbandoned))
	if err := json.Unmarshal(data, &why); err != nil || !strings.Contains(why.Reason, "before the ledger recorded it") {
		t.Errorf("abandoned.json of the decided run = %s (%v)", data, err)
	}
	data, _ = os.ReadFile(filepath.Join(deadSpec, FileAbandoned))
	if err := json.Unmarshal(data, &why); err != nil || why.Run != "delegate-1" || why.Workflow != "demo" {
		t.Errorf("abandoned.json of the spec folder = %s (%v)", data, err)
	}
	var rec Abandoned
	data, _ = os.ReadFile(filepath.Join(killed.Dir, FileAbandoned))
	if err := json.Unmarshal(data, &rec); err != nil || rec.Run != "killed" || rec.Workflow != "demo" {
		t.Fatalf("abandoned.json = %s (%v)", data, err)
	}
	// A second start finds nothing more; a young temporary file is left.
	young := filepath.Join(live.Dir, ".tmp-result.md-9")
	_ = os.WriteFile(young, nil, 0o644)
	got, err = l.CleanStale(t.Context(), time.Now(), time.Minute, nil)
	if err != nil || len(got.Removed)+len(got.Abandoned) != 0 {
		t.Fatalf("second clean: %+v, %v", got, err)
	}
	if _, err := os.Stat(young); err != nil {
		t.Fatal("a temporary file younger than the limit was removed")
	}
}

// What agents leave in $OPTR_OUTPUT_DIR is redacted in place, and links
// and special files are removed and named.
func TestSanitizeOutputs(t *testing.T) {
	t.Parallel()
	const key = "sk-ant-OUTPUTDIR-0123456789"
	l := OpenRedacted(filepath.Join(t.TempDir(), ".optr"), redact.New(key))
	run, err := l.NewRun("demo", "r1")
	if err != nil {
		t.Fatal(err)
	}
	dir, err := run.OutputDir()
	if err != nil {
		t.Fatal(err)
	}
	secretFile := filepath.Join(t.TempDir(), "id_rsa")
	_ = os.WriteFile(secretFile, []byte("PRIVATE"), 0o600)
	_ = os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	_ = os.WriteFile(filepath.Join(dir, "sub", "env"), []byte("HOME=/root\nANTHROPIC_API_KEY="+key+"\n"), 0o644)
	_ = os.WriteFile(filepath.Join(dir, "report.md"), []byte("clean"), 0o644)
	_ = os.Symlink(secretFile, filepath.Join(dir, "link"))
	_ = os.Link(secretFile, filepath.Join(dir, "hard"))

	got, err := run.SanitizeOutputs()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"sub/env"}, got.Redacted); diff != "" {
		t.Errorf("redacted (-want +got):\n%s", diff)
	}
	var refused []string
	for _, r := range got.Refused {
		refused = append(refused, r.Path)
	}
	slices.Sort(refused)
	if diff := cmp.Diff([]string{"hard", "link"}, refused); diff != "" {
		t.Errorf("refused (-want +got):\n%s", diff)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "sub", "env")); string(data) != "HOME=/root\nANTHROPIC_API_KEY=[redacted]\n" {
		t.Errorf("env dump = %q", data)
	}
	if data, _ := os.ReadFile(secretFile); string(data) != "PRIVATE" {
		t.Errorf("the linked file outside the run changed: %q", data)
	}
	files, _ := run.Files()
	for _, f := range files {
		if filepath.Base(f) == "link" || filepath.Base(f) == "hard" {
			t.Errorf("%s would be committed", f)
		}
	}
}

// shortSecret is a secret shorter than what redaction puts in its place.
const shortSecret = "s3cr3tXY"

// The files agents leave are kept to the run's bounds in path order, as
// they are committed (redacted): from
// the first that would take them past either bound on, every file is
// removed and named, whatever its size.
func TestSanitizeKeepsAgentFilesToTheBounds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		bounds agentBounds
		sizes  map[string]int
		kept   []string
	}{
		{"files", agentBounds{files: 3, bytes: 1 << 20}, map[string]int{"a1": 10, "a2": 10, "d/a3": 10, "d/a4": 1, "e": 1}, []string{"a1", "a2", "d/a3"}},
		{"bytes", agentBounds{files: 100, bytes: 25}, map[string]int{"b1": 10, "b2": 10, "b3": 10, "b4": 1}, []string{"b1", "b2"}},
		{"within", agentBounds{files: 2, bytes: 20}, map[string]int{"c1": 10, "c2": 10}, []string{"c1", "c2"}},
		// r2 fits as it is (4 + 16 bytes), not redacted: its 8-byte
		// secret becomes "[redacted]", and the file 18 bytes.
		{"redacted", agentBounds{files: 100, bytes: 20}, map[string]int{"r1": 4, "r2": -1, "r3": 1}, []string{"r1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			for name, size := range tc.sizes {
				p := filepath.Join(dir, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				content := shortSecret + "12345678"
				if size >= 0 {
					content = strings.Repeat("x", size)
				}
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := sanitizeDir(dir, redact.New(shortSecret), tc.bounds)
			if err != nil {
				t.Fatal(err)
			}
			var left, refused []string
			_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				if err == nil && d.Type().IsRegular() {
					rel, _ := filepath.Rel(dir, p)
					left = append(left, filepath.ToSlash(rel))
				}
				return nil
			})
			for _, r := range got.Refused {
				refused = append(refused, r.Path)
				if !strings.Contains(r.Reason, "path order") {
					t.Errorf("%s refused for %q, want the bounds named", r.Path, r.Reason)
				}
			}
			if diff := cmp.Diff(tc.kept, left); diff != "" {
				t.Errorf("files left (-want +got):\n%s", diff)
			}
			if len(left)+len(refused) != len(tc.sizes) {
				t.Errorf("left %v and refused %v, want every other file of %v refused", left, refused, tc.sizes)
			}
		})
	}
}

// SanitizeDir keeps MaxAgentFiles files and no more.
func TestSanitizeDirBoundsTheRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i := range MaxAgentFiles + 2 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%05d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := SanitizeDir(dir, redact.New())
	if err != nil {
		t.Fatal(err)
	}
	es, _ := os.ReadDir(dir)
	if len(es) != MaxAgentFiles || len(got.Refused) != 2 || got.Refused[0].Path != fmt.Sprintf("f%05d", MaxAgentFiles) {
		t.Errorf("%d files kept, refused %v; want %d kept and the last 2 refused", len(es), got.Refused, MaxAgentFiles)
	}
}
