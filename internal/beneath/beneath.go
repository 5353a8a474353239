// Package beneath reads a file below a directory that another party can
// write while optr reads it: an artifact a matrix job uploaded, after
// commands its agent wrote ran there; a delegate specialist's report,
// while the other specialists, which may write the same directory, still
// run. Such a party can turn a file into a symbolic link to /etc/shadow,
// a FIFO that never opens, or a file that grows without end, between any
// look at it and the open: the file is looked at and opened through an
// os.Root, never by following a link out of the directory, opened without
// blocking, and must be the very file looked at.
package beneath

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// NotRegularError is a path that is not read because it, or a directory
// on the way to it, is not what it must be.
type NotRegularError struct {
	// Path is the slash-separated path below the directory that failed.
	Path string
	// What it is instead: "a symbolic link", "not a directory", "not a
	// regular file", "replaced while it was read".
	What string
}

func (e *NotRegularError) Error() string { return e.Path + " is " + e.What }

// TooLargeError is a file larger than the limit it is read to.
type TooLargeError struct {
	// Path is the file's slash-separated path below the directory.
	Path string
	// Size is its size when it was looked at; 0 when it grew past Limit
	// while it was read.
	Size, Limit int64
}

func (e *TooLargeError) Error() string {
	if e.Size == 0 {
		return fmt.Sprintf("%s grew past %d bytes while it was read", e.Path, e.Limit)
	}
	return fmt.Sprintf("%s is %d bytes; at most %d are read", e.Path, e.Size, e.Limit)
}

// Open opens the regular file rel (slash-separated, plain: no "..", no
// empty or "." component) below dir for reading. Every component is looked
// at with Lstat through an os.Root (which also keeps a link swapped in
// between the look and the open from leading outside dir), and the file
// opened must be the one looked at. A link, a non-directory on the way,
// or anything but a regular file (a *NotRegularError), or a file of more
// than limit bytes (a *TooLargeError), is refused; a missing one is an
// error that wraps fs.ErrNotExist.
func Open(dir, rel string, limit int64) (*os.File, error) {
	if rel == "" || strings.Contains(rel, `\`) || !filepath.IsLocal(filepath.FromSlash(rel)) || path.Clean(rel) != rel {
		return nil, errors.New("not a plain relative path")
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	parts := strings.Split(rel, "/")
	var last fs.FileInfo
	for i := range parts {
		p := strings.Join(parts[:i+1], "/")
		fi, err := root.Lstat(p)
		if err != nil {
			return nil, err
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			return nil, &NotRegularError{Path: p, What: "a symbolic link"}
		case i < len(parts)-1 && !fi.IsDir():
			return nil, &NotRegularError{Path: p, What: "not a directory"}
		}
		last = fi
	}
	if !last.Mode().IsRegular() {
		return nil, &NotRegularError{Path: rel, What: "not a regular file"}
	}
	if last.Size() > limit {
		return nil, &TooLargeError{Path: rel, Size: last.Size(), Limit: limit}
	}
	if afterLook != nil {
		afterLook(rel)
	}
	// Without blocking: a FIFO swapped in since the look opens at once,
	// and is then not the file looked at, or, where the file looked at was
	// removed and its inode number given to the FIFO, not a regular file.
	f, err := root.OpenFile(rel, os.O_RDONLY|nonBlock, 0)
	if err != nil {
		// A link out of dir swapped in is refused by the root; a file
		// that is no longer the one looked at is refused as such.
		if fi, lerr := root.Lstat(rel); lerr == nil && !os.SameFile(fi, last) {
			return nil, &NotRegularError{Path: rel, What: "replaced while it was read"}
		}
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !os.SameFile(fi, last) || !fi.Mode().IsRegular() || fi.Size() > limit {
		f.Close()
		return nil, &NotRegularError{Path: rel, What: "replaced while it was read"}
	}
	return f, nil
}

// afterLook, set by tests only, runs between the look at a file and its
// open: where another party's swap lands when it wins the race.
var afterLook func(rel string)

// Read reads rel below dir (see Open), refusing more than limit bytes
// also when the file grows meanwhile.
func Read(dir, rel string, limit int64) ([]byte, error) {
	f, err := Open(dir, rel, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &TooLargeError{Path: rel, Limit: limit}
	}
	return data, nil
}
