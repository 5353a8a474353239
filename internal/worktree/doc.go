// Package worktree gives each coding agent of a run a working tree and a
// repository of its own, and turns what the agent left there into a patch
// (architecture §4.12, §4.14).
//
// A [Run] owns the trees of one optr run: [Start] prunes the trees of runs
// that died without cleaning up, then [Run.Add] makes one tree per agent
// under [Options.Root] (outside the workspace), at the workspace's HEAD or
// [Options.Base]. A tree is not a linked `git worktree`: its .git is its
// own (HEAD, an index, optr's configuration — no remote, no credential, no
// hook) and borrows the workspace's objects read-only through alternates
// ([Run.ReadOnly]), so nothing of the workspace's configuration, hooks or
// refs reaches an agent, and nothing an agent does reaches the workspace
// or another agent's tree. Its files are written from one snapshot of the
// base commit read at the first Add, with an index that records them as
// written, so git sees a clean checkout without inflating every blob again
// for every agent.
//
// [Tree.Capture] records the agent's change against that commit (tracked
// edits, new and deleted files, binary-safe) and refuses what must never
// reach a repository: huge files, symlinks that point outside the tree,
// files under .git/, paths with "..", submodule (gitlink) changes and a
// secret optr handed out. [Policy.Admit] then decides whether the change
// may be selected: an empty patch, a protected path, optr's own files
// ([Own]) or too many files or deletions make it inadmissible, with the
// reason; [Constraint] puts that verdict into every result's checks.
// [Run.Close] removes every tree; it is safe to call twice and after a
// failure, a timeout or a kill of the agents. [Run.Discard] does the same
// off the run's critical path: it moves the trees out of the way at once
// and deletes their files in the background ([Run.Wait] waits for that);
// what a process that exits or is killed first leaves is deleted by the
// next Start.
//
// Only the selected result's patch is ever applied: [Apply] applies it to
// the workspace with git apply --index (checked first, never partially),
// and [Rebase] computes the files it yields on another commit (the base
// branch's tip, for a pull request), refusing a patch that no longer
// applies there.
//
// Everything is done with the real git binary.
package worktree
