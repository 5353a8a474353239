package checkpoint

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/markdown"
)

// MaxFileSize bounds a checkpoint file, State included.
const MaxFileSize = 32 << 20

// fileExt ends every checkpoint file name: <id>.json.
const fileExt = ".json"

// Save writes cp to path, which must be named <cp.ID>.json (use
// datalake.Lake.CheckpointPath), as indented JSON. The file is written
// once, atomically, and never over an existing file: the saved state of a
// checkpoint is never rewritten, whatever is decided later. Saving a
// second time is an error wrapping fs.ErrExist.
func Save(path string, cp Checkpoint) error {
	if err := cp.Validate(); err != nil {
		return fmt.Errorf("save checkpoint: %w", err)
	}
	if base := filepath.Base(path); base != cp.ID+fileExt {
		return fmt.Errorf("save checkpoint %s: the file must be named %s, not %s", cp.ID, cp.ID+fileExt, base)
	}
	data, err := Encode(cp)
	if err != nil {
		return fmt.Errorf("save checkpoint %s: %w", cp.ID, err)
	}
	if len(data) > MaxFileSize {
		return fmt.Errorf("save checkpoint %s: it is %d bytes, more than the %d a checkpoint file may hold; keep large outputs in the run directory and point to them from State", cp.ID, len(data), MaxFileSize)
	}
	if err := datalake.WriteOnce(path, data); err != nil {
		return fmt.Errorf("save checkpoint %s: %w", cp.ID, err)
	}
	return nil
}

// Encode returns cp as the indented JSON Save writes, with a final newline.
func Encode(cp Checkpoint) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(cp); err != nil {
		return nil, fmt.Errorf("encode checkpoint: %w", err)
	}
	return buf.Bytes(), nil
}

// Load reads the checkpoint saved at path and checks it: one JSON object
// with no unknown members, whose id matches the file's name, and which
// passes Checkpoint.Validate. State comes back compacted.
func Load(path string) (Checkpoint, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return Checkpoint{}, fmt.Errorf("load checkpoint: %s does not exist; a checkpoint is resumed from the file its run saved and committed", path)
		}
		return Checkpoint{}, fmt.Errorf("load checkpoint: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return Checkpoint{}, fmt.Errorf("load checkpoint: %w", err)
	}
	cp, err := decode(filepath.Base(path), data)
	if err != nil {
		return Checkpoint{}, fmt.Errorf("load checkpoint %s: %w", path, err)
	}
	return cp, nil
}

// decode parses and checks the content of the checkpoint file named name.
func decode(name string, data []byte) (Checkpoint, error) {
	if len(data) > MaxFileSize {
		return Checkpoint{}, fmt.Errorf("the file is larger than %d bytes, more than a checkpoint file may hold", MaxFileSize)
	}
	id, ok := strings.CutSuffix(name, fileExt)
	if !ok {
		return Checkpoint{}, fmt.Errorf("a checkpoint file is named <id>%s, not %s", fileExt, name)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var cp Checkpoint
	if err := dec.Decode(&cp); err != nil {
		return Checkpoint{}, fmt.Errorf("not a checkpoint file: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Checkpoint{}, errors.New("not a checkpoint file: it holds more than one JSON value")
	}
	if cp.ID != id {
		return Checkpoint{}, fmt.Errorf("the file names checkpoint %q but is called %s; a checkpoint file is named after the checkpoint it holds", markdown.Shorten(cp.ID, 80), name)
	}
	if err := cp.Validate(); err != nil {
		return Checkpoint{}, err
	}
	cp.State = compact(cp.State)
	cp.Created = cp.Created.UTC()
	return cp, nil
}

// compact returns raw without insignificant space, nil for null.
func compact(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return raw // Validate has checked it is JSON: not reached
	}
	return buf.Bytes()
}
