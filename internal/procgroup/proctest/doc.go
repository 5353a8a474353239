// Package proctest waits, in tests, for a process the test did not start
// itself (a grandchild, a stray) to end, so that a test can say "it never
// did X" after the process is gone rather than after a guessed sleep; and
// finds the processes a test left behind by a tag on their command lines.
package proctest
