package sandbox

// Owner returns the user agents and checks run as, once Start decided
// it, when that is not optr's own: the files a process writes in its
// directory (a coding agent's tree) are made theirs from the start.
func (r *Run) Owner() (uid, gid int, ok bool) {
	if r == nil || r.uid < 0 {
		return -1, -1, false
	}
	return r.uid, r.gid, true
}

// AllowRead lets every process the run starts after it read paths, and
// its user pass through the directories above them that optr owns: what
// the processes borrow read-only, such as the workspace's objects a
// coding agent's repository reads through its alternates. Call it before
// the processes start.
func (r *Run) AllowRead(paths ...string) {
	if r == nil {
		return
	}
	r.s.Read = append(r.s.Read, paths...)
	if r.uid >= 0 {
		for _, p := range paths {
			searchable(p)
		}
	}
}
