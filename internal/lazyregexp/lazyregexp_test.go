package lazyregexp

import (
	"regexp"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMethodsMatchRegexp(t *testing.T) {
	t.Parallel()
	const expr = `^(\w+)=(\d+)$`
	lazy, eager := New(expr), regexp.MustCompile(expr)
	for _, s := range []string{"a=1", "abc=123", "a=", "=1", "x=1\n"} {
		if got, want := lazy.MatchString(s), eager.MatchString(s); got != want {
			t.Errorf("MatchString(%q) = %v, want %v", s, got, want)
		}
		if diff := cmp.Diff(eager.FindStringSubmatch(s), lazy.FindStringSubmatch(s)); diff != "" {
			t.Errorf("FindStringSubmatch(%q) (-want +got):\n%s", s, diff)
		}
		if got, want := lazy.ReplaceAllString(s, "$2:$1"), eager.ReplaceAllString(s, "$2:$1"); got != want {
			t.Errorf("ReplaceAllString(%q) = %q, want %q", s, got, want)
		}
	}
	if lazy.String() != expr || lazy.Regexp().String() != expr {
		t.Errorf("String() = %q, Regexp().String() = %q, want %q", lazy.String(), lazy.Regexp().String(), expr)
	}
}

// TestLazyOutsideTests: outside a test binary New does not compile: a bad
// expression panics on first use, not at New, and goroutines that race to
// the first use (run with -race) share one compiled expression. Not
// parallel: it sets inTest, which the parallel tests read only after it.
func TestLazyOutsideTests(t *testing.T) {
	inTest = false
	defer func() { inTest = true }()

	r := New(`a+`)
	got := make([]*regexp.Regexp, 8)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() { got[i] = r.Regexp() })
	}
	wg.Wait()
	for i, re := range got {
		if re != got[0] {
			t.Errorf("goroutine %d got a different *regexp.Regexp", i)
		}
	}

	bad := New(`(`) // must not panic
	defer func() {
		if recover() == nil {
			t.Error("MatchString on New(`(`) did not panic")
		}
	}()
	bad.MatchString("x")
}

// TestBadExpressionPanicsInTests: a test binary compiles at New, so a bad
// pattern in any package-level New fails that package's tests.
func TestBadExpressionPanicsInTests(t *testing.T) {
	t.Parallel()
	if !inTest {
		t.Fatalf("inTest is false in a test binary")
	}
	defer func() {
		if recover() == nil {
			t.Error("New(`(`) did not panic in a test binary")
		}
	}()
	New(`(`)
}
