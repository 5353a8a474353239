package config

import (
	"errors"
	"fmt"
	"io/fs"
)

// DefaultPath is where optr looks for its config in a repository.
const DefaultPath = ".github/optr.yml"

// ErrMissing is returned by LoadOrDefault when a config path given
// explicitly does not exist.
var ErrMissing = errors.New("config file does not exist")

// LoadOrDefault reads the config at path. When the file does not exist it
// returns the embedded Default if the path was not given explicitly, and an
// error wrapping ErrMissing if it was: a user who names a file means it.
// A file without agents keeps the default agents getenv allows (see
// Default).
func LoadOrDefault(path string, explicit bool, getenv func(string) string) (*Config, error) {
	cfg, err := load(path, getenv)
	if errors.Is(err, fs.ErrNotExist) {
		return missing(path, explicit, getenv)
	}
	return cfg, err
}

// ParseOrDefault is LoadOrDefault for a config read from elsewhere than
// the file system (a commit, through GitHub): data is the file at path,
// nil when there is none.
func ParseOrDefault(path string, data []byte, explicit bool, getenv func(string) string) (*Config, error) {
	if data == nil {
		return missing(path, explicit, getenv)
	}
	return parse(path, data, getenv)
}

// missing is the config when the file at path does not exist.
func missing(path string, explicit bool, getenv func(string) string) (*Config, error) {
	if explicit {
		return nil, fmt.Errorf("%w: %s", ErrMissing, path)
	}
	return Default(getenv), nil
}
