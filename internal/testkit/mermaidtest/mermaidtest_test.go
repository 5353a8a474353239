package mermaidtest

import "testing"

// TestCheck: a well-formed chart renders; the checks can fail (a broken
// one is refused), so a passing check means something.
func TestCheck(t *testing.T) {
	Check(t, "xychart-beta\n  title \"ok\"\n  x-axis [\"a\", \"b\"]\n  y-axis \"y\" 0 --> 10\n  bar [1, 2]\n")
	r := &recorder{TB: t}
	Check(r, "xychart-beta\n  x-axis [a b \"c]\n  bar [1, 2\n")
	if !r.failed {
		t.Error("a broken chart passed the check")
	}
}

type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Fatalf(string, ...any) { r.failed = true }
