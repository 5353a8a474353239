package delegate

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/check"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/selection"
	"github.com/optr-dev/optr/internal/status"
)

// TestCandidatesSelectTheBestAdmissibleReport runs each topic by two
// specialists, one of which breaks a hard constraint: the other's report is
// selected with the select score table and copied to the planned path.
func TestCandidatesSelectTheBestAdmissibleReport(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.coordinator("planner", commandPlan("hash chains", "witnesses"))
	h.specialist("careful", "good")
	h.specialist("sloppy", "todo")
	p := pipeline("planner", "careful", "sloppy")
	p.Candidates = 2
	in := h.input(p)
	noTodo, err := check.New("no-todo", config.Constraint{Check: config.CheckNotRegex, Pattern: `(?i)\bTODO\b`, Hard: true}, check.Options{})
	if err != nil {
		t.Fatal(err)
	}
	in.Exec.Constraints = []check.Constraint{{Name: "no-todo", Hard: true, Checker: noTodo}}
	o, err := Run(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	if o.Status != status.Completed || len(o.Results) != 5 {
		t.Fatalf("status %s with %d results (%s)\n%s", o.Status, len(o.Results), o.Message, o.SummaryText)
	}
	for _, tp := range o.Topics {
		want := fmt.Sprintf("careful.%03d", tp.N)
		if tp.Agent != want || tp.Selection == nil || tp.Selection.Outcome != selection.Admissible {
			t.Fatalf("topic %d: agent %s selection %+v, want %s", tp.N, tp.Agent, tp.Selection, want)
		}
		if len(tp.Selection.Rows) != 2 || tp.Selection.Rows[1].Admissible {
			t.Errorf("topic %d score table = %+v", tp.N, tp.Selection.Rows)
		}
		report := readFile(t, filepath.Join(h.lake, filepath.FromSlash(tp.Path)))
		if strings.Contains(report, "TODO") || !strings.Contains(report, "example.com/careful") {
			t.Errorf("topic %d: the planned path holds the wrong report:\n%s", tp.N, report)
		}
	}
	// Each candidate's report is in a folder of its own, the one the
	// sandbox lets it write: no candidate can reach another's report.
	cands, _ := filepath.Glob(filepath.Join(o.SpecDir, DirCandidates, "*", "*.md"))
	for i, c := range cands {
		cands[i], _ = filepath.Rel(o.SpecDir, c)
	}
	want := []string{
		".candidates/001_hash-chains.careful/001_hash-chains.md", ".candidates/001_hash-chains.sloppy/001_hash-chains.md",
		".candidates/002_witnesses.careful/002_witnesses.md", ".candidates/002_witnesses.sloppy/002_witnesses.md",
	}
	if diff := cmp.Diff(want, cands); diff != "" {
		t.Errorf("the candidates' reports (-want +got):\n%s", diff)
	}
}

func TestCandidatesWithoutAdmissibleReportFailTheTopic(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.coordinator("planner", commandPlan("hash chains"))
	h.specialist("a", "falsecounts")
	h.specialist("b", "nothing")
	p := pipeline("planner", "a", "b")
	p.Candidates = 2
	o, err := Run(t.Context(), h.input(p))
	if err != nil {
		t.Fatal(err)
	}
	f := o.Topics[0].Failure
	if o.Status != status.Failed || f == nil || f.Type != TypeNoAdmissible ||
		!strings.Contains(f.Message, "a.001: ") || !strings.Contains(f.Message, "b.001: ") {
		t.Fatalf("status %s, failure %+v", o.Status, f)
	}
	if _, err := os.Stat(filepath.Join(o.SpecDir, "reports", "001_hash-chains.md")); err == nil {
		t.Error("a report was put at the planned path though no candidate was admissible")
	}
}
