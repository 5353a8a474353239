package datalake

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/redact"
	"github.com/optr-dev/optr/internal/spool"
)

// WriteFileFrom stores the same bytes as WriteFile, and spool files are
// neither listed nor kept.
func TestWriteFileFromAndSpools(t *testing.T) {
	t.Parallel()
	const key = "sk-live-abcdef1234567890"
	l := OpenRedacted(filepath.Join(t.TempDir(), ".optr"), redact.New(key))
	run, err := l.NewRun("demo", "r1")
	if err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat([]byte("0123456789abcdef"), 20000)
	data = append(append(append([]byte(key[10:]), data...), key...), key[:12]...) // cut edges and a whole key
	if err := run.WriteFile(filepath.Join(DirOutputs, "mem.json"), data); err != nil {
		t.Fatal(err)
	}
	err = run.WriteFileFrom(filepath.Join(DirOutputs, "stream.json"), func(w io.Writer) error {
		for p := data; len(p) > 0; p = p[min(len(p), 4093):] {
			if _, err := w.Write(p[:min(len(p), 4093)]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	mem, _ := os.ReadFile(run.Path(filepath.Join(DirOutputs, "mem.json")))
	streamed, _ := os.ReadFile(run.Path(filepath.Join(DirOutputs, "stream.json")))
	if !bytes.Equal(mem, streamed) || bytes.Contains(streamed, []byte(key[:12])) {
		t.Fatal("WriteFileFrom stored other bytes than WriteFile, or a piece of the key")
	}

	dir, err := run.SpoolDir()
	if err != nil {
		t.Fatal(err)
	}
	spool := filepath.Join(dir, spool.FilePrefix+"a-123.out")
	if err := os.WriteFile(spool, []byte("big"), 0o644); err != nil {
		t.Fatal(err)
	}
	files, err := run.Files()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{run.Path(filepath.Join(DirOutputs, "mem.json")), run.Path(filepath.Join(DirOutputs, "stream.json"))}
	for i := range want {
		want[i], _ = filepath.Abs(want[i])
	}
	if diff := cmp.Diff(want, files); diff != "" {
		t.Errorf("Files (-want +got):\n%s", diff)
	}

	// A live run keeps its spools through CleanStale; RemoveSpools and a
	// run whose process is gone do not.
	if _, err := l.CleanStale(t.Context(), time.Now(), time.Minute, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(spool); err != nil {
		t.Fatalf("CleanStale removed the spool of a live run: %v", err)
	}
	if err := run.Done(); err != nil {
		t.Fatal(err)
	}
	st, err := l.CleanStale(t.Context(), time.Now(), time.Minute, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(spool); err == nil || len(st.Removed) != 1 {
		t.Fatalf("the spool of a finished run is still there (removed %v)", st.Removed)
	}
	if err := os.WriteFile(spool, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run.RemoveSpools(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(spool); err == nil {
		t.Fatal("RemoveSpools left the spool")
	}
}
