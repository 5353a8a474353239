package datalake

import (
	"os"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

// unnamedFiles reports whether Reserve can make unnamed files: it links
// them by their /proc/self/fd path, so /proc must be mounted.
var unnamedFiles = sync.OnceValue(func() bool {
	_, err := os.Stat("/proc/self/fd")
	return err == nil
})

// openUnnamed creates an unnamed regular file in dir (O_TMPFILE), mode
// 0644, for linkUnnamed to name once it is written.
func openUnnamed(dir string) (*os.File, error) {
	f, err := os.OpenFile(dir, unix.O_TMPFILE|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// linkUnnamed gives the unnamed file f the name path; it fails with an
// error wrapping fs.ErrExist when path exists. linkat with AT_EMPTY_PATH
// needs CAP_DAC_READ_SEARCH; the /proc/self/fd path (open(2), O_TMPFILE)
// needs nothing.
func linkUnnamed(f *os.File, path string) error {
	src := "/proc/self/fd/" + strconv.Itoa(int(f.Fd()))
	if err := unix.Linkat(unix.AT_FDCWD, src, unix.AT_FDCWD, path, unix.AT_SYMLINK_FOLLOW); err != nil {
		return &os.LinkError{Op: "link", Old: src, New: path, Err: err}
	}
	return nil
}
