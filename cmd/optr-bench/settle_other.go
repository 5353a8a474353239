//go:build !unix

package main

// settle does nothing where the system offers no sync.
func settle() {}
