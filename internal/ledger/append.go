package ledger

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Append chains drafts onto the ledger at path and writes them, creating
// the file and its directory when missing. It holds an exclusive lock on
// the file meanwhile, so appends from several goroutines or processes never
// interleave; it reads only the file's last line to find the head; it
// writes all new lines with one write and syncs them to disk. If the last
// line is torn or bad, Append writes nothing and says how to repair it.
func Append(path string, drafts ...Draft) ([]Entry, error) {
	if len(drafts) == 0 {
		return nil, nil
	}
	for i, d := range drafts {
		if err := d.validate(); err != nil {
			return nil, fmt.Errorf("append to ledger %s: draft %d (kind %q): %w", path, i+1, d.Kind, err)
		}
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("append to ledger: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("append to ledger: %w", err)
	}
	// Close errors are of no interest: the lines are synced before it, and
	// a failed write or sync is reported on its own.
	defer f.Close()
	if err := lockFile(f, true); err != nil {
		return nil, fmt.Errorf("lock ledger %s: %w", path, err)
	}
	defer unlockFile(f)

	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("append to ledger: %w", err)
	}
	size := fi.Size()
	head, err := readTailHead(f, size)
	if err != nil {
		return nil, errTail(path, "refusing to append", err)
	}
	entries, err := Chain(head, drafts...)
	if err != nil {
		return nil, fmt.Errorf("append to ledger %s: %w", path, err)
	}
	var buf []byte
	for _, e := range entries {
		line, err := e.Line()
		if err != nil {
			return nil, fmt.Errorf("append to ledger %s: %w", path, err)
		}
		buf = append(buf, line...)
	}

	if _, err := f.Write(buf); err != nil {
		return nil, rollback(f, size, fmt.Errorf("write ledger %s: %w", path, err))
	}
	if err := f.Sync(); err != nil {
		return nil, rollback(f, size, fmt.Errorf("sync ledger %s: %w", path, err))
	}
	if size == 0 {
		// A new file's directory entry must reach the disk too. The entries
		// are already durable in the file, so a failure here is not worth
		// reporting as a failed append (a retry would record them twice).
		syncDir(dir)
	}
	return entries, nil
}

// rollback cuts the file back to size after a failed write, so that no
// torn line is left behind.
func rollback(f *os.File, size int64, cause error) error {
	if err := f.Truncate(size); err != nil {
		return errors.Join(cause, fmt.Errorf("remove the partly written lines: %w; run `optr ledger verify` and remove the torn line", err))
	}
	return cause
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// TailHead returns the head of the ledger at path, reading only its last
// line. A missing file is an empty ledger. A torn or bad last line is an
// error, as for Append.
func TailHead(path string) (Head, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return Head{}, nil
	}
	if err != nil {
		return Head{}, fmt.Errorf("read ledger head: %w", err)
	}
	defer f.Close()
	if err := lockFile(f, false); err != nil {
		return Head{}, fmt.Errorf("lock ledger %s: %w", path, err)
	}
	defer unlockFile(f)
	fi, err := f.Stat()
	if err != nil {
		return Head{}, fmt.Errorf("read ledger head: %w", err)
	}
	head, err := readTailHead(f, fi.Size())
	if err != nil {
		return Head{}, errTail(path, "cannot read the head", err)
	}
	return head, nil
}
