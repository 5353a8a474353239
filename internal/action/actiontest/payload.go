package actiontest

import (
	"embed"
	"encoding/json"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"testing"
)

// webhooks holds the payload fixtures, one file per payload, named
// <event>.<action>[.<variant>].json.
//
//go:embed webhooks/*.json
var webhooks embed.FS

// Payloads are the names of every payload fixture, sorted.
func Payloads() []string {
	entries, _ := fs.ReadDir(webhooks, "webhooks") // embedded: cannot fail
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	return names
}

// Payload returns the bytes of the payload fixture name; an unknown name
// fails the test.
func Payload(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := webhooks.ReadFile(path.Join("webhooks", name))
	if err != nil {
		tb.Fatalf("payload fixture %s: %v (see actiontest.Payloads)", name, err)
	}
	return b
}

// EditPayload returns the payload fixture name as changed by edit (nil
// changes nothing), re-encoded as JSON.
func EditPayload(tb testing.TB, name string, edit func(map[string]any)) []byte {
	tb.Helper()
	b := Payload(tb, name)
	if edit == nil {
		return b
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		tb.Fatalf("payload fixture %s: %v", name, err)
	}
	edit(m)
	out, err := json.Marshal(m)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// PayloadFile writes the payload fixture name, changed by edit (nil changes
// nothing), to a file of its own and returns its path, as the runner's
// GITHUB_EVENT_PATH.
func PayloadFile(tb testing.TB, name string, edit func(map[string]any)) string {
	tb.Helper()
	p := filepath.Join(tb.TempDir(), name)
	if err := os.WriteFile(p, EditPayload(tb, name, edit), 0o644); err != nil {
		tb.Fatal(err)
	}
	return p
}
