package datalake

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/optr-dev/optr/internal/procgroup"
)

// Files a run directory holds while it runs and when it was abandoned.
const (
	// FileRunning names the optr process running the run (procgroup.Self).
	// It is removed by Run.Done and never listed by Files.
	FileRunning = ".running"
	// FileAbandoned is written by CleanStale into the directory of a run
	// whose optr process died before it finished or paused.
	FileAbandoned = "abandoned.json"
)

// Done records that the run's process is finished with it — completed,
// failed or paused — by removing FileRunning. The driver calls it at the
// end of every run step; a run left without Done by a live process is
// never taken for abandoned, and one left by a dead process is.
func (r *Run) Done() error {
	if err := os.Remove(filepath.Join(r.Dir, FileRunning)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("finish run %s: %w", r.ID, err)
	}
	return nil
}

// Stale is what CleanStale found.
type Stale struct {
	// Removed are the temporary files removed (paths under the root).
	Removed []string
	// Abandoned are the run directories marked abandoned.
	Abandoned []string
}

// Abandoned is the content of abandoned.json.
type Abandoned struct {
	Run      string    `json:"run"`
	Workflow string    `json:"workflow"`
	Detected time.Time `json:"detected"`
	Reason   string    `json:"reason"`
}

// CleanStale tidies what killed runs left, at the start of a new one:
//   - every .tmp-* file under the root last changed before now-olderThan
//     is removed (a write that was cut off: WriteOnce and Replace remove
//     their own; younger ones may belong to a run writing right now);
//   - every run directory that has no optr-selection.json, is not paused
//     (no checkpoint names it) and whose optr process is gone (its
//     .running names a dead process, or it has no .running and did not
//     change since now-olderThan) gets abandoned.json and loses .running.
//     Nothing else in it is touched: what it wrote stays for a human;
//   - the spool files (SpoolDir) of every run no live process runs are
//     removed.
//
// Runs of a live optr (a concurrent run on the same datalake) are left
// alone. A missing datalake is nothing to clean.
func (l *Lake) CleanStale(ctx context.Context, now time.Time, olderThan time.Duration) (Stale, error) {
	var out Stale
	cutoff := now.Add(-olderThan)
	err := filepath.WalkDir(l.Root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if d.IsDir() || !isTemp(d.Name()) {
			return nil
		}
		if info, err := d.Info(); err != nil || info.ModTime().After(cutoff) {
			return nil
		}
		if err := os.Remove(p); err == nil {
			out.Removed = append(out.Removed, p)
		}
		return nil
	})
	if err != nil {
		return out, fmt.Errorf("clean stale files in %s: %w", l.Root, err)
	}
	paused, err := l.pausedRuns()
	if err != nil {
		return out, err
	}
	dirs, _ := filepath.Glob(filepath.Join(l.Root, "workflows", "*", "runs", "*"))
	for _, dir := range dirs {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		workflow := filepath.Base(filepath.Dir(filepath.Dir(dir)))
		id := filepath.Base(dir)
		if ownerGone(dir) {
			gone, _ := removeSpools(dir)
			out.Removed = append(out.Removed, gone...)
		}
		if paused[workflow+"/"+id] || !l.abandoned(dir, cutoff) {
			continue
		}
		rec := Abandoned{Run: id, Workflow: workflow, Detected: now.UTC(),
			Reason: "the optr process running it ended before the run finished or paused (killed?); its files are kept as they were"}
		data, _ := json.MarshalIndent(rec, "", "  ")
		if err := WriteOnce(filepath.Join(dir, FileAbandoned), append(data, '\n')); err != nil {
			return out, fmt.Errorf("mark run %s of %s abandoned: %w", id, workflow, err)
		}
		_ = os.Remove(filepath.Join(dir, FileRunning))
		out.Abandoned = append(out.Abandoned, dir)
	}
	return out, nil
}

// abandoned reports whether the run in dir was left unfinished by a
// process that is gone.
func (l *Lake) abandoned(dir string, cutoff time.Time) bool {
	for _, done := range []string{FileSelection, FileAbandoned} {
		if _, err := os.Lstat(filepath.Join(dir, done)); err == nil {
			return false
		}
	}
	owner, err := os.ReadFile(filepath.Join(dir, FileRunning))
	if err == nil {
		return !procgroup.Alive(strings.TrimSpace(string(owner)))
	}
	st, err := os.Stat(dir)
	return err == nil && st.ModTime().Before(cutoff)
}

// pausedRuns returns "<workflow>/<run>" of every saved checkpoint.
func (l *Lake) pausedRuns() (map[string]bool, error) {
	out := map[string]bool{}
	files, _ := filepath.Glob(filepath.Join(l.Root, "checkpoints", "*.json"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("read checkpoint %s: %w", f, err)
		}
		var cp struct{ Run, Workflow string }
		if json.Unmarshal(data, &cp) == nil {
			out[cp.Workflow+"/"+cp.Run] = true
		}
	}
	return out, nil
}
