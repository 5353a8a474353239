package config

import (
	"bufio"
	"bytes"
	"cmp"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
)

// fixture is a file under testdata/invalid and what it expects. A line
// comment "# want KEY: TEXT" expects an error on that line for KEY whose
// message contains TEXT (KEY is empty for syntax errors); several may share
// a line. "# want-nowhere KEY: TEXT" expects an error without a place. A
// line "# schema: accepts" says the JSON Schema cannot see the problems
// (references between keys, regular expressions that do not compile).
type fixture struct {
	path          string
	data          []byte
	wants         []wantError
	schemaAccepts bool
}

// wantError is one expected problem.
type wantError struct {
	Line int
	Key  string
	Text string
}

func invalidFixtures(t *testing.T) []fixture {
	t.Helper()
	paths, err := filepath.Glob("testdata/invalid/*.yml")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures in testdata/invalid (err %v)", err)
	}
	var out []fixture
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f := fixture{path: p, data: data}
		sc := bufio.NewScanner(bytes.NewReader(data))
		for line := 1; sc.Scan(); line++ {
			text := sc.Text()
			if strings.TrimSpace(text) == "# schema: accepts" {
				f.schemaAccepts = true
			}
			if rest, ok := strings.CutPrefix(text, "# want-nowhere "); ok {
				f.wants = append(f.wants, parseWant(t, p, 0, rest))
				continue
			}
			parts := strings.Split(text, "# want ")
			for _, w := range parts[1:] {
				f.wants = append(f.wants, parseWant(t, p, line, strings.TrimSpace(w)))
			}
		}
		if len(f.wants) == 0 {
			t.Fatalf("%s expects no error; add # want comments", p)
		}
		out = append(out, f)
	}
	return out
}

func parseWant(t *testing.T, path string, line int, s string) wantError {
	key, text, ok := strings.Cut(s, ": ")
	if !ok {
		t.Fatalf("%s:%d: want comment %q is not KEY: TEXT", path, line, s)
	}
	return wantError{Line: line, Key: key, Text: text}
}

func TestParseInvalid(t *testing.T) {
	t.Parallel()
	for _, f := range invalidFixtures(t) {
		t.Run(filepath.Base(f.path), func(t *testing.T) {
			t.Parallel()
			c, err := Load(f.path)
			if err == nil {
				t.Fatalf("Load(%s) succeeded, want errors", f.path)
			}
			if c != nil {
				t.Errorf("Load(%s) returned a config along with its error", f.path)
			}
			var got []wantError
			for _, e := range Errors(err) {
				if e.File != f.path {
					t.Errorf("error %q names file %q, want %q", e, e.File, f.path)
				}
				got = append(got, wantError{Line: e.Line, Key: e.Key, Text: e.Msg})
			}
			if n := len(strings.Split(err.Error(), "\n")); n != len(got) {
				t.Errorf("the error has %d lines but %d *Error values: every problem must be an *Error", n, len(got))
			}
			byPlace := func(a, b wantError) int { return cmp.Or(cmp.Compare(a.Line, b.Line), strings.Compare(a.Key, b.Key)) }
			want := slices.Clone(f.wants)
			slices.SortStableFunc(want, byPlace)
			slices.SortStableFunc(got, byPlace)
			// A message matches when it contains the wanted text.
			for i := range min(len(want), len(got)) {
				if want[i].Line == got[i].Line && want[i].Key == got[i].Key && strings.Contains(got[i].Text, want[i].Text) {
					got[i].Text = want[i].Text
				}
			}
			if diff := gocmp.Diff(want, got); diff != "" {
				t.Errorf("Load(%s) errors mismatch (-want +got):\n%s\nfull error:\n%v", f.path, diff, err)
			}
		})
	}
}
