package datalake

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// Lake is a datalake rooted at a directory (default .optr).
type Lake struct {
	// Root is the datalake directory.
	Root string
}

// Open returns the datalake at root. Nothing is created until something is written.
func Open(root string) *Lake { return &Lake{Root: filepath.Clean(root)} }

// LedgerPath is the default ledger file, <root>/ledger.jsonl.
func (l *Lake) LedgerPath() string { return filepath.Join(l.Root, "ledger.jsonl") }

// ErrorsPath is <root>/errors.jsonl.
func (l *Lake) ErrorsPath() string { return filepath.Join(l.Root, "errors.jsonl") }

// CheckpointPath is where a pending checkpoint's state is saved.
func (l *Lake) CheckpointPath(id string) string {
	return filepath.Join(l.Root, "checkpoints", id+".json")
}

// CosignedPath is where the ledger's checkpoint at size, with the
// witnesses' cosignatures, is kept (architecture §4.13):
// checkpoints/ledger-<size>.cosigned.
func (l *Lake) CosignedPath(size int64) string {
	return filepath.Join(l.Root, "checkpoints", fmt.Sprintf("ledger-%d.cosigned", size))
}

// RunDir is workflows/<workflow>/runs/<run-id> under the root.
func (l *Lake) RunDir(workflow, runID string) string {
	return filepath.Join(l.Root, "workflows", workflow, "runs", runID)
}

// ErrRunExists is returned by NewRun when the run id was recorded before.
var ErrRunExists = errors.New("run already exists")

// NewRun creates the directory of a new run. It refuses bad names before
// touching the disk, and refuses a run id that already has a directory: a
// rerun never overwrites an earlier run's outputs. The directory holds
// FileRunning, naming this process, until Run.Done (see CleanStale).
func (l *Lake) NewRun(workflow, runID string) (*Run, error) {
	if err := ValidateWorkflow(workflow); err != nil {
		return nil, err
	}
	if err := ValidateRunID(runID); err != nil {
		return nil, err
	}
	dir := l.RunDir(workflow, runID)
	// A run id is recorded once, whatever its workflow (architecture §4.3).
	if others, _ := filepath.Glob(filepath.Join(l.Root, "workflows", "*", "runs", runID)); len(others) > 0 && others[0] != dir {
		other := filepath.Base(filepath.Dir(filepath.Dir(others[0])))
		return nil, fmt.Errorf("%w: run id %s is already used by workflow %s (%s); choose another run id", ErrRunExists, runID, other, others[0])
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return nil, fmt.Errorf("create datalake: %w", err)
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("%w: %s already holds run %s of workflow %s; choose another run id", ErrRunExists, dir, runID, workflow)
		}
		return nil, fmt.Errorf("create run directory: %w", err)
	}
	if err := MarkRunning(dir, workflow, runID); err != nil {
		return nil, fmt.Errorf("create run directory: %w", err)
	}
	track(dir)
	return &Run{Dir: dir, Workflow: workflow, ID: runID, lake: l}, nil
}

// OpenRun returns an existing run (for resuming a paused one).
func (l *Lake) OpenRun(workflow, runID string) (*Run, error) {
	if err := ValidateWorkflow(workflow); err != nil {
		return nil, err
	}
	if err := ValidateRunID(runID); err != nil {
		return nil, err
	}
	dir := l.RunDir(workflow, runID)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("run %s of workflow %s not found in %s", runID, workflow, l.Root)
	}
	track(dir)
	return &Run{Dir: dir, Workflow: workflow, ID: runID, lake: l}, nil
}

// Run is one run's directory.
type Run struct {
	// Dir is the run directory.
	Dir string
	// Workflow and ID name the run.
	Workflow, ID string
	lake         *Lake

	mu       sync.Mutex
	syncing  []*fileSync             // fsyncs started as files were written (syncSoon)
	unsynced []string                // files Sync must sync itself: a failed fsync's, to try again
	fsync    func(path string) error // syncs a file or directory; nil: syncPath
	reserved map[string]*reservation // by rel: files Reserve makes ready
}

