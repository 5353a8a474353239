package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Bad shapes are refused before the YAML parser sees them: a 200 KB file
// of nested "[" took the parser 165 s and 15 GB before.
func TestParseRefusesBadShapesBeforeParsing(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, data, want string
		line             int
	}{
		{"nested flow sequences", strings.Repeat("[", 200_000), "nested more than 64 deep", 1},
		{"nested flow maps", "agents: " + strings.Repeat("{a: ", 50_000), "nested more than 64 deep", 1},
		{"nested across lines", "x:\n" + strings.Repeat("[\n", 70), "nested more than 64 deep", 65},
		{"compact block sequences", "x: \n  " + strings.Repeat("- ", 80) + "y", "nested more than 64 deep", 2},
		{"deep indentation", deepIndent(80), "nested more than 64 deep", 65},
		{"too large", "# " + strings.Repeat("x", MaxFileSize), "a config may hold at most", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			_, err := Parse("optr.yml", []byte(tt.data))
			took := time.Since(start)
			var e *Error
			if !errors.As(err, &e) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Parse = %v, want an *Error containing %q", err, tt.want)
			}
			if e.Line != tt.line {
				t.Errorf("line %d, want %d", e.Line, tt.line)
			}
			t.Logf("refused in %s", took)
		})
	}
}

func deepIndent(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(strings.Repeat(" ", i) + "k:\n")
	}
	return b.String()
}

// Brackets in quoted strings, comments and block scalars are text, not
// nesting: a real config with many of them still parses.
func TestShapeIgnoresText(t *testing.T) {
	t.Parallel()
	script := strings.Repeat("[[ -f x ]] && ", 40)
	data := "agents:\n  a:\n    provider: command\n    run: [sh, -c, \"" + strings.Repeat("[", 100) + "\", '" + strings.Repeat("{", 100) + "']\n" +
		"  b: # " + strings.Repeat("[", 100) + "\n    provider: command\n    run:\n      - sh\n      - -c\n      - |\n        " + strings.Repeat("[", 100) + "\n        " + script + "\n"
	if _, err := Parse("optr.yml", []byte(data)); err != nil {
		t.Fatalf("a sound config was refused: %v", err)
	}
}

// Load reads no more than MaxFileSize+1 bytes of a huge file.
func TestLoadBoundsTheRead(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "optr.yml")
	if err := os.WriteFile(path, []byte(strings.Repeat("#", 4*MaxFileSize)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "at most") {
		t.Fatalf("Load = %v, want the size refused", err)
	}
}

// A NUL byte in an argv is a config error naming the file, line and item,
// not a transient failure at run time.
func TestNULInArgv(t *testing.T) {
	t.Parallel()
	data := "agents:\n  a:\n    provider: command\n    run: [sh, \"-c\\u0000x\"]\nconstraints:\n  c:\n    check: command\n    run:\n      - \"ok\\0\"\n"
	_, err := Parse("optr.yml", []byte(data))
	if err == nil {
		t.Fatal("a NUL byte in run was accepted")
	}
	for _, want := range []string{"optr.yml:4", "agents.a.run[1]", "optr.yml:9", "constraints.c.run[0]", "NUL byte"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

func TestMaxIntentConstraintsKey(t *testing.T) {
	t.Parallel()
	c, err := Parse("optr.yml", []byte("agents:\n  a: {provider: command, run: [x]}\nbudget:\n  max-intent-constraints: 2\n"))
	if err != nil || c.Budget.MaxIntentConstraints != 2 {
		t.Fatalf("Parse = %+v, %v", c, err)
	}
	if _, err := Parse("optr.yml", []byte("agents:\n  a: {provider: command, run: [x]}\nbudget:\n  max-intent-constraints: -1\n")); err == nil {
		t.Fatal("a negative cap was accepted")
	}
}

// The deepest file allowed, as large as allowed, still parses quickly
// enough to be a config error rather than a hang.
func BenchmarkParseWorstAllowed(b *testing.B) {
	one := "x: " + strings.Repeat("[", MaxDepth-1) + strings.Repeat("]", MaxDepth-1) + "\n"
	data := []byte(strings.Repeat(one, MaxFileSize/len(one)/2))
	for b.Loop() {
		_, _ = Parse("optr.yml", data)
	}
}

// A file that is not UTF-8 text (a binary given as the config by mistake,
// a Latin-1 file) is refused naming its line, quoting at most a short,
// escaped excerpt: never kilobytes of escaped bytes.
func TestNotTextIsRefusedShortly(t *testing.T) {
	t.Parallel()
	binary := make([]byte, 10<<10)
	for i := range binary {
		binary[i] = byte(i * 7)
	}
	copy(binary, "\x7fELF")
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"binary", binary, `x.yml:1: the file is not text ("`},
		{"latin-1", []byte("agents:\n  a: {provider: command, run: [\"caf\xe9\"]}\n"), `x.yml:2: the file is not text ("n: [\"caf\xe9\"]}")`},
		{"a NUL", []byte("agents: {}\n\x00\n"), `x.yml:2: the file is not text ("\x00")`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse("x.yml", tt.data)
			if err == nil || !strings.Contains(err.Error(), tt.want) || len(err.Error()) > 200 {
				t.Errorf("Parse = %v (%d bytes); want an error of at most 200 bytes containing %q", err, len(fmt.Sprint(err)), tt.want)
			}
		})
	}
}

// A long value is quoted in a message as a short excerpt.
func TestLongValueIsQuotedShortly(t *testing.T) {
	t.Parallel()
	_, err := Parse("x.yml", []byte("agents: \""+strings.Repeat("x", 5000)+"\"\n"))
	if err == nil || len(err.Error()) > 200 || !strings.Contains(err.Error(), `"…`) {
		t.Errorf("Parse = %v; want a short error quoting an excerpt", err)
	}
}
