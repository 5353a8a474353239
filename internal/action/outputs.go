package action

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/optr-dev/optr/internal/lazyregexp"
)

// outputNameRE is what an output name may look like: nothing that the
// runner could read as "=" or "<<".
var outputNameRE = lazyregexp.New(`^[A-Za-z_][A-Za-z0-9_-]*$`)

// Output is one step output.
type Output struct {
	// Name is the output's name, as in action.yml.
	Name string
	// Value is its value, possibly several lines.
	Value string
}

// Outputs writes step outputs to the GITHUB_OUTPUT file.
//
// It is written by hand rather than with go-githubactions' SetOutput, which
// uses a fixed delimiter: an untrusted value holding that delimiter on a
// line of its own would end the value early and inject further outputs
// (architecture §6). Outputs draws a random delimiter per run and refuses any
// value that contains it.
type Outputs struct {
	path  string
	delim string

	mu     sync.Mutex
	values []Output
}

// NewOutputs returns Outputs that append to the file at path (GITHUB_OUTPUT).
// With an empty path nothing is written, but Values still reports what was
// set, so that the CLI can print it.
func NewOutputs(path string) (*Outputs, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return nil, fmt.Errorf("draw an output delimiter: %w", err)
	}
	return &Outputs{path: path, delim: "ghadelimiter_" + hex.EncodeToString(b)}, nil
}

// Set writes the output name=value as
//
//	name<<DELIMITER
//	value
//	DELIMITER
//
// appending to the file in one write, never truncating it. It refuses a
// name outside [A-Za-z_][A-Za-z0-9_-]* and a value that contains the
// delimiter.
func (o *Outputs) Set(name, value string) error {
	if !outputNameRE.MatchString(name) {
		return fmt.Errorf("output name %q is not allowed: use letters, digits, '_' and '-', starting with a letter or '_'", name)
	}
	if strings.Contains(value, o.delim) {
		return fmt.Errorf("output %s: the value contains this run's output delimiter, so it could forge other outputs; refusing to write it", name)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.path != "" {
		record := name + "<<" + o.delim + "\n" + value + "\n" + o.delim + "\n"
		if err := appendFile(o.path, record); err != nil {
			return fmt.Errorf("write output %s to GITHUB_OUTPUT: %w", name, err)
		}
	}
	o.values = append(o.values, Output{Name: name, Value: value})
	return nil
}

// Values returns every output Set accepted, in order.
func (o *Outputs) Values() []Output {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]Output(nil), o.values...)
}

// appendFile appends s to the file at path in a single write.
func appendFile(path, s string) (err error) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	_, err = f.WriteString(s)
	return err
}
