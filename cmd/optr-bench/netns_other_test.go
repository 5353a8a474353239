//go:build !linux

package main

import (
	"errors"
	"testing"
)

// netnsAllowed: network namespaces are Linux's.
func netnsAllowed(*testing.T) error { return errors.New("not Linux") }
