// Package sandbox runs what an agent may execute — a command agent, a
// command check — with only what it was given (architecture §4.14).
//
// A Run is the sandbox of one optr run: it knows what this machine
// allows (Probe), which layers sandbox.mode asks for, the run's egress
// proxy and where processes get their own HOME and TMPDIR. For each
// process, Run.Command prepares a Launch:
//
//   - env: the environment is built (package env), never inherited: the
//     allowlisted base, a fresh HOME and TMPDIR, the proxy variables, and
//     the variables the caller names (OPTR_*, the agent's env: and
//     pass-env:);
//   - fs: Landlock lets it write only its own directories and read the
//     system, PATH, the tool cache and sandbox.read;
//   - net: its only way out is the proxy (package proxy), in a network
//     namespace of its own, else by Landlock's TCP rules;
//   - user: when optr runs as root it runs as an unprivileged user that
//     owns its directories; optr itself is made non-dumpable, so nothing
//     reads its environment or memory through /proc.
//
// Package launcher applies the confinement in the child (a re-exec of
// optr itself) so that every descendant inherits it. mode auto enforces
// what the platform allows and Layers and Notes say what was not; strict
// refuses (New fails) when a layer cannot be enforced; off runs processes
// as before, with optr's environment, and says so.
package sandbox
