// Package child is the sandbox launcher's own side: what runs in the
// process optr starts (cmd/optr-sandbox-launcher, or optr itself again)
// to confine a program. Package
// launcher is optr's side, which starts it and talks to it.
//
// The launcher (Main)
//
//  1. finds itself in the namespaces its parent asked the kernel for (a
//     user and network namespace of its own when the network is confined
//     that way), reads the Spec from the control socket (fd 3), maps its
//     own ids in a user namespace an unprivileged optr created and, in a
//     network namespace, brings up the loopback interface and listens on
//     127.0.0.1:<proxy port> there for the parent's proxy;
//  2. clears its ambient capabilities, sets no_new_privs, enforces the
//     Landlock ruleset and installs the seccomp layer (seccomp_linux.go)
//     on its own, locked main thread, whose connect and signal calls a
//     supervisor on another thread then answers (notify_linux.go);
//  3. starts the program from that same thread — as the unprivileged user
//     the Spec names, when optr runs as root — so that the program and
//     every descendant inherit the namespaces, the Landlock domain, the
//     seccomp filter and no_new_privs, none of which can be shed, and
//     reports on the control socket what the seccomp layer refuses;
//  4. stays the program's parent until every descendant has ended (see
//     supervise): the launcher is a child subreaper, so nothing the
//     program starts outlives it, not even a process that left with
//     setsid and an empty environment.
//
// Why a package of its own, with few imports. optr's binary links every
// SDK it speaks to, and a Go program initialises every package before
// main. Go initialises packages in the order of their import paths, each
// as soon as its own imports are initialised (the Go spec, "Package
// initialization"), so this package — which imports only the standard
// library's lower layers, x/sys/unix and go-landlock — is initialised
// before net/http, the TLS stack and every SDK that needs them, and its
// init runs the launcher and exits before any of those are. Keep its
// imports this small: each one added here runs its own init (and the
// inits of everything it imports) on every agent start.
package child
