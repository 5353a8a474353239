// Package worktree gives each coding agent of a run its own git worktree
// and turns what the agent left there into a patch (architecture §4.12).
//
// A Run owns the worktrees of one optr run: Start prunes the worktrees of
// runs that died without cleaning up, then Add creates one worktree per
// agent, detached at the workspace's HEAD, under Options.Root (outside the
// workspace). The first is checked out by git and read into memory; the
// others are written from that snapshot (their own files, never links)
// with an index that records them as written, so git treats them as its
// own clean checkout without inflating every blob again. Tree.Capture records the agent's change against that commit
// (tracked edits, new and deleted files, binary-safe) and refuses what must
// never reach a repository: huge files, symlinks that point outside the
// worktree, files under .git/, paths with "..", and submodule (gitlink)
// changes. Policy.Admit then decides whether the change may be selected:
// an empty patch, a protected path or too many files make it inadmissible,
// with the reason. Run.Close removes every worktree; it is safe to call
// twice and after a failure, a timeout or a kill of the agents. Run.Discard
// does the same off the run's critical path: it moves the trees out of the
// way at once and deletes their files in the background (Run.Wait waits
// for that); what a process that exits or is killed first leaves is
// deleted by the next Start.
//
// Only the selected result's patch is ever applied: Apply applies it to the
// workspace with git apply --index (checked first, never partially), and
// Rebase computes the files it yields on another commit (the base branch's
// tip, for a pull request), refusing a patch that no longer applies there.
//
// Everything is done with the real git binary.
package worktree
