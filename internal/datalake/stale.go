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
// end of every run step, after the ledger recorded it; a run left without
// Done by a live process is never taken for abandoned, and one left by a
// dead process is.
func (r *Run) Done() error {
	if err := Finished(r.Dir); err != nil {
		return fmt.Errorf("finish run %s: %w", r.ID, err)
	}
	return nil
}

// MarkRunning writes FileRunning into dir, a folder run runID of workflow
// is writing (its run directory, a delegation's spec folder): this
// process's procgroup.Self on the first line, "<workflow>/<run>" on the
// second. Finished removes it; CleanStale marks a folder whose process
// died with it still there abandoned.
func MarkRunning(dir, workflow, runID string) error {
	return os.WriteFile(filepath.Join(dir, FileRunning), []byte(procgroup.Self()+"\n"+workflow+"/"+runID+"\n"), 0o644)
}

// Finished removes dir's FileRunning: the process is done with the folder.
func Finished(dir string) error {
	if err := os.Remove(filepath.Join(dir, FileRunning)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
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

// Recorded reports whether the ledger holds an entry of run id of
// workflow: CleanStale asks it about a run that decided but whose process
// died before Done, to tell one killed after its append from one killed
// before it.
type Recorded func(workflow, id string) bool

// CleanStale tidies what killed runs left, at the start of a new one:
//   - every .tmp-* file under the root last changed before now-olderThan
//     is removed (a write that was cut off: WriteOnce and Replace remove
//     their own; younger ones may belong to a run writing right now);
//   - every run directory whose optr process is gone before Done (its
//     .running names a dead process) gets abandoned.json and loses
//     .running — also one that had decided (optr-selection.json) when the
//     ledger holds no entry of it (recorded says so: killed between the
//     decision and the append); one the ledger holds only loses .running.
//     A run directory from before .running existed is abandoned when it
//     has no optr-selection.json, is not paused (no checkpoint names it)
//     and did not change since now-olderThan. Nothing else in it is
//     touched: what it wrote stays for a human;
//   - every delegation spec folder (specs/NNN_<slug>) whose .running names
//     a dead process gets abandoned.json and loses .running;
//   - the spool files (SpoolDir) of every run no live process runs are
//     removed.
//
// Runs of a live optr (a concurrent run on the same datalake) are left
// alone. A missing datalake is nothing to clean. recorded may be nil: no
// run is then taken for recorded.
func (l *Lake) CleanStale(ctx context.Context, now time.Time, olderThan time.Duration, recorded Recorded) (Stale, error) {
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
	if recorded == nil {
		recorded = func(string, string) bool { return false }
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
		reason := l.abandoned(dir, cutoff, paused[workflow+"/"+id], func() bool { return recorded(workflow, id) })
		if reason == "" {
			continue
		}
		if err := markAbandoned(dir, Abandoned{Run: id, Workflow: workflow, Detected: now.UTC(), Reason: reason}); err != nil {
			return out, fmt.Errorf("mark run %s of %s abandoned: %w", id, workflow, err)
		}
		out.Abandoned = append(out.Abandoned, dir)
	}
	specs, _ := filepath.Glob(filepath.Join(l.Root, "specs", "*"))
	for _, dir := range specs {
		owner, workflow, id, ok := readRunning(dir)
		if !ok || procgroup.Alive(owner) {
			continue
		}
		rec := Abandoned{Run: id, Workflow: workflow, Detected: now.UTC(),
			Reason: "the optr process running this delegation ended before it finished (killed?); its files are kept as they were"}
		if err := markAbandoned(dir, rec); err != nil {
			return out, fmt.Errorf("mark spec folder %s abandoned: %w", dir, err)
		}
		out.Abandoned = append(out.Abandoned, dir)
	}
	return out, nil
}

// markAbandoned writes rec into dir as FileAbandoned and removes
// FileRunning.
func markAbandoned(dir string, rec Abandoned) error {
	data, _ := json.MarshalIndent(rec, "", "  ")
	if err := WriteOnce(filepath.Join(dir, FileAbandoned), append(data, '\n')); err != nil {
		return err
	}
	return Finished(dir)
}

// readRunning reads dir's FileRunning: the owner (procgroup.Self of the
// process) and, when it says, the workflow and run.
func readRunning(dir string) (owner, workflow, id string, ok bool) {
	data, err := os.ReadFile(filepath.Join(dir, FileRunning))
	if err != nil {
		return "", "", "", false
	}
	first, rest, _ := strings.Cut(string(data), "\n")
	workflow, id, _ = strings.Cut(strings.TrimSpace(rest), "/")
	return strings.TrimSpace(first), workflow, id, true
}

// abandoned says why the run in dir was left unfinished by a process that
// is gone, "" when it was not.
func (l *Lake) abandoned(dir string, cutoff time.Time, paused bool, recorded func() bool) string {
	if _, err := os.Lstat(filepath.Join(dir, FileAbandoned)); err == nil {
		return ""
	}
	_, selErr := os.Lstat(filepath.Join(dir, FileSelection))
	decided := selErr == nil
	owner, _, _, running := readRunning(dir)
	switch {
	case running && procgroup.Alive(owner):
		return ""
	case running && decided && recorded():
		_ = Finished(dir) // killed after the ledger recorded it: finished
		return ""
	case running && decided:
		return "the optr process running it ended after it decided (optr-selection.json) but before the ledger recorded it (killed?); the ledger has no entry of this run, and its files are kept as they were"
	case running && !paused:
		return "the optr process running it ended before the run finished or paused (killed?); its files are kept as they were"
	case running:
		return ""
	case decided || paused:
		return ""
	}
	if st, err := os.Stat(dir); err == nil && st.ModTime().Before(cutoff) {
		return "the optr process running it ended before the run finished or paused (killed?); its files are kept as they were"
	}
	return ""
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
