//go:build unix

package main

import "syscall"

// settle waits until the file system has written what was written before
// to the disk, so that a measure after it does not pay for the writeback
// of the one before.
func settle() { syscall.Sync() }
