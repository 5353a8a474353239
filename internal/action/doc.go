// Package action is optr's adapter to GitHub Actions (architecture §4.2, §6).
//
// It reads everything the runner hands a Docker action — the GITHUB_*
// environment, the INPUT_* inputs and the webhook payload — and turns it into
// an Event that says what to do: run, resume a checkpoint (choose), abort,
// or skip. It also owns everything the action writes back to the runner:
// step outputs (GITHUB_OUTPUT, with a random per-run delimiter), the job
// summary (GITHUB_STEP_SUMMARY, at most 1 MiB) and the log, where secrets are
// masked and untrusted text is fenced off with ::stop-commands:: so that it
// cannot issue workflow commands.
//
// Nothing here reads the process environment directly: every entry point
// takes a getenv function, so tests and the CLI decide what it sees.
package action
