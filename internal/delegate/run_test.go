package delegate

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/executor"
	"github.com/optr-dev/optr/internal/status"
)

// TestBarrierBehaviour runs four topics with 4, 3, 2 and 1 valid reports
// under the default threshold 0.5: 100% completes, 75% and 50% complete
// with a warning, 25% fails (§4.9 step 6).
func TestBarrierBehaviour(t *testing.T) {
	t.Parallel()
	tests := []struct {
		valid      int
		status     status.Status
		rate       float64
		partial    bool
		errorLines int
	}{
		{4, status.Completed, 1, false, 0},
		{3, status.Completed, 0.75, true, 1}, // with a warning
		{2, status.Completed, 0.5, true, 2},  // with a warning
		{1, status.Failed, 0.25, true, 4},    // three topics and the run itself
	}
	for _, tt := range tests {
		t.Run(Percent(tt.rate), func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			h.coordinator("planner", commandPlan("hash chains", "witnesses", "checkpoints", "merkle trees"))
			var agents []string
			for i := range 4 {
				name := "s" + strconv.Itoa(i+1)
				mode := "good"
				if i >= tt.valid {
					mode = "falsecounts"
				}
				h.specialist(name, mode)
				agents = append(agents, name)
			}
			o, err := Run(t.Context(), h.input(pipeline("planner", agents...)))
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if warned := tt.status == status.Completed && tt.partial; o.Warned() != warned {
				t.Errorf("Warned() = %v, want %v", o.Warned(), warned)
			}
			if o.Status != tt.status || o.SuccessRate != tt.rate || o.Valid != tt.valid {
				t.Fatalf("status %s rate %v valid %d, want %s %v %d (%s)", o.Status, o.SuccessRate, o.Valid, tt.status, tt.rate, tt.valid, o.Message)
			}
			if want := SuccessLine(tt.valid, 4, tt.rate); !strings.Contains(o.Summary, want) || !strings.Contains(o.SummaryText, want) {
				t.Errorf("summary lacks %q:\n%s", want, o.Summary)
			}
			for _, s := range []string{"### Summary", "### Phases", "### Artifacts", "### Next Steps", "Context reduction: "} {
				if !strings.Contains(o.Summary, s) {
					t.Errorf("summary lacks %q:\n%s", s, o.Summary)
				}
			}
			overview := readFile(t, o.Overview)
			if got := strings.Contains(overview, "## Partial Success"); got != tt.partial {
				t.Errorf("OVERVIEW.md has Partial Success = %v, want %v:\n%s", got, tt.partial, overview)
			}
			var lines []string
			if data, err := os.ReadFile(filepath.Join(h.lake, "errors.jsonl")); err == nil {
				lines = strings.Split(strings.TrimSpace(string(data)), "\n")
			}
			if len(lines) != tt.errorLines {
				t.Errorf("errors.jsonl has %d lines, want %d:\n%s", len(lines), tt.errorLines, strings.Join(lines, "\n"))
			}
			if tt.errorLines > 0 {
				var e datalake.ErrorRecord
				// Topic 4 always fails; its line comes after the other topics'.
				if err := json.Unmarshal([]byte(lines[3-tt.valid]), &e); err != nil {
					t.Fatal(err)
				}
				want := datalake.ErrorRecord{Timestamp: "2026-11-23T12:00:00Z", WorkflowID: "r1", Command: "delegate", ErrorType: ReasonCounts,
					Message: e.Message, Agent: "s4.004", Class: "systematic", Details: datalake.ErrorDetails{Topic: "merkle trees", ReportPath: "specs/001_research/reports/004_merkle-trees.md", RecoveryHint: hintFor(ReasonCounts)}}
				if diff := cmp.Diff(want, e); diff != "" {
					t.Errorf("errors.jsonl line (-want +got):\n%s", diff)
				}
				if !strings.Contains(e.Message, "findings_count is 5 but ## Findings lists 2 bullets") {
					t.Errorf("message does not say what to fix: %s", e.Message)
				}
			}
		})
	}
}

