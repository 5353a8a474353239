// Package stages runs staged handoff pipelines (mode: stages, architecture §4.10):
// an ordered list of stages, each an agent, each receiving the previous
// stage's output, none ever skipped.
//
// Run carries one pipeline through, stage after stage:
//
//   - Stage k starts only after stage k−1 handed off. Its input (stdin of a
//     command stage, the prompt of an LLM stage) is the intent followed by
//     stage k−1's output with frames removed; a command stage also gets
//     OPTR_STAGE, OPTR_NEXT_STAGE (empty for the last), OPTR_PREVIOUS_OUTPUT
//     (the file stages/NN_<stage>.out of stage k−1) and, with feedback,
//     OPTR_FEEDBACK (a file holding the last stage's output of the previous
//     completed run of the pipeline; absent when there is none).
//   - Only a HANDOFF frame naming the next stage moves the pipeline on. A
//     HANDOFF naming any other stage (unknown, earlier, itself, further
//     ahead, a path) is logged as a warning, kept in the stage's record and
//     ignored. A command stage that exits 0 without handing off fails with
//     TASK_ERROR: handoff_missing; the last stage needs no HANDOFF; an LLM
//     stage hands off by answering.
//   - An ERROR frame, a non-zero exit, a signal (a stage stopped for writing
//     past the capture limit is one), a timeout or the watcher's stuck
//     watchdog is a crash: the stage is restarted from the same input after
//     restart-backoff × 2^(n−1), capped at 30s, at most restarts times.
//     Then, and at once for a failure no restart can fix (handoff_missing,
//     a fatal error, a spent budget), the run escalates: Outcome.Escalation
//     is an escalate_ceo escalation for the caller to post and record, and
//     the run pauses at a HICCUP checkpoint (on-no-admissible: checkpoint)
//     or fails. Later stages never start.
//   - The run's hard constraints are checked on the last stage's output; a
//     failure goes to on-no-admissible like a select run's.
//
// Every stage leaves runs/<run-id>/stages/NN_<stage>.json (a Record: agent,
// attempts with each exit and error, frames seen, handoff, output_sha256,
// exec_ms) and, once it handed off, NN_<stage>.out (its output). A resumed
// HICCUP checkpoint calls Run again with StartAt at the failed stage: the
// stages before it are not run again, their committed outputs are read
// back (and their hashes checked), and the failed stage's record gets the
// new attempts appended.
//
// Outcome.LedgerFields are the run entry's stages members; Board folds
// Events into the live stage checklist, and Checklist, Text and Diagram
// render it for the progress comment, the terminal and the step summary.
// FeedbackFinder finds, through the ledger, the output the next run's first
// stage gets with feedback: true.
package stages
