package config

import (
	"strconv"
)

// Error is one problem in a config file: an unknown key, a value of the
// wrong type, a bad value or a reference to something that does not exist.
// Parse and Load return every problem they find, joined with errors.Join;
// errors.As(err, new(*Error)) tells a config error (exit code 2) from an I/O
// error, and Errors lists them all.
type Error struct {
	// File is the config file's path as given, empty for the embedded default.
	File string
	// Line and Column locate the problem, counting from 1; both are zero when
	// the problem has no place in the file (a required key that is missing
	// from an empty file).
	Line, Column int
	// Key is the dotted path of the key, such as agents.good.provider or
	// pipelines.review.agents[1]; empty for a YAML syntax error.
	Key string
	// Msg says what is wrong and how to fix it.
	Msg string
}

// Error formats e as "file:line: key: msg", leaving out the parts e does not
// have.
func (e *Error) Error() string {
	s := e.File
	if e.Line > 0 {
		s += ":" + strconv.Itoa(e.Line)
	}
	if s != "" {
		s += ": "
	}
	if e.Key != "" {
		s += e.Key + ": "
	}
	return s + e.Msg
}

// Errors returns every *Error in err's tree, in order; nil when there is none.
func Errors(err error) []*Error {
	var out []*Error
	var walk func(error)
	walk = func(err error) {
		switch x := err.(type) {
		case nil:
		case *Error:
			out = append(out, x)
		case interface{ Unwrap() []error }:
			for _, e := range x.Unwrap() {
				walk(e)
			}
		case interface{ Unwrap() error }:
			walk(x.Unwrap())
		}
	}
	walk(err)
	return out
}
