// Package actionrun is optr's job inside GitHub Actions: one event in, one
// outcome out. It masks secrets before anything is printed, decides from the
// event whether to run, resume, abort or skip, lets only writers act (never
// bots), keeps one progress comment per run edited in place, runs the
// pipeline, commits the ledger and the run's artifacts back with
// compare-and-swap, and writes the step outputs and job summary.
package actionrun
