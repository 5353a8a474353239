package datalake

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/optr-dev/optr/internal/redact"
)

// DirAgentFiles is the run's $OPTR_OUTPUT_DIR: where agents leave files
// too large for stdout. It is committed with the run.
const DirAgentFiles = "agent-files"

// MaxAgentFile bounds a file an agent leaves in $OPTR_OUTPUT_DIR; a larger
// one is removed rather than read whole to be redacted.
const MaxAgentFile = 64 << 20

// MaxAgentFiles and MaxAgentBytes bound what the agents of a run leave in
// $OPTR_OUTPUT_DIR, all together: the files past either bound, in path
// order, are removed rather than committed, so that no agent makes the
// commit-back upload, and the repository keep, files without end.
const (
	MaxAgentFiles = 1000
	MaxAgentBytes = 256 << 20
)

// agentBounds are the bounds SanitizeDir keeps a run's agent files to.
type agentBounds struct {
	files int
	bytes int64
}

// reason is why a file past the bounds b is removed.
func (b agentBounds) reason() string {
	return fmt.Sprintf("past what the agents of a run may leave in $OPTR_OUTPUT_DIR: %d files and %d MiB in all, the first in path order kept", b.files, b.bytes>>20)
}

// OutputDir creates the run's $OPTR_OUTPUT_DIR (agent-files) and returns
// its path: agents are told to write there, so it must exist before the
// first agent starts.
func (r *Run) OutputDir() (string, error) {
	dir := filepath.Join(r.Dir, DirAgentFiles)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("create $OPTR_OUTPUT_DIR: %w", err)
	}
	return dir, nil
}

// Refused is a file SanitizeOutputs removed instead of keeping it.
type Refused struct {
	// Path is the file's path relative to the scanned directory.
	Path string `json:"path"`
	// Reason says why it was not kept.
	Reason string `json:"reason"`
	// Earlier is set by Run.Committable for a file the run directory held
	// when this process opened it without a FileWritten list: a paused
	// run resumed in a fresh job, whose files the job that paused it
	// recorded. Such a file is left as it is, and is no agent's doing.
	Earlier bool `json:"-"`
}

// OutputScan is what SanitizeOutputs did.
type OutputScan struct {
	// Redacted are the files (relative paths) in which secrets were
	// replaced.
	Redacted []string `json:"redacted,omitempty"`
	// Refused are the files removed, each with the reason.
	Refused []Refused `json:"refused,omitempty"`
}

// SanitizeOutputs makes what agents left in the run's $OPTR_OUTPUT_DIR
// safe to commit, after the agents ended and before anything is committed:
// see SanitizeDir. It uses the lake's Redactor (OpenRedacted).
func (r *Run) SanitizeOutputs() (OutputScan, error) {
	return SanitizeDir(filepath.Join(r.Dir, DirAgentFiles), r.lake.Redactor())
}

// SanitizeDir scans every file under dir that an agent may have left: a
// regular file holding a secret known to red is rewritten with the secret
// replaced (an `env` dump keeps its names, loses its values); a symbolic
// or hard link (it could be ~/.ssh or another run's files), a FIFO, a device,
// a file larger than MaxAgentFile, and every file from the first that would
// take the files kept past MaxAgentFiles or MaxAgentBytes on, in path order,
// is removed and named in Refused. A missing dir is nothing to scan.
func SanitizeDir(dir string, red *redact.Redactor) (OutputScan, error) {
	return sanitizeDir(dir, red, agentBounds{files: MaxAgentFiles, bytes: MaxAgentBytes})
}

// sanitizeDir is SanitizeDir keeping the files to bounds.
func sanitizeDir(dir string, red *redact.Redactor, bounds agentBounds) (OutputScan, error) {
	var out OutputScan
	kept, keptBytes, full := 0, int64(0), false
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == dir {
				return nil
			}
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		refuse := func(why string) error {
			if err := os.RemoveAll(p); err != nil {
				return fmt.Errorf("remove %s: %w", rel, err)
			}
			out.Refused = append(out.Refused, Refused{Path: filepath.ToSlash(rel), Reason: why})
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			return refuse("a symbolic link: it could expose a file outside the run, so it is not committed")
		case d.IsDir():
			return nil
		case !d.Type().IsRegular():
			return refuse("not a regular file (" + d.Type().String() + ")")
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if info.Size() > MaxAgentFile {
			return refuse(fmt.Sprintf("%d bytes, more than the %d an agent file may hold", info.Size(), MaxAgentFile))
		}
		if hardLinked(info) {
			return refuse("a hard link: it shares its content with a file outside the run, so it is not committed")
		}
		// Counted as kept: redacted, as committed. A file past the bounds
		// as it is is not read.
		if full = full || kept == bounds.files || keptBytes+info.Size() > bounds.bytes; full {
			return refuse(bounds.reason())
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return fmt.Errorf("read %s: %w", rel, err)
		}
		clean := red.Bytes(data)
		if full = keptBytes+int64(len(clean)) > bounds.bytes; full {
			return refuse(bounds.reason())
		}
		kept, keptBytes = kept+1, keptBytes+int64(len(clean))
		if bytes.Equal(clean, data) {
			return nil
		}
		// Replace renames a new file over the name, so a file hard-linked
		// elsewhere keeps its content there.
		if err := Replace(p, clean); err != nil {
			return refuse("it holds a secret and could not be rewritten: " + err.Error())
		}
		out.Redacted = append(out.Redacted, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		return out, fmt.Errorf("scan $OPTR_OUTPUT_DIR %s: %w", dir, err)
	}
	return out, nil
}
