//go:build !unix

package sandbox

import "os"

// owner is unknown where files have no Unix owner: optr never changes a
// file's owner there (it never runs processes as another user).
func owner(os.FileInfo) (uid, gid int, ok bool) { return 0, 0, false }

// killGroup does nothing where there are no process groups: the caller
// kills the process itself.
func killGroup(int) {}
