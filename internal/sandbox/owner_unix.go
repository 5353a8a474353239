//go:build unix

package sandbox

import (
	"os"
	"syscall"
)

// owner is the user and group that own the file fi describes.
func owner(fi os.FileInfo) (uid, gid int, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return int(st.Uid), int(st.Gid), true
}

// killGroup kills the process group pid leads.
func killGroup(pid int) { _ = syscall.Kill(-pid, syscall.SIGKILL) }
