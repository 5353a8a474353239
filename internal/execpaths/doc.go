// Package execpaths finds, without running anything, the files of a
// repository that a program the config runs executes or loads: the
// script a command names, the files a shell script sources, the Makefile
// behind make and what it includes, package.json and its scripts behind
// npm, yarn, pnpm and bun, the modules behind python -m, the Go packages
// behind go run and the module-local packages they import
// (architecture §4.16).
//
// An iteration trusts these files only as the pull request's base branch
// has them: a branch that changes one of them is refused before anything
// runs. The files are found in the branch's own checkout, which is sound:
// a program that would load a file it did not load before must itself
// have changed, and is then one of the changed files found.
//
// What cannot be resolved statically — a file sourced by a path computed
// at run time — makes the set take the whole folder of the script that
// sources it (Set.Unresolved says which): the check fails closed.
package execpaths
