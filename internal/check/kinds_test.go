package check

import (
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/config"
)

// TestKindsAgree: every kind of the config's registry has a builder and a
// description here, and nothing is registered that the config would
// refuse.
func TestKindsAgree(t *testing.T) {
	t.Parallel()
	want := slices.Sorted(slices.Values(config.CheckKinds()))
	if diff := cmp.Diff(want, slices.Sorted(maps.Keys(kinds))); diff != "" {
		t.Errorf("kinds registered in package check differ from config.CheckKinds (-config +check):\n%s", diff)
	}
	for name, k := range kinds {
		if k.build == nil || k.describe == nil {
			t.Errorf("kind %s: build or describe is nil", name)
		}
		// A kind that runs a program is configured with run; one that
		// asks an agent names it with agent.
		if uses := config.CheckUses(name, "run"); k.program != uses {
			t.Errorf("kind %s: program is %v; using the key run: %v", name, k.program, uses)
		}
		if uses := config.CheckUses(name, "agent"); k.judged != uses {
			t.Errorf("kind %s: judged is %v; using the key agent: %v", name, k.judged, uses)
		}
	}
}

// TestPatternCompiledOnce: the pattern config validation compiled is the
// one the regex checker uses (config.CompilePattern owns compiling it).
func TestPatternCompiledOnce(t *testing.T) {
	t.Parallel()
	const pattern = `(?i)\bcompiled-once-\d+\b`
	validated, err := config.CompilePattern(pattern)
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{config.CheckRegex, config.CheckNotRegex} {
		k, err := kindOf(config.Constraint{Check: kind})
		if err != nil {
			t.Fatal(err)
		}
		ch, err := k.build("p", config.Constraint{Check: kind, Pattern: pattern}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := ch.(regexCheck).re; got != validated {
			t.Errorf("%s: the checker compiled its own copy of the pattern (%p), not the one validation compiled (%p)", kind, got, validated)
		}
	}
}
