// Package launcher starts a program confined: optr starts a launcher
// (package child) that confines its own process, starts the program from
// the confined thread and stays its parent until the program and every
// descendant have ended.
//
// Which program is the launcher. optr-sandbox-launcher (Name,
// cmd/optr-sandbox-launcher: package child and nothing else, about 2 MB)
// when it lies beside optr's executable, symbolic links resolved, as the
// releases and the image ship it; otherwise optr's own executable, run
// again (os.Executable). Only that directory is looked at: no PATH, no
// working directory, no variable. The Spec carries optr's build identity
// (child.Build) and the launcher answers with its own: a launcher of
// another build refuses the Spec before it does anything, and the launch
// fails with an *UnusableError naming both files, never silently.
//
// Why a re-exec. Landlock (landlock_restrict_self) and the capability and
// no_new_privs settings apply to the calling thread and everything it
// starts afterwards, and Go's os/exec offers no hook between fork and exec
// to call them in the child (until Go grows SysProcAttr.UseLandlock). A
// Go program also cannot fork without exec. So the child that os/exec
// forks execs optr itself, the launcher, which confines itself and starts
// the program: every descendant of the program — a forked daemon, a
// setsid child, a double fork — inherits the namespaces, the Landlock
// domain, the seccomp filter and no_new_privs, none of which can be shed,
// and, the launcher being a child subreaper, ends with it (package child
// says how and why).
//
// The control socket (fd 3 in the launcher, close-on-exec there) carries
// the Spec from the parent; the launcher's answers, one JSON line each,
// every one with its build and what it can enforce (Capabilities): that
// it is confined (with the listening socket of its network namespace),
// then that the program runs or why it could not be started; then what
// its seccomp layer refuses (Watch), until the launcher ends and closes
// it. The parent learns each outcome without a race.
//
// The launcher runs from the init function of package child, which this
// package imports, so every binary that links this package — optr, the
// small launcher, and the test binaries of the packages that start agents
// — can serve as the launcher.
package launcher
