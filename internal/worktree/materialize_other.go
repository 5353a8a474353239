//go:build !linux

package worktree

import (
	"os"
	"path/filepath"
)

// canCopy reports whether trees can be written from a snapshot here: not
// on this system, where git checks every tree out.
const canCopy = false

func (s *snapshot) materialize(string, *Owner) ([]statData, error) {
	return nil, errNotWritten
}

// restamp returns the stat data of the tree git checked out at dir, as
// far as this system tells it (modification time, size, mode).
func (s *snapshot) restamp(dir string, _ *Owner) ([]statData, error) {
	stats := make([]statData, len(s.entries))
	for i, e := range s.entries {
		st, err := lstatData(filepath.Join(dir, filepath.FromSlash(e.path)))
		if err != nil {
			return nil, err
		}
		stats[i] = st
	}
	return stats, nil
}

// lstatData is what the index records of the file at p.
func lstatData(p string) (statData, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return statData{}, err
	}
	ns := fi.ModTime().UnixNano()
	return statData{mtimeSec: uint32(ns / 1e9), mtimeNsec: uint32(ns % 1e9), size: uint32(fi.Size())}, nil
}

// lstatEntry is what the index records of the file at p, the index mode
// git gives it (0 for what git does not record) and its size.
func lstatEntry(p string) (statData, uint32, int64, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return statData{}, 0, 0, err
	}
	st, err := lstatData(p)
	return st, modeOf(fi), fi.Size(), err
}
