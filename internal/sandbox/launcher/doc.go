// Package launcher starts a program confined: optr runs itself again (its
// own executable, os.Executable) as a small launcher that confines its own
// process and then replaces itself with the program (execve).
//
// Why a re-exec. Landlock (landlock_restrict_self) and the capability and
// no_new_privs settings apply to the calling thread and everything it
// starts afterwards, and Go's os/exec offers no hook between fork and exec
// to call them in the child (until Go grows SysProcAttr.UseLandlock). A
// Go program also cannot fork without exec. So the child that os/exec
// forks execs optr itself, the launcher, which
//
//  1. finds itself in the namespaces its parent asked the kernel for
//     through SysProcAttr (a user and network namespace of its own, with
//     its uid mapped, when the network is confined that way), and as the
//     unprivileged user SysProcAttr.Credential named;
//  2. in a network namespace, brings up the loopback interface (with the
//     one capability, CAP_NET_ADMIN, it holds in its own namespace as an
//     ambient capability), listens on 127.0.0.1:<proxy port> there, and
//     hands that listening socket to its parent over the control socket:
//     the parent's egress proxy accepts on it, so the program's only way
//     out of the namespace is the proxy (nothing else is reachable: the
//     namespace has no other interface);
//  3. clears its ambient capabilities, sets no_new_privs and enforces the
//     Landlock ruleset (files it may read and write; with Landlock's TCP
//     rules instead of a namespace, the one port it may connect to; the
//     IPC scopes) on its own, locked OS thread;
//  4. execs the program on that same thread.
//
// Every descendant of the program — a forked daemon, a setsid child, a
// double fork — inherits the namespaces, the Landlock domain and
// no_new_privs: none of them can be shed, so confinement does not depend
// on optr watching the processes.
//
// The control socket (fd 3 in the launcher, close-on-exec there) carries
// the Spec from the parent, the launcher's answer (with the listening
// socket), and, when the exec fails, why: a successful exec closes it, so
// the parent learns the outcome without a race.
//
// Main must run before anything else in the process: Init, called from an
// init function of this package, runs it when the process was started as
// a launcher (the OPTR_SANDBOX_LAUNCHER variable), so every binary that
// links this package — optr, and the test binaries of the packages that
// start agents — can serve as its own launcher.
package launcher
