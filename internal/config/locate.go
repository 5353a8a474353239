package config

import (
	"bytes"
	"fmt"
	"io"

	"github.com/optr-dev/optr/internal/inputfile"
)

// ErrorAt returns an *Error about key (a dotted key such as
// constraints.tests.run[0]) in c's file, at the line key is written on:
// for a problem found after the config was read, such as a check whose
// program is not installed. The file is read again to find the line (a
// Config keeps no positions, and such problems are rare); when it cannot
// be, or c was not read from a file, the Error has no line.
func (c *Config) ErrorAt(key, format string, args ...any) *Error {
	e := &Error{Key: key, Msg: fmt.Sprintf(format, args...)}
	if c == nil || c.Path == "" {
		return e
	}
	e.File = c.Path
	p := locate(c.Path, key)
	e.Line, e.Column = p.line, p.column
	return e
}

// locate finds where key is written in the config file at path, or its
// nearest written parent; the zero place when the file cannot be read.
func locate(path, key string) place {
	f, err := inputfile.Open(path)
	if err != nil {
		return place{}
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil || len(data) > MaxFileSize {
		return place{}
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	ps := newProblems(path)
	if _, err := checkShape(data); err != nil {
		return place{}
	}
	decode(ps, data)
	return ps.placeOf(key)
}
