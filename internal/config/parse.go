package config

import (
	"bytes"
	"fmt"
	"io"

	"github.com/optr-dev/optr/internal/inputfile"
)

// Load reads and parses the config file at path (see Parse). A missing file is an error
// that wraps fs.ErrNotExist, so that a caller may fall back to Default when
// the path was not given explicitly; problems in the file are *Error values
// (see Parse).
func Load(path string) (*Config, error) {
	return load(path, nil)
}

// load is Load with the environment that decides the default agents a file
// without agents keeps.
func load(path string, getenv func(string) string) (*Config, error) {
	f, err := inputfile.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	defer f.Close()
	// Read one byte past the limit, so a huge file is refused without
	// being read whole.
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	return parse(path, data, getenv)
}

// Parse reads a config from data, fills in the defaults and validates it.
// file names the source in errors and becomes Config.Path.
//
// A file larger than MaxFileSize or nested deeper than MaxDepth is refused
// before it is parsed, in time linear in its size.
//
// Unknown keys, values of the wrong type, bad values and references to
// agents or constraints that do not exist are all reported, not only the
// first: the error joins one *Error per problem (errors.Join), in file
// order, each naming the file, line and dotted key.
//
// A file without an agents key keeps the embedded default's agents, as
// Default makes them in an empty environment (LoadOrDefault passes the real
// one).
func Parse(file string, data []byte) (*Config, error) {
	return parse(file, data, nil)
}

func parse(file string, data []byte, getenv func(string) string) (*Config, error) {
	// A byte order mark is allowed at the start of a YAML stream (YAML 1.2
	// §5.2); editors on Windows write one.
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	ps := newProblems(file)
	if at, err := checkShape(data); err != nil {
		ps.addAt(at, "", "%s", err)
		return nil, ps.err()
	}
	c := decode(ps, data)
	if c == nil {
		return nil, ps.err()
	}
	keepDefaultAgents(c, ps.written, getenv)
	applyDefaults(c, ps.written)
	validate(c, ps)
	if err := ps.err(); err != nil {
		return nil, err
	}
	c.Path = file
	return c, nil
}
