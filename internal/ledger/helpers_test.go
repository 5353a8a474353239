package ledger

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/gowebpki/jcs"
)

// referenceHash computes an entry's hash the slow, obvious way, sharing no
// code with the package: decode the line, drop "hash", canonicalise with
// jcs, hash.
func referenceHash(t *testing.T, line []byte) string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("decode %s: %v", line, err)
	}
	delete(m, "hash")
	raw, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	canon, err := jcs.Transform(raw)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:])
}

// linesOf joins the lines of entries.
func linesOf(t *testing.T, entries []Entry) []byte {
	t.Helper()
	var b []byte
	for _, e := range entries {
		line, err := e.Line()
		if err != nil {
			t.Fatal(err)
		}
		b = append(b, line...)
	}
	return b
}

// splitLines splits a ledger into its lines, newlines kept.
func splitLines(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return append(out, b)
		}
		out = append(out, b[:i+1])
		b = b[i+1:]
	}
	return out
}

// asVerifyError extracts the *VerifyError in err, failing the test when
// there is none.
func asVerifyError(t *testing.T, err error) *VerifyError {
	t.Helper()
	var verr *VerifyError
	if !errors.As(err, &verr) {
		t.Fatalf("error %v is not a *VerifyError", err)
	}
	return verr
}

var testEpoch = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// runDraft is a realistic run entry for tests.
func runDraft(run string, i int) Draft {
	return Draft{
		Kind: KindRun, Run: run, Workflow: "issue-7", Time: testEpoch.Add(time.Duration(i) * time.Minute),
		Fields: map[string]any{
			"selected":      "claude",
			"intent_sha256": hex.EncodeToString(make([]byte, 32)),
			"constraints":   []string{"max-length"},
			"results": []map[string]any{
				{"agent": "claude", "admissible": true, "invariants": []string{"max-length"}, "ttv_ms": 1200 + i, "exec_ms": 900, "score": 87.5, "output_sha256": "ab"},
			},
		},
	}
}

func asVerifyErrorOK(err error, target **VerifyError) bool { return errors.As(err, target) }
