// Package env builds the environment of a process optr runs on an agent's
// behalf — a command agent, a command check, the Copilot CLI — by
// construction (architecture §4.14): it starts from nothing and adds only
// variables that carry no secret (PATH, the locale, the terminal, the time
// zone, CI and the non-secret GITHUB_*/RUNNER_* context), never from
// optr's own environment as a whole. Whatever else a process gets (its
// HOME and TMPDIR, the OPTR_* variables, the agent's env: and pass-env:)
// its caller adds by name.
//
// Credential says which variable names are GitHub or Actions credentials
// or optr's ledger key: the names a config may never pass to an agent.
package env
