package checkpoint

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/optr-dev/optr/internal/testkit/golden"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/datalake"
)

func TestSaveLoadRoundTrip(t *testing.T) {
	t.Parallel()
	cp := fixture(t)
	path := datalake.Open(t.TempDir()).CheckpointPath(cp.ID)
	if err := Save(path, cp); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(cp, got); diff != "" {
		t.Errorf("Load(Save(cp)) (-want +got):\n%s", diff)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Base(path), string(data))
}

func TestLoadCommittedFile(t *testing.T) {
	t.Parallel()
	// The file as a run committed it: the format must stay readable.
	got, err := Load(filepath.Join("testdata", "cp-9876543210-1-1.json"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(fixture(t), got); diff != "" {
		t.Errorf("Load (-want +got):\n%s", diff)
	}
}

func TestSaveIsWriteOnce(t *testing.T) {
	t.Parallel()
	cp := fixture(t)
	path := datalake.Open(t.TempDir()).CheckpointPath(cp.ID)
	if err := Save(path, cp); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	changed := cp
	changed.Recommended = 2
	err = Save(path, changed)
	if !errors.Is(err, fs.ErrExist) {
		t.Fatalf("second Save = %v, want an error wrapping fs.ErrExist", err)
	}
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Error("the second Save rewrote the file")
	}
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil || len(entries) != 1 {
		t.Errorf("checkpoints directory holds %v (%v), want only the file", entries, err)
	}
}

func TestSaveRefuses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cp := fixture(t)
	if err := Save(filepath.Join(dir, "other.json"), cp); err == nil || !strings.Contains(err.Error(), "must be named cp-9876543210-1-1.json") {
		t.Errorf("Save under another name = %v", err)
	}
	bad := cp
	bad.Recommended = 9
	if err := Save(filepath.Join(dir, cp.ID+".json"), bad); err == nil {
		t.Error("Save of an invalid checkpoint = nil error")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a refused Save left %v", entries)
	}
}

func TestLoadRejects(t *testing.T) {
	t.Parallel()
	valid, err := Encode(fixture(t))
	if err != nil {
		t.Fatal(err)
	}
	// edit returns the valid file with member k set to v (deleted when v
	// is nil).
	edit := func(k string, v any) []byte {
		var m map[string]any
		if err := json.Unmarshal(valid, &m); err != nil {
			t.Fatal(err)
		}
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	const name = "cp-9876543210-1-1.json"
	tests := []struct {
		name    string
		file    string
		data    []byte
		wantErr string
	}{
		{"empty", name, nil, "not a checkpoint file"},
		{"not JSON", name, []byte("hello"), "not a checkpoint file"},
		{"truncated", name, valid[:len(valid)/2], "not a checkpoint file"},
		{"null", name, []byte("null"), `names checkpoint ""`},
		{"an array", name, []byte("[]"), "not a checkpoint file"},
		{"two values", name, append(append([]byte{}, valid...), "{}"...), "more than one JSON value"},
		{"unknown member", name, edit("extra", 1), `unknown field "extra"`},
		{"id differs from the file name", "cp-9876543210-1-2.json", valid, `names checkpoint "cp-9876543210-1-1" but is called cp-9876543210-1-2.json`},
		{"not a .json file", "cp-9876543210-1-1", valid, "is named <id>.json"},
		{"bad trigger", name, edit("trigger", "no admissible"), "upper-case word"},
		{"bad workflow", name, edit("workflow", "../../etc"), "workflow"},
		{"no time", name, edit("created", nil), "creation time"},
		{"no options", name, edit("options", []any{}), "no options"},
		{"misnumbered options", name, edit("options", []any{map[string]any{"n": 2, "label": "Go", "description": "", "action": "proceed"}}), "option 1 is numbered 2"},
		{"unknown action", name, edit("options", []any{map[string]any{"n": 1, "label": "Go", "description": "", "action": "launch"}}), `action "launch"`},
		{"recommended out of range", name, edit("recommended", 7), "recommended option 7 does not exist; it has options 1–4"},
		{"recommended a string", name, edit("recommended", "1"), "not a checkpoint file"},
		{"state not JSON", name, bytes.Replace(valid, []byte(`"best": "codex"`), []byte(`"best": codex`), 1), "not a checkpoint file"},
		{"too large", name, append(append([]byte{}, valid...), bytes.Repeat([]byte(" "), MaxFileSize)...), "larger than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), tt.file)
			if err := os.WriteFile(path, tt.data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Load(path)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Load = %v, want an error containing %q", err, tt.wantErr)
			}
			if err != nil && !strings.Contains(err.Error(), path) {
				t.Errorf("the error %q does not name the file", err)
			}
		})
	}
	if _, err := Load(filepath.Join(t.TempDir(), name)); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("Load of a missing file = %v", err)
	}
}

func TestLoadNormalises(t *testing.T) {
	t.Parallel()
	cp := fixture(t)
	cp.State = nil
	data, err := Encode(cp)
	if err != nil {
		t.Fatal(err)
	}
	// A file written by hand: another time zone, state null.
	data = bytes.Replace(data, []byte(`"2026-03-01T12:00:00Z"`), []byte(`"2026-03-01T13:00:00+01:00"`), 1)
	data = bytes.Replace(data, []byte("\n}\n"), []byte(",\n  \"state\": null\n}\n"), 1)
	path := filepath.Join(t.TempDir(), cp.ID+".json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.State != nil || got.Created.Location() != time.UTC || !got.Created.Equal(epoch) {
		t.Errorf("Load = state %q, created %v; want no state, %v in UTC", got.State, got.Created, epoch)
	}
}
