package ledger

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/optr-dev/optr/internal/testkit/golden"

	"github.com/google/go-cmp/cmp"
)

// goldenDrafts are the entries of testdata/golden.jsonl: each kind optr
// writes, and values that exercise canonical encoding.
func goldenDrafts() []Draft {
	at := func(min int) time.Time { return testEpoch.Add(time.Duration(min) * time.Minute) }
	return []Draft{
		{Kind: KindRun, Run: "1001-1", Workflow: "issue-7", Time: at(0), Fields: map[string]any{
			"selected":      "claude",
			"intent_sha256": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
			"constraints":   []string{"max-length", "no-secrets"},
			"commit":        "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
			"results": []map[string]any{
				{"agent": "claude", "admissible": true, "invariants": []string{"max-length", "no-secrets"}, "ttv_ms": 8123, "exec_ms": 7900, "score": 91.25, "output_sha256": "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae"},
				{"agent": "codex", "admissible": false, "invariants": []string{"max-length"}, "ttv_ms": 12000, "exec_ms": 11500, "score": 40, "output_sha256": "fcde2b2edba56bf408601fb721fe9b5c338d10ee429ea04fae5511b68fbf8fb9"},
			},
		}},
		{Kind: KindCheckpoint, Run: "1002-1", Workflow: "issue-8", Time: at(5), Fields: map[string]any{
			"checkpoint": "cp-1002-1",
			"trigger":    "NO_ADMISSIBLE",
			"options":    []string{"Proceed", "Skip", "Abort"},
			"context":    "Überprüfung fehlgeschlagen ✓ 🚀 <script>&amp; \"quoted\" \\ \u0001",
		}},
		{Kind: KindDecision, Run: "1002-1", Workflow: "issue-8", Time: at(9), Fields: map[string]any{
			"checkpoint": "cp-1002-1", "choice": 1, "by": "octocat", "note": "ship it",
		}},
		{Kind: KindEscalation, Run: "1003-1", Workflow: "issue-9", Time: at(12), Fields: map[string]any{
			"reason": "3 agents failed", "decision": "escalate_ceo", "mention": []string{"@org/team"},
		}},
		{Kind: KindRun, Run: "1004-2", Workflow: "nightly", Time: at(20).Add(123456 * time.Microsecond), Fields: map[string]any{
			"selected": nil, "results": []any{}, "constraints": []string{},
			"numbers": map[string]any{"safe": MaxSafeInteger, "neg": -17, "tiny": 1e-7, "tenth": 0.1},
			"z\ue000": "after", "z😀": "before (UTF-16 order)",
		}},
		{Kind: "note", Run: "1004-2", Workflow: "", Time: at(21)},
	}
}

// TestGoldenLedger pins the exact bytes (and so the hashes) Chain writes.
// Run with UPDATE_GOLDEN=1 to regenerate testdata/golden.jsonl.
func TestGoldenLedger(t *testing.T) {
	t.Parallel()
	entries, err := Chain(Head{}, goldenDrafts()...)
	if err != nil {
		t.Fatal(err)
	}
	got := linesOf(t, entries)
	golden.Check(t, "golden.jsonl", string(got))

	for i, line := range splitLines(got) {
		if h := referenceHash(t, line[:len(line)-1]); h != entries[i].Hash {
			t.Errorf("line %d: hash %s, reference computes %s", i+1, entries[i].Hash, h)
		}
	}
}

func TestVerifyGolden(t *testing.T) {
	t.Parallel()
	data := readTestdata(t, "golden.jsonl")
	got, err := Verify(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	entries, err := Chain(Head{}, goldenDrafts()...)
	if err != nil {
		t.Fatal(err)
	}
	want := Summary{Entries: int64(len(entries)), Head: entries[len(entries)-1].Head()}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
}

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := readFileTestdata(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func readFileTestdata(name string) ([]byte, error) {
	return os.ReadFile(filepath.Join("testdata", name))
}
