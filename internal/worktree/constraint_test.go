package worktree

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/check"
	"github.com/optr-dev/optr/internal/status"
)

// The changes constraint judges each result by its own worktree's change,
// as captured before the checks, and fails a result without a worktree.
func TestConstraint(t *testing.T) {
	t.Parallel()
	repo := newRepo(t, map[string]string{"a.txt": "a\n", "ci/flow.yml": "x\n"})
	r := start(t, repo, "run-1")
	good, bad, late := add(t, r, "good"), add(t, r, "bad"), add(t, r, "late")
	sh(t, good.Dir(), "echo b > a.txt")
	sh(t, bad.Dir(), "echo y > ci/flow.yml")
	sh(t, late.Dir(), "echo c >> a.txt")
	capture(t, good, Limits{})
	capture(t, bad, Limits{})
	// A check that leaves files behind after the capture does not change
	// the verdict.
	sh(t, good.Dir(), "echo artefact > ci/build.out")

	cs := []check.Constraint{Constraint(Policy{Protect: []string{"ci/**"}}, Limits{}, func() *Run { return r })}
	tests := []struct {
		dir  string
		want check.Verdict
	}{
		{good.Dir(), check.Verdict{Constraint: "changes", Hard: true, Status: status.Passed}},
		{bad.Dir(), check.Verdict{Constraint: "changes", Hard: true, Status: status.Failed,
			Reason: `protected by "ci/**" (changes.protect): the change touches ci/flow.yml`}},
		{late.Dir(), check.Verdict{Constraint: "changes", Hard: true, Status: status.Passed}},
		{"", check.Verdict{Constraint: "changes", Hard: true, Status: status.Failed,
			Reason: "the agent did not work in a worktree of its own, so it changed no code (only command and copilot agents do)"}},
	}
	for _, tc := range tests {
		ev := check.Evaluate(check.WithDir(t.Context(), tc.dir), cs, "output")
		if diff := cmp.Diff([]check.Verdict{tc.want}, ev.Verdicts); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.dir, diff)
		}
	}
	if ch, ok := late.Captured(); !ok || len(ch.Files) != 1 {
		t.Errorf("the late worktree was not captured by the check: %+v %v", ch, ok)
	}
}