// Lake returns the datalake the run belongs to.
func (r *Run) Lake() *Lake { return r.lake }

// Files within a run directory.
const (
	FileWorkflow  = "workflow-optr.yaml"
	FileSelection = "optr-selection.json"
	FileResult    = "result.md"
	DirOutputs    = "agent-outputs"
	DirCoord      = ".coordination"
)

// AgentOutputPath is agent-outputs/<agent>.json within the run.
func (r *Run) AgentOutputPath(agentName string) string {
	return filepath.Join(r.Dir, DirOutputs, agentName+".json")
}

// Path returns the absolute path of rel inside the run.
func (r *Run) Path(rel string) string { return filepath.Join(r.Dir, rel) }

// WriteFile writes rel inside the run once: atomically (temporary or
// unnamed file, then a hard link to the final name, so a reader never
// sees half a file) and never over an existing file.
//
// The write does not wait for the file to reach the disk: agents finish
// together, and an fsync each put K syncs on the fan-out's hot path (and
// the resolved workflow's one before the first agent started). Its fsync
// starts in the background (syncSoon), so that it overlaps what the run
// does meanwhile — the agents still at work, the watcher's last write —
// and Sync (which Files calls, before the run's files are recorded)
// waits for it and syncs the directories that name the files.
func (r *Run) WriteFile(rel string, data []byte) error {
	return r.write(rel, func(path string) []byte { return redacted(path, data) })
}

// WriteFileFrom writes rel inside the run once, like WriteFile, with the
// bytes write produces: they stream through the lake's redaction
// (redact.Writer, the same bytes WriteFile would store) into the file, so a
// file of tens of MiB is never held in memory.
func (r *Run) WriteFileFrom(rel string, write func(io.Writer) error) error {
	return r.writeFrom(rel, func(path string) func(io.Writer) error { return redactedFrom(path, write) })
}

// WriteChange writes a code change (a patch, architecture §4.12) inside the run
// once, like WriteFile, with the lake's known secret values redacted but
// not its token-shaped strings: a change holding a known value was
// refused when it was captured, while a token-shaped string in a change is
// for threat detection to judge before anything is delivered — replacing
// it would store a patch that no longer applies nor matches its
// patch_sha256.
func (r *Run) WriteChange(rel string, patch []byte) error {
	return r.write(rel, func(path string) []byte { return Redactor(path).Values().Bytes(patch) })
}

// write writes rel inside the run once with the bytes data gives for the
// file's path (redacted as it may be stored there).
func (r *Run) write(rel string, data func(path string) []byte) error {
	return r.writeFrom(rel, func(path string) func(io.Writer) error { return writing(data(path)) })
}

// writeFrom writes rel inside the run once with the writer content gives
// for the file's path, into the file Reserve made for it when there is
// one, and leaves it for Sync.
func (r *Run) writeFrom(rel string, content func(path string) func(io.Writer) error) error {
	if !filepath.IsLocal(rel) {
		return fmt.Errorf("write %q: path leaves the run directory", rel)
	}
	path := filepath.Join(r.Dir, rel)
	p := &pending{f: r.take(rel), unnamed: true}
	if p.f == nil {
		var err error
		if p, err = newPending(path); err != nil {
			return err
		}
	}
	if err := p.fill(path, content(path), false); err != nil {
		return err
	}
	r.syncSoon(path)
	return nil
}

// fileSync is the fsync of one written file, started as it was written.
type fileSync struct {
	path string
	done chan struct{} // closed once err is set
	err  error
}

// syncSlots bounds the background fsyncs in flight, process-wide: each
// holds a thread while the disk works.
var syncSlots = make(chan struct{}, syncers)

// syncSoon starts path's fsync in the background; Sync waits for it.
func (r *Run) syncSoon(path string) {
	s := &fileSync{path: path, done: make(chan struct{})}
	r.mu.Lock()
	r.syncing = append(r.syncing, s)
	fsync := r.fsync
	r.mu.Unlock()
	if fsync == nil {
		fsync = syncPath
	}
	go func() {
		defer close(s.done)
		syncSlots <- struct{}{}
		defer func() { <-syncSlots }()
		s.err = fsync(path)
	}()
}

