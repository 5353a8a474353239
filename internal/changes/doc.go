// Package changes delivers the selected result's code change (architecture
// §4.12): as a pull request, by carrying its patch onto the base branch's
// tip (package worktree) and pushing it through the Git Data API (package
// github), or, in the CLI, applied to the working tree. Only π*'s patch
// ever comes here.
package changes
