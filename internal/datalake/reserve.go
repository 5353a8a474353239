package datalake

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// reservation is a file Reserve is making ready for one of a run's files.
type reservation struct {
	ready chan struct{} // closed once f is set
	f     *os.File      // an unnamed file in the final name's directory; nil when none could be made
}

// Reserve makes, in the background, the file that rel inside the run will
// be written to (WriteFile, WriteJSON, WriteFileFrom, WriteChange): an
// unnamed file (O_TMPFILE) in rel's directory, which the write fills and
// then names. Allocating a file's inode is the costliest part of writing
// a small one (on ext4, the inode search); the pipeline reserves each
// agent's result file once the agent sent its work off (its request
// written, its process started), so that the K allocations happen while
// the agents wait, neither before the last request is out nor after the
// last answer, on the way to the run's end. An unnamed file leaves nothing behind when
// the process dies; one never written to is freed by Committable. Where
// unnamed files are not available, Reserve does nothing and the write
// makes its file as it always does.
func (r *Run) Reserve(rel string) {
	if !filepath.IsLocal(rel) || !unnamedFiles() {
		return
	}
	res := &reservation{ready: make(chan struct{})}
	r.mu.Lock()
	if r.reserved[rel] != nil {
		r.mu.Unlock()
		return
	}
	if r.reserved == nil {
		r.reserved = map[string]*reservation{}
	}
	r.reserved[rel] = res
	r.mu.Unlock()
	go func() {
		defer close(res.ready)
		dir := filepath.Dir(filepath.Join(r.Dir, rel))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return // the write reports it
		}
		res.f, _ = openUnnamed(dir)
	}()
}

// take returns the file reserved for rel, once it is ready, and forgets
// the reservation; nil when there is none.
func (r *Run) take(rel string) *os.File {
	r.mu.Lock()
	res := r.reserved[rel]
	delete(r.reserved, rel)
	r.mu.Unlock()
	if res == nil {
		return nil
	}
	<-res.ready
	return res.f
}

// release frees the files reserved and never written.
func (r *Run) release() {
	r.mu.Lock()
	left := r.reserved
	r.reserved = nil
	r.mu.Unlock()
	for _, res := range left {
		<-res.ready
		if res.f != nil {
			res.f.Close()
		}
	}
}

// pending is a file being written before it gets its final name: a
// temporary file beside it, or an unnamed one (Reserve).
type pending struct {
	f       *os.File
	unnamed bool
}

// newPending creates a temporary file for path in path's directory,
// creating the directory.
func newPending(path string) (*pending, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", dir, err)
	}
	tmp, err := os.CreateTemp(dir, ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	return &pending{f: tmp}, nil
}

// fill writes the file with write, synced to disk when durable, and gives
// it the name path, which must not exist: a hard link, unlike rename,
// refuses to replace a file. The file is discarded whatever happens: a
// reader sees the whole file under path, or no file.
func (p *pending) fill(path string, write func(io.Writer) error, durable bool) error {
	defer p.discard()
	if err := write(p.f); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if durable {
		if err := p.f.Sync(); err != nil {
			return fmt.Errorf("sync %s: %w", path, err)
		}
	}
	err := p.name(path)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("write %s: %w (files a run wrote are never rewritten)", path, fs.ErrExist)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	noteWritten(path)
	return nil
}

// name links the written file to path, readable by everyone (0644).
func (p *pending) name(path string) error {
	if p.unnamed { // made 0644 by openUnnamed
		if err := linkUnnamed(p.f, path); err != nil {
			return err
		}
		return p.f.Close()
	}
	if err := p.f.Close(); err != nil {
		return err
	}
	if err := os.Chmod(p.f.Name(), 0o644); err != nil {
		return err
	}
	return os.Link(p.f.Name(), path)
}

// discard closes the file and removes the temporary name, if any.
func (p *pending) discard() {
	p.f.Close()
	if !p.unnamed {
		os.Remove(p.f.Name())
	}
}
