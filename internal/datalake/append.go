package datalake

import (
	"fmt"
	"os"
	"path/filepath"
)

// Append appends data to path in one write, creating the file and its
// directories when missing; data is redacted like WriteOnce. It is for
// logs that only grow (errors.jsonl, a watcher log).
func Append(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	data = redacted(path, data)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("append to %s: %w", path, err)
	}
	noteWritten(path)
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("append to %s: %w", path, err)
	}
	return f.Close()
}

// CreateExclusive creates path holding data and fails with an error
// wrapping fs.ErrExist when it exists (O_EXCL, so two writers never share
// a name); data is redacted like WriteOnce. Unlike WriteOnce the file is
// not written through a temporary name.
func CreateExclusive(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	data = redacted(path, data)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	noteWritten(path)
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}
