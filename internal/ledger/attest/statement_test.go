package attest

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/ledger"
)

func TestStatement(t *testing.T) {
	t.Parallel()
	led := []byte("{}\n")
	res := []byte("# result\n")
	run := Run{RunID: "42-1", Workflow: "issue-7", IntentSHA256: strings.Repeat("a", 64), Selected: "claude",
		Candidates: []Candidate{{Agent: "claude", Admissible: true, Score: 87.5, OutputSHA256: strings.Repeat("b", 64)}},
		Ledger:     HeadOf(ledger.Head{Seq: 9, Hash: strings.Repeat("c", 64)})}
	st, err := New(run, FileSubject(".optr/ledger.jsonl", led), FileSubject(".optr/workflows/issue-7/runs/42-1/result.md", res))
	if err != nil {
		t.Fatal(err)
	}
	b, err := st.JSON()
	if err != nil {
		t.Fatal(err)
	}
	// Read back as a generic in-toto consumer would.
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got["_type"] != "https://in-toto.io/Statement/v1" || got["predicateType"] != PredicateType {
		t.Errorf("statement header: %v %v", got["_type"], got["predicateType"])
	}
	subjects := got["subject"].([]any)
	want := []any{
		map[string]any{"name": ".optr/ledger.jsonl", "digest": map[string]any{"sha256": "ca3d163bab055381827226140568f3bef7eaac187cebd76878e0b63e9e442356"}},
		map[string]any{"name": ".optr/workflows/issue-7/runs/42-1/result.md", "digest": map[string]any{"sha256": FileSubject("", res).Digest["sha256"]}},
	}
	if diff := cmp.Diff(want, subjects); diff != "" {
		t.Errorf("subjects (-want +got):\n%s", diff)
	}
	pred := got["predicate"].(map[string]any)
	if pred["run_id"] != "42-1" || pred["ledger"].(map[string]any)["seq"] != float64(9) {
		t.Errorf("predicate = %v", pred)
	}
}

func TestStatementRefuses(t *testing.T) {
	t.Parallel()
	ok := FileSubject("a", nil)
	for name, tc := range map[string]struct {
		run  Run
		subs []Subject
	}{
		"no run id":     {Run{}, []Subject{ok}},
		"no subject":    {Run{RunID: "1"}, nil},
		"absolute name": {Run{RunID: "1"}, []Subject{FileSubject("/etc/x", nil)}},
		"escaping name": {Run{RunID: "1"}, []Subject{FileSubject("a/../../x", nil)}},
		"no digest":     {Run{RunID: "1"}, []Subject{{Name: "a"}}},
		"twice":         {Run{RunID: "1"}, []Subject{ok, ok}},
	} {
		if _, err := New(tc.run, tc.subs...); err == nil {
			t.Errorf("%s: New accepted it", name)
		}
	}
}