// syncers is how many fsyncs Sync has in flight: together they let the
// file system commit its journal once for many files.
const syncers = 16

// Sync makes every file the run wrote since the last Sync durable, and
// the directories that name them: it waits for the fsyncs started as the
// files were written, syncs again each that failed, then the
// directories. Files calls it.
func (r *Run) Sync() error {
	r.mu.Lock()
	started, retry := r.syncing, r.unsynced
	r.syncing, r.unsynced = nil, nil
	fsync := r.fsync
	r.mu.Unlock()
	if fsync == nil {
		fsync = syncPath
	}
	if len(started)+len(retry) == 0 {
		return nil
	}
	written := slices.Clone(retry)
	for _, s := range started {
		<-s.done
		written = append(written, s.path)
		if s.err != nil {
			retry = append(retry, s.path)
		}
	}
	dirs := map[string]bool{r.Dir: true}
	for _, p := range written {
		dirs[filepath.Dir(p)] = true
	}
	err := syncAll(fsync, retry)
	if err == nil {
		err = syncAll(fsync, slices.Sorted(maps.Keys(dirs)))
	}
	if err != nil {
		r.mu.Lock()
		r.unsynced = append(r.unsynced, written...) // the next Sync tries again
		r.mu.Unlock()
	}
	return err
}

// syncAll syncs paths, syncers at a time, and joins the errors.
func syncAll(fsync func(string) error, paths []string) error {
	errs := make([]error, len(paths))
	sem := make(chan struct{}, syncers)
	var wg sync.WaitGroup
	for i, p := range paths {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			errs[i] = fsync(p)
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// syncPath fsyncs the file or directory at path.
func syncPath(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("sync %s: %w", path, err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", path, err)
	}
	return nil
}

// maxIndented is the largest JSON document WriteJSON indents. Indenting
// copies and rescans every byte (an agent output of 50 MiB took about
// 0.7 s more), and nobody reads a document that size by eye.
const maxIndented = 1 << 20

// WriteJSON writes v as JSON to rel (see WriteFile): indented, unless it
// is larger than maxIndented.
func (r *Run) WriteJSON(rel string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", rel, err)
	}
	if len(data) <= maxIndented {
		var b bytes.Buffer
		b.Grow(len(data) * 2)
		if err := json.Indent(&b, data, "", "  "); err != nil {
			return fmt.Errorf("encode %s: %w", rel, err)
		}
		data = b.Bytes()
	}
	return r.WriteFile(rel, append(data, '\n'))
}

// WriteOnce atomically creates path with data, creating parent directories,
// redacted when path is under a datalake opened with OpenRedacted.
// It fails with an error wrapping fs.ErrExist if path exists: files a run
// wrote are never rewritten.
func WriteOnce(path string, data []byte) error { return writeOnce(path, data, true) }

// writeOnce is WriteOnce; durable says whether the file is synced to disk
// before it gets its name.
func writeOnce(path string, data []byte, durable bool) error {
	p, err := newPending(path)
	if err != nil {
		return err
	}
	return p.fill(path, writing(redacted(path, data)), durable)
}

// writing returns a write of data.
func writing(data []byte) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}
}

// Replace atomically replaces path with data (temporary file, fsync,
// rename), creating parent directories, redacted like WriteOnce: a reader sees the old content or
// the new, never half. It is for the files that are meant to change — the
// workspace ledger after commit-back, a .coordination blackboard — never
// for a run's artifacts, which WriteOnce writes.
func Replace(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	data = redacted(path, data)
	tmp, err := os.CreateTemp(dir, ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return fmt.Errorf("replace %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("replace %s: %w", path, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("replace %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("sync %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("replace %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("replace %s: %w", path, err)
	}
	noteWritten(path)
	return nil
}

// Files lists the run's files that may be recorded, as absolute paths,
// sorted: Committable without the files it refused.
func (r *Run) Files() ([]string, error) {
	files, _, err := r.Committable()
	return files, err
}

func isTemp(name string) bool { return len(name) > 5 && name[:5] == ".tmp-" }
