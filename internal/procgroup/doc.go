// Package procgroup runs a command as the leader of its own process group
// and stops the whole group — children and grandchildren included — when
// the command's context ends or the command finishes, so nothing a command
// agent or a command check started outlives it.
package procgroup
