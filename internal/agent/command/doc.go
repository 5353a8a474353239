// Package command is the command agent provider: any executable (Claude
// Code, Codex CLI, aider, a script) run as one attempt of an agent, speaking
// optr's control protocol (architecture §4.5).
//
// An attempt runs the configured argv in the request's working directory
// with the intent on stdin and OPTR_WORKFLOW, OPTR_RUN_ID, OPTR_AGENT,
// OPTR_STAGE, OPTR_CONSTRAINTS, OPTR_HINT and OPTR_OUTPUT_DIR added to its
// environment; for delegate specialists (architecture §4.9) OPTR_TOPIC and
// OPTR_REPORT_PATH (empty otherwise); and for staged pipelines (architecture
// §4.10) OPTR_NEXT_STAGE (the stage to hand off to, empty for the last),
// OPTR_PREVIOUS_OUTPUT (a file holding the previous stage's output, empty
// for the first) and, only when there is feedback, OPTR_FEEDBACK (a file).
// Its stdout, with control frames removed by package frames,
// is the output; frames and line signals become Response.Signals. Exit 0 is
// success.
//
// The process runs in its own process group. When the attempt times out or
// its context is cancelled, the whole group gets SIGTERM and, after a short
// grace, SIGKILL, and Run returns promptly even if stray grandchildren still
// hold stdout or stderr open. When the attempt is over, whatever is left of
// the group is killed: nothing an attempt started outlives it. Process
// groups need a Unix system; elsewhere only the direct child is stopped.
package command
