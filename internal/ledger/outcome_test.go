package ledger

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// outcomeDraft is an outcome entry of run, i minutes after testEpoch.
func outcomeDraft(run string, i int) Draft {
	return Draft{
		Kind: KindOutcome, Run: run, Workflow: "issue-7", Time: testEpoch.Add(time.Duration(i) * time.Minute),
		Fields: map[string]any{"pull_request": 12, "outcome": "merged", "agent": "claude"},
	}
}

// An outcome entry follows a run entry of its run; verify names the line
// of one that does not, whether its run is missing, recorded only after
// it, or held only by an entry of another kind — and not when verifying
// a stream that continues a ledger whose runs it has not seen.
func TestVerifyOutcomeNeedsItsRun(t *testing.T) {
	t.Parallel()
	escalation := Draft{Kind: KindEscalation, Run: "r2", Workflow: "issue-7", Time: testEpoch, Fields: map[string]any{"reason": "stuck"}}
	cases := []struct {
		name   string
		drafts []Draft
		bad    int64 // 0: valid
	}{
		{"held", []Draft{runDraft("r1", 0), runDraft("r2", 1), outcomeDraft("r1", 2)}, 0},
		{"held in the same batch as others", []Draft{runDraft("r1", 0), outcomeDraft("r1", 1), outcomeDraft("r1", 2)}, 0},
		{"missing", []Draft{runDraft("r1", 0), outcomeDraft("r9", 1)}, 2},
		{"after it", []Draft{runDraft("r1", 0), outcomeDraft("r2", 1), runDraft("r2", 2)}, 2},
		{"only an escalation", []Draft{runDraft("r1", 0), escalation, outcomeDraft("r2", 2)}, 3},
		{"first entry", []Draft{outcomeDraft("r1", 0)}, 1},
	}
	t.Run("a stream that continues a ledger", func(t *testing.T) {
		t.Parallel()
		entries, err := Chain(Head{}, runDraft("r1", 0), outcomeDraft("r1", 1))
		if err != nil {
			t.Fatal(err)
		}
		rest := linesOf(t, entries[1:])
		if _, err := verifyFrom(bytes.NewReader(rest), entries[0].Head(), nil, nil); err != nil {
			t.Fatalf("verifyFrom: %v: the runs before the stream are not the stream's to know", err)
		}
	})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			entries, err := Chain(Head{}, tc.drafts...)
			if err != nil {
				t.Fatal(err)
			}
			data := linesOf(t, entries)
			_, err = Verify(bytes.NewReader(data))
			if tc.bad == 0 {
				if err != nil {
					t.Fatalf("Verify: %v", err)
				}
				return
			}
			verr := asVerifyError(t, err)
			if verr.Line != tc.bad || verr.Problem != ProblemOutcome || !strings.Contains(verr.Reason, "holds no run entry of that run") {
				t.Fatalf("Verify: %v (line %d, %s); want line %d, %s", err, verr.Line, verr.Problem, tc.bad, ProblemOutcome)
			}
			// The same ledger as a file.
			path := filepath.Join(t.TempDir(), "ledger.jsonl")
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := VerifyFile(path); asVerifyError(t, err).Line != tc.bad {
				t.Fatalf("VerifyFile: %v; want line %d", err, tc.bad)
			}
		})
	}
}

// The run an outcome names may be in an earlier sealed segment, many
// batches before it.
func TestVerifyOutcomeAcrossSegments(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	drafts := []Draft{runDraft("first", 0)}
	for i := 1; i < 3000; i++ {
		drafts = append(drafts, runDraft("r"+strconv.Itoa(i), i))
	}
	drafts = append(drafts, outcomeDraft("first", 3000))
	entries, err := Chain(Head{}, drafts...)
	if err != nil {
		t.Fatal(err)
	}
	data := linesOf(t, entries)
	half := bytes.Index(data, []byte(`"seq":1500,`))
	cut := bytes.LastIndexByte(data[:half], '\n') + 1
	if err := os.MkdirAll(SegmentDir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(SegmentDir(path), SegmentName(1, 1499)), data[:cut], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data[cut:], 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := VerifyFile(path)
	if err != nil || sum.Entries != 3001 {
		t.Fatalf("VerifyFile: %+v, %v", sum, err)
	}
}

// Two jobs that record the same outcome (a closed event delivered twice,
// an event and the next run's read through the API) both chain it on the
// head they read; the one that commits second finds it in the remote and
// drops its own, whatever else it carries. Another outcome of the same run
// (merged, then reverted) is kept.
func TestRechainRecordsAnOutcomeOnce(t *testing.T) {
	t.Parallel()
	base, baseLines := ledgerOf(t, Head{}, runDraft("r1", 0))
	head := base[0].Head()
	first, firstLines := ledgerOf(t, head, outcomeDraft("r1", 1))
	remote := append(bytes.Clone(baseLines), firstLines...)

	again := outcomeDraft("r1", 2) // the same merge, seen a minute later
	again.Fields["by"] = "octocat"
	reverted := outcomeDraft("r1", 3)
	reverted.Fields = map[string]any{"pull_request": 12, "outcome": "reverted", "agent": "claude"}
	mine, _ := ledgerOf(t, head, again, reverted)
	appended, rechained, err := Rechain(remote, mine)
	if err != nil {
		t.Fatal(err)
	}
	full := append(bytes.Clone(remote), appended...)
	if _, err := Verify(bytes.NewReader(full)); err != nil {
		t.Fatalf("the rechained ledger does not verify: %v", err)
	}
	if n := bytes.Count(full, []byte(`"outcome":"merged"`)); n != 1 {
		t.Errorf("%d merged outcomes in the ledger, want 1:\n%s", n, full)
	}
	if n := bytes.Count(full, []byte(`"outcome":"reverted"`)); n != 1 {
		t.Errorf("%d reverted outcomes in the ledger, want 1", n)
	}
	if rechained[0].Seq != first[0].Seq || rechained[0].Hash != first[0].Hash {
		t.Errorf("the dropped outcome stands as %+v, want the remote's %+v", rechained[0], first[0])
	}
	if rechained[1].Seq != 3 || rechained[1].Fields["outcome"] != "reverted" {
		t.Errorf("the reverted outcome stands as %+v, want seq 3", rechained[1])
	}
}
