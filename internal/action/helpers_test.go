package action

import (
	"testing"
)

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
