package sandbox

import (
	"context"
	"slices"

	"github.com/optr-dev/optr/internal/sandbox/launcher"
)

// Home is the process's own HOME and TMPDIR, empty with the sandbox off.
func (l *Launch) Home() string { return l.dir }

// Delegate confines a program that a library starts itself (the Copilot
// SDK starts the Copilot CLI with its own os/exec): it returns the path
// and the environment to hand the library instead of program and Env —
// optr's own executable, which then runs as the sandbox's shim and starts
// program confined as Start would (package launcher, Delegation), with
// the arguments, the environment (Env plus what the library adds), the
// working directory and the standard streams the library gave it. With
// the sandbox off, program and Env; where there is no launcher (outside
// Linux), program and Env with the proxy served. Finish reports, beside the hosts, a
// start that failed (a *StartError) or never happened.
func (l *Launch) Delegate(ctx context.Context, program string) (path string, environ []string, err error) {
	if l.r.Off() {
		return program, l.env, nil
	}
	if l.r.direct {
		l.serve(nil)
		return program, l.env, nil
	}
	spec, proc := l.confinement()
	d, err := launcher.Delegate(program, spec, proc)
	if err != nil {
		return "", nil, &StartError{Err: err}
	}
	l.delegation, l.delegated = d, make(chan struct{})
	go func() {
		defer close(l.delegated)
		ln, err := d.Started(ctx)
		if err != nil {
			l.delegateErr = startError(err)
			return
		}
		l.serve(ln)
		l.watch(d.Watch)
	}()
	return d.Path, append(slices.Clip(l.env), d.Env...), nil
}
