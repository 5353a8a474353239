// Package cli implements optr's commands. Each command owns its I/O through
// the CLI struct (stdin, stdout, stderr, the environment), so tests drive
// them with buffers, and one place turns errors into exit codes:
// 0 success (a paused run is a success), 1 the run failed, 2 usage or
// configuration error.
package cli
