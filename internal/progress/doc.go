// Package progress renders what a run looks like to people: the progress
// comment on the issue (architecture §4.6), edited in place as agents finish; the
// job summary with the score table and a diagram of the run; and the same
// score table as aligned text for terminals. It also holds the Coalescer that
// turns a stream of progress updates into at most one comment edit per
// interval.
//
// Rendering is pure: a View in, text out. Agent output, failure reasons,
// notes and titles are untrusted and are escaped or fenced so that they
// cannot break the Markdown around them, mention people, or forge optr's
// hidden comment markers; every comment fits GitHub's size limit.
package progress
