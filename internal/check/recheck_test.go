package check

import (
	"slices"
	"testing"

	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/status"
)

// TestRecheckOverrulesForgedVerdicts checks what the matrix gather relies
// on (issue 27 item 3): verdicts someone else recorded for the output-only
// kinds are judged again, whatever they say; the others are kept.
func TestRecheckOverrulesForgedVerdicts(t *testing.T) {
	cfg := &config.Config{
		Constraints: map[string]config.Constraint{
			"no-todo": {Check: config.CheckNotRegex, Pattern: "TODO", Hard: true},
			"title":   {Check: config.CheckContains, Value: "# ", Hard: true},
			"short":   {Check: config.CheckMaxLength, Value: "10"},
			"tests":   {Check: config.CheckCommand, Run: []string{"true"}, Hard: true},
		},
		ConstraintNames: []string{"no-todo", "title", "short", "tests"},
	}
	cs, err := Resolve(cfg, nil, Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, c := range cs {
		if c.Deterministic {
			want = append(want, c.Name)
		}
	}
	if !slices.Equal(want, []string{"no-todo", "title", "short"}) {
		t.Fatalf("deterministic constraints %v", want)
	}
	forged := Summarize([]Verdict{
		{Constraint: "no-todo", Hard: true, Status: status.Passed},
		{Constraint: "title", Hard: true, Status: status.Passed},
		{Constraint: "short", Status: status.Passed},
		{Constraint: "tests", Hard: true, Status: status.Failed, Reason: "recorded"},
	})
	got, overruled := Recheck(t.Context(), cs, forged, "# Title\n\nTODO later\n")
	if got.Admissible || !slices.Equal(got.HardFailed, []string{"no-todo", "tests"}) {
		t.Errorf("rechecked: admissible %t, hard failed %v", got.Admissible, got.HardFailed)
	}
	if !slices.Equal(overruled, []string{"no-todo", "short"}) {
		t.Errorf("overruled %v, want [no-todo short]", overruled)
	}
	if got.Verdicts[3].Reason != "recorded" {
		t.Errorf("the command verdict was not kept: %+v", got.Verdicts[3])
	}
}
