//go:build !linux

package launcher

import (
	"context"
	"errors"
	"net"
	"os/exec"
)

// ErrUnsupported is every launch outside Linux: there is no Landlock and no
// namespace to confine a program with.
var ErrUnsupported = errors.New("launcher: confinement needs Linux")

// Init does nothing outside Linux.
func Init() {}

// Process says how the launcher process itself is created.
type Process struct {
	NewNet   bool
	UID, GID int
	Sudo     string
}

// Launch is one program being started through the launcher.
type Launch struct{}

// Error is a launch the launcher could not carry out.
type Error struct{ Stage, Msg string }

func (e *Error) Error() string { return e.Stage + ": " + e.Msg }

// Wrap fails outside Linux.
func Wrap(*exec.Cmd, Spec, Process) (*Launch, error) { return nil, ErrUnsupported }

// Capabilities are what a launcher can enforce: nothing outside Linux.
type Capabilities struct {
	ABI       int
	NoSeccomp string
}

// Started fails outside Linux.
func (*Launch) Started(context.Context) (net.Listener, error) { return nil, ErrUnsupported }

// Watch does nothing outside Linux.
func (*Launch) Watch(func(Event)) {}

// Capabilities is nothing outside Linux.
func (*Launch) Capabilities() Capabilities { return Capabilities{} }

// Close does nothing outside Linux.
func (*Launch) Close() {}

// Probe fails outside Linux.
func Probe(context.Context, Spec, Process) (Capabilities, error) {
	return Capabilities{}, ErrUnsupported
}

// Delegation is the confined start of a program a library starts.
type Delegation struct {
	Path string
	Env  []string
}

// Delegate fails outside Linux.
func Delegate(string, Spec, Process) (*Delegation, error) { return nil, ErrUnsupported }

// Started fails outside Linux.
func (*Delegation) Started(context.Context) (net.Listener, error) { return nil, ErrUnsupported }

// Watch does nothing outside Linux.
func (*Delegation) Watch(func(Event)) {}

// Close does nothing outside Linux.
func (*Delegation) Close() {}
