package inputfile

import (
	"fmt"
	"io"
	"io/fs"
	"os"
)

// NotRegularError is the error for a path that is not a regular file.
type NotRegularError struct {
	// Path is the path as given.
	Path string
	// Kind says what it is instead: "a directory", "a FIFO", ….
	Kind string
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file", e.Path, e.Kind)
}

// Open opens the regular file at path for reading. Anything else — a
// directory, a FIFO, a socket, a device — is a *NotRegularError, found
// without blocking: the file is opened non-blocking (so opening a FIFO
// with no writer returns at once) and refused on its mode before anything
// is read. A symbolic link is followed, as the user named it.
func Open(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|nonBlock, 0)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, &NotRegularError{Path: path, Kind: Kind(info.Mode())}
	}
	return f, nil
}

// ReadFile reads the regular file at path (see Open), refusing one of more
// than limit bytes without reading it whole.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info, err := f.Stat(); err == nil && info.Size() > limit {
		return nil, fmt.Errorf("%s is %d bytes; at most %d are read", path, info.Size(), limit)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit { // it grew while it was read
		return nil, fmt.Errorf("%s is larger than %d bytes; at most %d are read", path, limit, limit)
	}
	return data, nil
}

// Kind names what a file mode is, for messages: "a directory", "a FIFO",
// "a socket", "a character device", "a device", "a symbolic link", "a
// regular file".
func Kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsRegular():
		return "a regular file"
	}
	return "not a regular file"
}
