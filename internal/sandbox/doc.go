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
//   - net: its only way out is the proxy (package proxy; Endpoint), held
//     by a network namespace of its own, else by the launcher's seccomp
//     layer (its connects go only to the proxy), else by Landlock's TCP
//     rule alone (the proxy's port on any address: not enough for strict);
//   - scope: no signal and no Unix socket outside its own — Landlock from
//     ABI 6 (signals, abstract sockets) and 9 (sockets by path), the
//     seccomp layer below that;
//   - user: when optr runs as root it runs as an unprivileged user that
//     owns its directories, with no supplementary group; when optr is not
//     root it runs as optr's user, without its supplementary groups where
//     sudo -n starts the launcher as root (launcher.Process.Sudo); optr itself is
//     made non-dumpable, so nothing reads its environment or memory
//     through /proc.
//
// What the machine allows is the launcher's to say (Probe); decide turns
// it into Layers. Package launcher applies the confinement in the child
// (optr-sandbox-launcher, or optr itself again) so that every descendant
// inherits it, and reports what its seccomp layer refused, which goes
// into the process's network record. mode auto enforces what the platform
// allows and Layers and Notes say what was not; strict refuses (Start
// fails) unless every promise holds; off runs processes as before, with
// optr's environment, and says so.
package sandbox
