package ledger

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestScanGolden reads back the golden ledger: each entry must re-encode to
// exactly its line, with the members Chain gave it.
func TestScanGolden(t *testing.T) {
	t.Parallel()
	data := readTestdata(t, "golden.jsonl")
	want, err := Chain(Head{}, goldenDrafts()...)
	if err != nil {
		t.Fatal(err)
	}
	var got []Entry
	if err := Scan(bytes.NewReader(data), func(e Entry) error {
		got = append(got, e)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("scanned %d entries, want %d", len(got), len(want))
	}
	lines := splitLines(data)
	for i := range got {
		line, err := got[i].Line()
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(lines[i]), string(line)); diff != "" {
			t.Errorf("entry %d re-encodes differently (-file +Line):\n%s", i+1, diff)
		}
		w := want[i]
		w.Fields = nil
		g := got[i]
		g.Fields = nil
		if diff := cmp.Diff(w, g); diff != "" {
			t.Errorf("entry %d (-want +got):\n%s", i+1, diff)
		}
	}
	if got[0].Fields["selected"] != "claude" {
		t.Errorf("selected = %v, want claude", got[0].Fields["selected"])
	}
	if n, ok := got[2].Fields["choice"].(json.Number); !ok || n != "1" {
		t.Errorf("choice = %#v, want json.Number 1", got[2].Fields["choice"])
	}
	if got[5].Fields != nil {
		t.Errorf("an entry without fields has Fields %v, want nil", got[5].Fields)
	}
}

func TestScanStopsWhenAsked(t *testing.T) {
	t.Parallel()
	stop := errors.New("found it")
	calls := 0
	err := Scan(bytes.NewReader(readTestdata(t, "golden.jsonl")), func(e Entry) error {
		calls++
		if e.Kind == KindDecision {
			return stop
		}
		return nil
	})
	if err != stop || calls != 3 {
		t.Errorf("Scan = %v after %d calls, want the callback's error after 3", err, calls)
	}
}

func TestScanBadLines(t *testing.T) {
	t.Parallel()
	golden := readTestdata(t, "golden.jsonl")
	tests := []struct {
		name    string
		data    []byte
		entries int
		line    int64
		problem Problem
	}{
		{"torn", append(bytes.Clone(golden), `{"seq":7`...), 6, 7, ProblemTorn},
		{"garbage", append(bytes.Clone(golden), "junk\n"...), 6, 7, ProblemNotJSON},
		{"two objects", append(bytes.Clone(golden), "{} {}\n"...), 6, 7, ProblemNotJSON},
		{"null", append(bytes.Clone(golden), "null\n"...), 6, 7, ProblemNotJSON},
		{"empty", append(bytes.Clone(golden), "\n"...), 6, 7, ProblemNotJSON},
		{"no seq", append(bytes.Clone(golden), `{"time":"t","kind":"k","run":"r","workflow":"","prev":"p","hash":"h"}`+"\n"...), 6, 7, ProblemMember},
		{"no kind", append(bytes.Clone(golden), `{"seq":7,"time":"t","run":"r","workflow":"","prev":"p","hash":"h"}`+"\n"...), 6, 7, ProblemMember},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			n := 0
			err := Scan(bytes.NewReader(tt.data), func(Entry) error { n++; return nil })
			verr := asVerifyError(t, err)
			if n != tt.entries || verr.Line != tt.line || verr.Problem != tt.problem {
				t.Errorf("Scan: %d entries then %v (%s); want %d entries then line %d (%s)", n, err, verr.Problem, tt.entries, tt.line, tt.problem)
			}
		})
	}
}

// TestScanIsLenient: Scan reads what Verify would refuse, as long as the
// members are there, so that `optr ledger show` can display a damaged
// ledger.
func TestScanIsLenient(t *testing.T) {
	t.Parallel()
	data := []byte(`{"seq": 1, "time":"t","kind":"k","run":"r","workflow":"w","prev":"p","hash":"h","x":1}` + "\r\n")
	var got []Entry
	if err := Scan(bytes.NewReader(data), func(e Entry) error { got = append(got, e); return nil }); err != nil {
		t.Fatal(err)
	}
	want := []Entry{{Seq: 1, Time: "t", Kind: "k", Run: "r", Workflow: "w", Prev: "p", Hash: "h", Fields: map[string]any{"x": json.Number("1")}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestScanLongLine(t *testing.T) {
	t.Parallel()
	big := Draft{Kind: "note", Run: "r", Time: testEpoch, Fields: map[string]any{"blob": strings.Repeat("é", 200<<10)}}
	entries, err := Chain(Head{}, runDraft("1-1", 0), big, runDraft("2-1", 1))
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	if err := Scan(bytes.NewReader(linesOf(t, entries)), func(e Entry) error {
		kinds = append(kinds, e.Kind)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"run", "note", "run"}, kinds); diff != "" {
		t.Errorf("kinds (-want +got):\n%s", diff)
	}
}
