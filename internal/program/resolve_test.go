package program

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestResolve(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(rel string, mode os.FileMode) string {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	first := write("first/tool", 0o755)
	write("second/tool", 0o755)
	write("noexec/tool", 0o644)
	write("noexec/only", 0o644)
	local := write("work/bin/run.sh", 0o755)

	tests := []struct {
		name    string
		argv0   string
		dir     string
		path    string
		want    string
		wantErr string
	}{
		{"first match on PATH", "tool", "", dir + "/first:" + dir + "/second", first, ""},
		{"non-executable entries are passed over", "tool", "", dir + "/noexec:" + dir + "/first", first, ""},
		{"relative PATH entries are skipped", "tool", "", "first:" + dir + "/second", filepath.Join(dir, "second/tool"), ""},
		{"only a non-executable match", "only", "", dir + "/noexec", "", "not executable"},
		{"nowhere", "tool", "", dir + "/work", "", "not found in PATH"},
		{"empty PATH", "tool", "", "", "", "not found in PATH"},
		{"relative to the working directory", "./bin/run.sh", filepath.Join(dir, "work"), "", local, ""},
		{"absolute", local, "/", "", local, ""},
		{"missing", "./bin/nope", filepath.Join(dir, "work"), "", "", "does not exist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Resolve(tt.argv0, tt.dir, tt.path)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Resolve = %q, %v; want an error mentioning %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Resolve = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}
