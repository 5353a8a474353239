package datalake

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/optr-dev/optr/internal/redact"
)

// Every way this package writes a file redacts the secrets registered for
// the datalake: no call site has to remember.
func TestOpenRedactedRedactsEveryWriter(t *testing.T) {
	t.Parallel()
	const key = "ghp_SECRETvalue0123456789&<x>"
	root := filepath.Join(t.TempDir(), ".optr")
	l := OpenRedacted(root, redact.New(key))
	run, err := l.NewRun("demo", "r1")
	if err != nil {
		t.Fatal(err)
	}
	writes := map[string]func() error{
		"Run.WriteFile": func() error { return run.WriteFile(FileResult, []byte("out "+key)) },
		"Run.WriteJSON": func() error {
			return run.WriteJSON(FileSelection, map[string]string{"reason": "command printed " + key})
		},
		"Run.WriteFileFrom": func() error {
			return run.WriteFileFrom(filepath.Join(DirOutputs, "big.json"), func(w io.Writer) error {
				big := bytes.Repeat([]byte("x"), 100<<10)
				for _, piece := range [][]byte{big, []byte(key[:9]), []byte(key[9:]), big} { // split across writes
					if _, err := w.Write(piece); err != nil {
						return err
					}
				}
				return nil
			})
		},
		"AppendErrors": func() error { return l.AppendErrors(ErrorRecord{Message: "stderr: " + key}) },
		"WriteOnce":    func() error { return WriteOnce(l.CheckpointPath("cp1"), []byte(key)) },
		"Replace":      func() error { return Replace(run.Path(".coordination/blackboard.json"), []byte(key)) },
		"Append":       func() error { return Append(run.Path(".coordination/watcher-log.md"), []byte(key)) },
		"CreateExclusive": func() error {
			return CreateExclusive(filepath.Join(root, "workflows", "demo", "runs", "ceo-inbox", "x.md"), []byte("cut "+key[:12]))
		},
	}
	for name, w := range writes {
		if err := w(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	n := 0
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == FileRunning {
			return err
		}
		n++
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, piece := range []string{key, key[:12], "ghp_SECRETvalue0123456789\\u0026"} {
			if bytes.Contains(data, []byte(piece)) {
				t.Errorf("%s holds %q: %q", p, piece, data)
			}
		}
		if !bytes.Contains(data, []byte(redact.Placeholder)) {
			t.Errorf("%s has no placeholder: %q", p, data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != len(writes) {
		t.Fatalf("found %d files, want %d", n, len(writes))
	}
	// A lake opened without a redactor elsewhere keeps its bytes.
	other := filepath.Join(t.TempDir(), "plain")
	if err := WriteOnce(filepath.Join(other, "f"), []byte(key)); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(other, "f")); string(got) != key {
		t.Fatalf("a file outside every redacted lake was changed: %q", got)
	}
}
