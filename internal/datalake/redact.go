package datalake

import (
	"bufio"
	"io"
	"path/filepath"
	"strings"
	"sync"

	"github.com/optr-dev/optr/internal/redact"
)

// Redaction is by construction: OpenRedacted registers a Redactor for a
// datalake root, and every function of this package that writes a file —
// Run.WriteFile, WriteFileFrom and WriteJSON, AppendErrors, WriteOnce, Replace, Append,
// CreateExclusive — redacts the bytes it writes under that root. Callers
// that write through this package (the checkpoint file, the blackboard, the
// watcher log, decision.md, the ceo-inbox, errors.jsonl, every run file)
// cannot forget to redact.
var redactors struct {
	sync.RWMutex
	byRoot map[string]*redact.Redactor
}

// OpenRedacted returns the datalake at root, like Open, and makes every
// file this package writes under root pass through r first. Registering a
// second Redactor for the same root redacts the values of both. A nil or
// zero r changes nothing.
func OpenRedacted(root string, r *redact.Redactor) *Lake {
	l := Open(root)
	if !r.Active() {
		return l
	}
	abs := absPath(l.Root)
	redactors.Lock()
	defer redactors.Unlock()
	if redactors.byRoot == nil {
		redactors.byRoot = map[string]*redact.Redactor{}
	}
	redactors.byRoot[abs] = redact.Merge(redactors.byRoot[abs], r)
	return l
}

// Redactor returns the Redactor that applies to files written at path: the
// one registered for the closest datalake root holding path, or nil.
func Redactor(path string) *redact.Redactor {
	redactors.RLock()
	defer redactors.RUnlock()
	if len(redactors.byRoot) == 0 {
		return nil
	}
	p := absPath(path)
	var best string
	var r *redact.Redactor
	for root, rr := range redactors.byRoot {
		if (p == root || strings.HasPrefix(p, root+string(filepath.Separator))) && len(root) > len(best) {
			best, r = root, rr
		}
	}
	return r
}

// Redactor returns the Redactor of the lake's files (nil when none).
func (l *Lake) Redactor() *redact.Redactor { return Redactor(l.Root) }

// redacted returns data as it may be stored at path.
func redacted(path string, data []byte) []byte {
	return Redactor(path).Bytes(data)
}

// redactedFrom returns write with what it writes redacted on the way as
// it may be stored at path (the same bytes redacted gives).
func redactedFrom(path string, write func(io.Writer) error) func(io.Writer) error {
	return func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 64<<10)
		rw := redact.NewWriter(bw, Redactor(path))
		if err := write(rw); err != nil {
			return err
		}
		if err := rw.Close(); err != nil {
			return err
		}
		return bw.Flush()
	}
}

// absPath is p made absolute and clean. Symbolic links are not resolved:
// the run's files are named from the root the lake was opened with.
func absPath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return filepath.Clean(p)
}
