package config

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// compileSchema compiles Schema (CompileSchema).
func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	s, err := CompileSchema()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// validateYAML checks a YAML config against the schema s.
func validateYAML(s *jsonschema.Schema, data []byte) error { return validateAgainst(s, data) }

// validConfigs lists the configs that must be valid: every optr.yml and
// *.optr.yml under the repository's testdata, and testdata/valid here.
func validConfigs(t *testing.T) []string {
	t.Helper()
	var paths []string
	err := filepath.WalkDir(filepath.Join("..", "..", "testdata"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && (d.Name() == "optr.yml" || strings.HasSuffix(d.Name(), ".optr.yml")) {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("walk the repository's testdata: %v", err)
	}
	own, err := filepath.Glob("testdata/valid/*.yml")
	if err != nil || len(own) == 0 {
		t.Fatalf("no configs in testdata/valid (err %v)", err)
	}
	return append(paths, own...)
}

func TestValidConfigs(t *testing.T) {
	t.Parallel()
	s := compileSchema(t)
	for _, p := range validConfigs(t) {
		t.Run(p, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Load(p); err != nil {
				t.Errorf("Load: %v", err)
			}
			if err := validateYAML(s, data); err != nil {
				t.Errorf("schema: %v", err)
			}
		})
	}
}

func TestSchemaRejectsInvalid(t *testing.T) {
	t.Parallel()
	s := compileSchema(t)
	for _, f := range invalidFixtures(t) {
		t.Run(filepath.Base(f.path), func(t *testing.T) {
			t.Parallel()
			err := validateYAML(s, f.data)
			switch {
			case f.schemaAccepts && err != nil:
				t.Errorf("schema rejects %s, which is marked '# schema: accepts': %v", f.path, err)
			case !f.schemaAccepts && err == nil:
				t.Errorf("schema accepts %s; make the schema reject it or mark the file '# schema: accepts'", f.path)
			}
		})
	}
}

// TestResolvedRoundTrip writes each valid config, with its defaults filled
// in, as JSON: the result must satisfy the schema and parse back to the
// same config.
func TestResolvedRoundTrip(t *testing.T) {
	t.Parallel()
	s := compileSchema(t)
	configs := map[string]*Config{"Default": Default(func(string) string { return "set" })}
	for _, p := range validConfigs(t) {
		c, err := Load(p)
		if err != nil {
			t.Fatalf("Load(%s): %v", p, err)
		}
		configs[p] = c
	}
	for name, c := range configs {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data, err := json.Marshal(c)
			if err != nil {
				t.Fatal(err)
			}
			if err := validateYAML(s, data); err != nil {
				t.Errorf("schema rejects the resolved config: %v\n%s", err, data)
			}
			back, err := Parse("resolved.json", data)
			if err != nil {
				t.Fatalf("Parse(resolved config): %v\n%s", err, data)
			}
			// JSON objects lose the file order; compare names as sets.
			want := *c
			want.Path = "resolved.json"
			want.AgentNames = slices.Sorted(slices.Values(c.AgentNames))
			want.ConstraintNames = slices.Sorted(slices.Values(c.ConstraintNames))
			slices.Sort(back.AgentNames)
			slices.Sort(back.ConstraintNames)
			if diff := cmp.Diff(&want, back); diff != "" {
				t.Errorf("round trip mismatch (-original +parsed):\n%s", diff)
			}
		})
	}
}
