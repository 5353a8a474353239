// Package program finds the executable a command names the way the
// process that runs it will: relative to the directory it runs in, or on
// the PATH it runs with, which need not be optr's own. Command agents
// resolve their program with it before each start, and command checks
// both before any agent starts (check.Resolve) and when they run, so the
// two can never disagree about whether a check can run.
package program
