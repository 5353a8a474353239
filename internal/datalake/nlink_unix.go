//go:build unix

package datalake

import (
	"io/fs"
	"syscall"
)

// hardLinked reports whether the file has more than one name.
func hardLinked(info fs.FileInfo) bool {
	st, ok := info.Sys().(*syscall.Stat_t)
	return ok && st.Nlink > 1
}
