// Package fieldtest reproduces, on a process a test starts, the
// restrictions optr meets where users run it (architecture §4.14, §5):
// Docker's default seccomp profile and capabilities, as the container
// action runs (no user or network namespace); a non-root user with
// supplementary groups (the hosted runner's `runner`, in `docker`); user
// namespaces refused, as the hosted runner's AppArmor restriction leaves
// them useless. Landlock capped at an older ABI is the launcher's own
// test hook (child.maxABI, set at link time).
//
// Env.Wrap makes a command start the test binary first, as root; this
// package's init recognises it, applies the restrictions to its own
// thread and executes the program in its place, so the program and all
// it starts live under them. Docker's profile comes from
// github.com/moby/profiles/seccomp (what Docker ships, not a guess),
// compiled to a filter with the launcher's own assembler. Counters are
// the listeners an adversarial test puts where nothing may arrive.
package fieldtest
