package escalation

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/optr-dev/optr/internal/datalake"
)

// File names inside a .coordination directory (architecture §4.7).
const (
	FileEscalate   = "escalate.md"
	FileBlackboard = "blackboard.json"
	FileWatcherLog = "watcher-log.md"
	FileDecision   = "decision.md"
	DirArchive     = "archive/escalations"
	// DirCEOInbox is the inbox beside the .coordination directory.
	DirCEOInbox = "ceo-inbox"
)

// maxTries bounds the names writeNew and moveNew try.
const maxTries = 1000

// writeNew creates a new file base+ext holding data, or base-2+ext,
// base-3+ext, … when the name is taken: it never overwrites a file. It
// returns the path written. Under a datalake opened with
// datalake.OpenRedacted, data is redacted.
func writeNew(base, ext string, data []byte) (string, error) {
	if err := os.MkdirAll(filepath.Dir(base), 0o755); err != nil {
		return "", err
	}
	for i := 1; i <= maxTries; i++ {
		path := numbered(base, ext, i)
		err := datalake.CreateExclusive(path, data)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return path, err
	}
	return "", fmt.Errorf("%s%s and %d numbered variants exist already", base, ext, maxTries)
}

// moveNew moves src to a new file base+ext (or a numbered variant, like
// writeNew) without overwriting anything, and returns the new path.
func moveNew(src, base, ext string) (string, error) {
	if err := os.MkdirAll(filepath.Dir(base), 0o755); err != nil {
		return "", err
	}
	for i := 1; i <= maxTries; i++ {
		path := numbered(base, ext, i)
		// A hard link fails when the target exists, so no file is ever
		// overwritten; then the source name is removed.
		err := datalake.Link(src, path)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			// No hard links here: copy, then remove.
			data, rerr := os.ReadFile(src)
			if rerr != nil {
				return "", rerr
			}
			if path, err = writeNew(base, ext, data); err != nil {
				return "", err
			}
		}
		return path, os.Remove(src)
	}
	return "", fmt.Errorf("%s%s and %d numbered variants exist already", base, ext, maxTries)
}

func numbered(base, ext string, i int) string {
	if i == 1 {
		return base + ext
	}
	return fmt.Sprintf("%s-%d%s", base, i, ext)
}

// appendFile appends data to path, creating it when missing (redacted
// under a datalake opened with datalake.OpenRedacted).
func appendFile(path string, data []byte) error {
	return datalake.Append(path, data)
}
