//go:build !linux

package datalake

import (
	"errors"
	"os"
)

// unnamedFiles reports whether Reserve can make unnamed files: only on
// Linux (O_TMPFILE).
func unnamedFiles() bool { return false }

func openUnnamed(string) (*os.File, error) { return nil, errors.ErrUnsupported }

func linkUnnamed(*os.File, string) error { return errors.ErrUnsupported }
