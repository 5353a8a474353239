// Package matrix scales one optr run out over a GitHub Actions matrix
// (architecture §4.11): plan resolves the run once and writes plan.json, each
// matrix job runs one task and leaves optr-task-<id>/ for
// actions/upload-artifact, and gather loads every task's result back,
// refusing what does not belong, so that the pipeline's Driver selects,
// records and commits exactly as in a one-job run.
//
// The package owns the files that travel between the jobs — plan.json,
// optr-task-<id>/result.json and its output — and their limits. It runs
// nothing itself: a task runs through the pipeline's Prepared.Execute with
// TaskMode, a gather through pipeline.Driver with GatherMode.
package matrix
