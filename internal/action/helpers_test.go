package action

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// fixtureDir holds real webhook payloads (GitHub's documented examples) and
// adapted copies of them.
const fixtureDir = "testdata/webhooks"

func fixturePath(name string) string { return filepath.Join(fixtureDir, name) }

// mutateFixture loads the fixture name, lets edit change it, and writes the
// result to a temporary file whose path it returns.
func mutateFixture(t *testing.T, name string, edit func(m map[string]any)) string {
	t.Helper()
	b, err := os.ReadFile(fixturePath(name))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("fixture %s: %v", name, err)
	}
	edit(m)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// obj returns m[key] as an object, failing the test if it is not one.
func obj(t *testing.T, m map[string]any, key string) map[string]any {
	t.Helper()
	o, ok := m[key].(map[string]any)
	if !ok {
		t.Fatalf("fixture has no object %q", key)
	}
	return o
}

// mapEnv is a getenv over a map.
func mapEnv(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}