// TestRunLeavesEveryStepsFile checks the files, the invocation plan's exact
// form, the ledger members and the results of a clean run.
func TestRunLeavesEveryStepsFile(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.coordinator("planner", commandPlan("hash chains", "witnesses"))
	h.specialist("scout", "good")
	h.specialist("analyst", "silent") // no REPORT_CREATED line: the file still counts
	o, err := Run(t.Context(), h.input(pipeline("planner", "scout", "analyst")))
	if err != nil {
		t.Fatal(err)
	}
	if o.Spec != "specs/001_research" || o.Status != status.Completed {
		t.Fatalf("spec %s status %s (%s)", o.Spec, o.Status, o.Message)
	}
	plan := readFile(t, filepath.Join(o.SpecDir, ".invocation-plan.txt"))
	wantPlan := "expected_invocations: 2\n001\thash chains\treports/001_hash-chains.md\n002\twitnesses\treports/002_witnesses.md\nPLAN_COMPLETE\n"
	if diff := cmp.Diff(wantPlan, plan); diff != "" {
		t.Errorf(".invocation-plan.txt (-want +got):\n%s", diff)
	}
	// Each report is at its planned path, and nothing else is left: the
	// folders the specialists wrote their reports in are gone.
	var files []string
	err = filepath.WalkDir(o.SpecDir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && path != o.SpecDir {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	files = relTo(o.SpecDir, files)
	wantFiles := []string{".invocation-plan.txt", "OVERVIEW.md", "reports", "reports/001_hash-chains.md", "reports/002_witnesses.md"}
	if diff := cmp.Diff(wantFiles, files); diff != "" {
		t.Errorf("the spec folder (-want +got):\n%s", diff)
	}
	var names []string
	for _, r := range o.Results {
		names = append(names, r.Agent)
	}
	// A specialist wrote its report in a folder of its own, which no other
	// specialist may write: not in reports/, which optr alone writes.
	own := filepath.Join(o.SpecDir, DirCandidates, "001_hash-chains.scout", "001_hash-chains.md")
	if scout := o.Results[1]; !strings.Contains(scout.Raw, "REPORT_CREATED: "+own+"\n") {
		t.Errorf("scout's REPORT_CREATED is not its own folder's %s:\n%s", own, scout.Raw)
	}
	if diff := cmp.Diff([]string{"planner", "scout.001", "analyst.002"}, names); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	data, err := json.Marshal(o.Ledger)
	if err != nil {
		t.Fatal(err)
	}
	report := readFile(t, filepath.Join(o.SpecDir, "reports/001_hash-chains.md"))
	var got struct {
		Mode        string         `json:"mode"`
		Spec        string         `json:"spec"`
		SuccessRate float64        `json:"success_rate"`
		Reports     []LedgerReport `json:"reports"`
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if got.Mode != "delegate" || got.Spec != "specs/001_research" || got.SuccessRate != 1 || len(got.Reports) != 2 {
		t.Fatalf("ledger members = %s", data)
	}
	want := LedgerReport{Topic: "hash chains", Path: "specs/001_research/reports/001_hash-chains.md", Agent: "scout.001",
		Status: "valid", SHA256: executor.SHA256Hex(report), FindingsCount: 2, RecommendationsCount: 1}
	if diff := cmp.Diff(want, got.Reports[0]); diff != "" {
		t.Errorf("ledger report (-want +got):\n%s", diff)
	}
	if o.ContextReduction <= 0 || o.ContextReduction >= 1 {
		t.Errorf("context reduction %v", o.ContextReduction)
	}
	if !strings.Contains(o.Checklist(), "- [x] 001 hash chains — valid, 2 findings") {
		t.Errorf("checklist:\n%s", o.Checklist())
	}
}

// With one candidate, optr moves a specialist's report from its own folder
// to the planned path once the specialists are done, valid or not; a
// report that is not a file is not moved, not followed, and not kept.
func TestOnlyAReportFileIsMovedToItsPlannedPath(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.coordinator("planner", commandPlan("hash chains", "witnesses", "checkpoints"))
	h.specialist("scout", "good")
	h.specialist("analyst", "link")
	h.specialist("critic", "falsecounts")
	o, err := Run(t.Context(), h.input(pipeline("planner", "scout", "analyst", "critic")))
	if err != nil {
		t.Fatal(err)
	}
	if o.Valid != 1 || len(o.Topics) != 3 || o.Topics[1].Failure == nil || o.Topics[1].Failure.Type != ReasonReportNotFile {
		t.Fatalf("valid %d, topics %+v", o.Valid, o.Topics)
	}
	files, refused, err := o.Keep(nil)
	if err != nil {
		t.Fatal(err)
	}
	kept := relTo(o.SpecDir, files)
	// The invalid report is kept where it was planned, as it was before
	// specialists had folders of their own; the link is not.
	want := []string{".invocation-plan.txt", "OVERVIEW.md", "reports/001_hash-chains.md", "reports/003_checkpoints.md"}
	if diff := cmp.Diff(want, kept); diff != "" {
		t.Errorf("kept (-want +got):\n%s", diff)
	}
	link := DirCandidates + "/002_witnesses.analyst/002_witnesses.md"
	if len(refused) != 1 || refused[0].Path != link || !strings.Contains(refused[0].Reason, "not a file of the delegation") {
		t.Errorf("refused %+v, want only %s", refused, link)
	}
	if fi, err := os.Lstat(filepath.Join(o.SpecDir, "reports", "002_witnesses.md")); err == nil {
		t.Errorf("the link was moved to the planned path: %v", fi.Mode())
	}
}
