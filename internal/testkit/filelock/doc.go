// Package filelock takes an exclusive lock on a file between processes:
// test binaries of several packages that set up one shared tool (the
// Copilot CLI, the Mermaid CLI) in the user cache take turns.
package filelock
