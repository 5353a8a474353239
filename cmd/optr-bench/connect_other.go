//go:build !linux

package main

import "context"

// supervisedConnect is S2, Linux's: there is no seccomp layer elsewhere.
func supervisedConnect(context.Context, string, int, int) ([]row, error) { return nil, nil }
