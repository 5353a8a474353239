package matrix

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/optr-dev/optr/internal/datalake"
)

// copyTree copies every regular file below src to the same relative path
// below dst and returns their slash-separated relative paths with their
// SHA-256. Links and other special files are skipped (the pipeline removed
// them from $OPTR_OUTPUT_DIR already). A missing src copies nothing.
func copyTree(src, dst string) (map[string]string, error) {
	if src == "" {
		return nil, nil
	}
	out := map[string]string{}
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == src && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		sum, err := copyFile(p, filepath.Join(dst, rel))
		if err != nil {
			return err
		}
		out[filepath.ToSlash(rel)] = sum
		return nil
	})
	if len(out) == 0 {
		out = nil
	}
	return out, err
}

// copyFile copies the regular file src to dst (parents created, dst must
// not exist) and returns the hex SHA-256 of what it copied.
func copyFile(src, dst string) (string, error) {
	in, err := os.Open(src)
	if err != nil {
		return "", err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return "", err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	if _, err := io.Copy(io.MultiWriter(out, h), in); err != nil {
		out.Close()
		return "", err
	}
	if err := out.Close(); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// agentFile is one file a task left, verified, to be put into the run.
type agentFile struct {
	rel     string // slash-separated, below agent-files/
	taskDir string // the task folder it is in, below FilesDir
	sha256  string // what it hashed to when it was verified
	size    int64  // its size then
}

// verifyFiles checks the files a task result lists: safe relative paths,
// regular files of at most datalake.MaxAgentFile bytes reached without a
// link (beneath.Open), with the listed hashes, and no more of them than a
// run keeps (datalake.MaxAgentFiles and MaxAgentBytes, which the task's
// own run kept them to). The error says which one is wrong.
func verifyFiles(taskDir string, files map[string]string) ([]agentFile, error) {
	if len(files) > datalake.MaxAgentFiles {
		return nil, fmt.Errorf("tampered: the result lists %d agent files; a task's run keeps at most %d", len(files), datalake.MaxAgentFiles)
	}
	var out []agentFile
	var total int64
	for _, rel := range slices.Sorted(maps.Keys(files)) {
		got, size, err := hashBeneath(filepath.Join(taskDir, FilesDir), rel, datalake.MaxAgentFile)
		if err != nil {
			return nil, fmt.Errorf("tampered: agent file %q: %w", rel, err)
		}
		if want := files[rel]; got != want {
			return nil, fmt.Errorf("tampered: agent file %s hashes to %s, but the result says %s", rel, got, want)
		}
		if total += size; total > datalake.MaxAgentBytes {
			return nil, fmt.Errorf("tampered: the agent files hold more than %d bytes by %s; a task's run keeps at most %d", datalake.MaxAgentBytes, rel, datalake.MaxAgentBytes)
		}
		out = append(out, agentFile{rel: rel, taskDir: taskDir, sha256: got, size: size})
	}
	return out, nil
}

// put copies the file into the run's $OPTR_OUTPUT_DIR, out, checking that
// it is still the file verified.
func (f agentFile) put(out string) error {
	return copyBeneath(filepath.Join(f.taskDir, FilesDir), f.rel, datalake.MaxAgentFile, filepath.Join(out, filepath.FromSlash(f.rel)), f.sha256)
}

// path is where the file is, for messages.
func (f agentFile) path() string {
	return filepath.Join(f.taskDir, FilesDir, filepath.FromSlash(f.rel))
}
