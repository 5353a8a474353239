package worktree

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"syscall"

	"golang.org/x/sync/errgroup"
	"golang.org/x/sys/unix"
)

// canCopy reports whether worktrees can be written from a snapshot here.
const canCopy = true

// materialize writes s's files below dir (which exists), as many at once
// as there are cores, owned by owner when it is set, and returns the stat
// data of each entry as written. Files are created, never opened: nothing
// outside dir can be reached.
func (s *snapshot) materialize(dir string, owner *Owner) ([]statData, error) {
	if !s.written {
		return nil, errNotWritten
	}
	for _, d := range s.dirs {
		p := filepath.Join(dir, filepath.FromSlash(d))
		if err := os.Mkdir(p, 0o777); err != nil {
			return nil, err
		}
		if err := chown(owner, p); err != nil {
			return nil, err
		}
	}
	stats := make([]statData, len(s.entries))
	mtime := unix.NsecToTimespec(s.mtime.UnixNano())
	var eg errgroup.Group
	eg.SetLimit(runtime.NumCPU())
	// Each worker takes the entries of one directory at a time: creating
	// files in the same directory from two threads makes them wait on the
	// directory's lock.
	for next := 0; next < len(s.entries); {
		lo, hi := next, next+1
		for hi < len(s.entries) && hi-lo < 512 && parentDir(s.entries[hi].path) == parentDir(s.entries[lo].path) {
			hi++
		}
		next = hi
		eg.Go(func() error {
			for i := lo; i < hi; i++ {
				st, err := s.entries[i].write(dir, mtime, owner)
				if err != nil {
					return fmt.Errorf("write %s: %w", s.entries[i].path, err)
				}
				stats[i] = st
			}
			return nil
		})
	}
	return stats, eg.Wait()
}

// write creates the entry below dir, files and symlinks modified at
// mtime and owned by owner when it is set, and returns its stat data.
func (e *snapEntry) write(dir string, mtime unix.Timespec, owner *Owner) (statData, error) {
	p := filepath.Join(dir, filepath.FromSlash(e.path))
	var st syscall.Stat_t
	times := []unix.Timespec{mtime, mtime}
	switch e.mode {
	case 0o120000:
		if err := syscall.Symlink(string(e.data), p); err != nil {
			return statData{}, err
		}
		if err := chown(owner, p); err != nil {
			return statData{}, err
		}
		if err := unix.UtimesNanoAt(unix.AT_FDCWD, p, times, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return statData{}, err
		}
		if err := syscall.Lstat(p, &st); err != nil {
			return statData{}, err
		}
	case 0o160000: // a submodule git has not checked out: an empty directory
		if err := syscall.Mkdir(p, 0o777); err != nil {
			return statData{}, err
		}
		if err := chown(owner, p); err != nil {
			return statData{}, err
		}
		if err := syscall.Lstat(p, &st); err != nil {
			return statData{}, err
		}
	default:
		perm := uint32(0o666)
		if e.mode == 0o100755 {
			perm = 0o777
		}
		fd, err := syscall.Open(p, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_EXCL|syscall.O_CLOEXEC|syscall.O_NOFOLLOW, perm)
		if err != nil {
			return statData{}, err
		}
		if owner != nil {
			if err := syscall.Fchown(fd, owner.UID, owner.GID); err != nil {
				syscall.Close(fd)
				return statData{}, err
			}
		}
		for b := e.data; len(b) > 0; {
			n, err := syscall.Write(fd, b)
			if err != nil && !errors.Is(err, syscall.EINTR) {
				syscall.Close(fd)
				return statData{}, err
			}
			b = b[max(n, 0):]
		}
		err = unix.UtimesNanoAt(unix.AT_FDCWD, p, times, unix.AT_SYMLINK_NOFOLLOW)
		if err == nil {
			err = syscall.Fstat(fd, &st)
		}
		if cerr := syscall.Close(fd); err == nil {
			err = cerr
		}
		if err != nil {
			return statData{}, err
		}
	}
	return statFrom(&st), nil
}

// restamp gives the files, symlinks and directories of the tree git
// checked out at dir to owner (when set), dates its files and symlinks as
// written ones are dated, and returns their stat data, for an index that
// git trusts as it trusts the written trees'.
func (s *snapshot) restamp(dir string, owner *Owner) ([]statData, error) {
	mtime := unix.NsecToTimespec(s.mtime.UnixNano())
	times := []unix.Timespec{mtime, mtime}
	for _, d := range s.dirs {
		if err := chown(owner, filepath.Join(dir, filepath.FromSlash(d))); err != nil {
			return nil, err
		}
	}
	stats := make([]statData, len(s.entries))
	for i, e := range s.entries {
		p := filepath.Join(dir, filepath.FromSlash(e.path))
		if err := chown(owner, p); err != nil {
			return nil, err
		}
		if e.mode != 0o160000 {
			if err := unix.UtimesNanoAt(unix.AT_FDCWD, p, times, unix.AT_SYMLINK_NOFOLLOW); err != nil {
				return nil, err
			}
		}
		var st syscall.Stat_t
		if err := syscall.Lstat(p, &st); err != nil {
			return nil, err
		}
		stats[i] = statFrom(&st)
	}
	return stats, nil
}
