// Package patch reads a code change as git diff --binary writes it (the
// form optr captures every agent's change in): each file's path, what its
// mode was and becomes (an executable, a symbolic link), whether it is
// binary, and the lines it adds, numbered as in the new file. Threat
// detection judges a change by them (package detect), and the capture of
// a change looks in them for a secret cut into pieces (package worktree).
package patch
