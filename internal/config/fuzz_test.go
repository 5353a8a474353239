package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse feeds Parse arbitrary bytes: it must not panic, a config it
// accepts must be whole, and every problem it reports must be an *Error
// whose place lies inside the input.
func FuzzParse(f *testing.F) {
	for _, pattern := range []string{"testdata/valid/*.yml", "testdata/invalid/*.yml"} {
		paths, _ := filepath.Glob(pattern)
		for _, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	f.Add([]byte("a: &x [*x]\n"))
	f.Add([]byte("agents: &a {b: *a}\n"))
	f.Add([]byte("agents:\n  a: {<<: [*b, *c]}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse("fuzz.yml", data)
		if err == nil {
			if c == nil || len(c.AgentNames) == 0 || len(c.AgentNames) != len(c.Agents) {
				t.Fatalf("Parse accepted a config without a consistent agent list: %+v", c)
			}
			for _, name := range c.AgentNames {
				if _, ok := c.Agents[name]; !ok {
					t.Fatalf("AgentNames has %q, Agents does not", name)
				}
			}
			return
		}
		if c != nil {
			t.Fatalf("Parse returned a config along with %v", err)
		}
		// Lines as YAML counts them, as editors show them: a "\r" alone
		// breaks a line too, "\r\n" once.
		unix := strings.ReplaceAll(string(data), "\r\n", "\n")
		lines := strings.Count(unix, "\n") + strings.Count(unix, "\r") + 1
		var joined interface{ Unwrap() []error }
		if !errors.As(err, &joined) {
			t.Fatalf("Parse error %T is not a joined list of *Error", err)
		}
		for _, e := range joined.Unwrap() {
			ce, ok := e.(*Error)
			if !ok {
				t.Fatalf("problem %v is a %T, not an *Error", e, e)
			}
			if ce.File != "fuzz.yml" || ce.Line < 0 || ce.Line > lines+1 || ce.Msg == "" {
				t.Fatalf("bad *Error %+v for %d lines of input", ce, lines)
			}
		}
	})
}
