package worktree

import "syscall"

// statFrom takes git's stat data from a stat result.
func statFrom(st *syscall.Stat_t) statData {
	return statData{
		ctimeSec: uint32(st.Ctim.Sec), ctimeNsec: uint32(st.Ctim.Nsec),
		mtimeSec: uint32(st.Mtim.Sec), mtimeNsec: uint32(st.Mtim.Nsec),
		dev: uint32(st.Dev), ino: uint32(st.Ino), uid: st.Uid, gid: st.Gid, size: uint32(st.Size),
	}
}

// lstatEntry is what the index records of the file at p, the index mode
// git gives it (0 for what git does not record) and its size.
func lstatEntry(p string) (statData, uint32, int64, error) {
	var st syscall.Stat_t
	if err := syscall.Lstat(p, &st); err != nil {
		return statData{}, 0, 0, err
	}
	var mode uint32
	switch st.Mode & syscall.S_IFMT {
	case syscall.S_IFLNK:
		mode = 0o120000
	case syscall.S_IFDIR:
		mode = 0o160000
	case syscall.S_IFREG:
		mode = 0o100644
		if st.Mode&0o100 != 0 {
			mode = 0o100755
		}
	}
	return statFrom(&st), mode, st.Size, nil
}
