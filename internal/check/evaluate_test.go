package check

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/optr-dev/optr/internal/config"
	"github.com/optr-dev/optr/internal/status"
)

// panicky is a checker that panics, to prove Evaluate survives one.
type panicky struct{}

func (panicky) Check(context.Context, string) (Outcome, error) { panic("checker bug") }

func TestEvaluate(t *testing.T) {
	t.Parallel()
	c := func(name string, hard bool, cc config.Constraint) Constraint {
		return Constraint{Name: name, Hard: hard, Checker: mustNew(t, name, cc, Options{Dir: workspace})}
	}
	hasOK := func(hard bool) Constraint {
		return c("has-ok", hard, config.Constraint{Check: "contains", Value: "OK"})
	}
	short := func(hard bool) Constraint {
		return c("short", hard, config.Constraint{Check: "max-length", Value: "5"})
	}
	missingSchema := func(hard bool) Constraint {
		return c("schema", hard, config.Constraint{Check: "json-schema", Schema: "schemas/nope.json"})
	}
	unverified := Constraint{Name: "asked", Hard: true, Undefined: true}
	crash := func(hard bool) Constraint { return Constraint{Name: "crash", Hard: hard, Checker: panicky{}} }
	judgedUndefined := Constraint{Name: "asked", Hard: true, Undefined: true, Checker: panicky{}}

	tests := []struct {
		name        string
		constraints []Constraint
		output      string
		want        Evaluation
	}{
		{"nothing to check", nil, "x", Evaluation{Verdicts: []Verdict{}, Invariants: []string{}, Admissible: true}},
		{"all pass", []Constraint{hasOK(true), short(false)}, "OK", Evaluation{
			Verdicts:   []Verdict{{Constraint: "has-ok", Hard: true, Status: status.Passed}, {Constraint: "short", Status: status.Passed}},
			Invariants: []string{"has-ok", "short"}, Admissible: true}},
		{"soft failure does not block", []Constraint{hasOK(true), short(false)}, "OK but long", Evaluation{
			Verdicts: []Verdict{{Constraint: "has-ok", Hard: true, Status: status.Passed},
				{Constraint: "short", Status: status.Failed, Reason: "output is 11 characters long; the limit is 5"}},
			Invariants: []string{"has-ok"}, Admissible: true}},
		{"hard failure blocks", []Constraint{hasOK(true), short(true)}, "nope, too long", Evaluation{
			Verdicts: []Verdict{{Constraint: "has-ok", Hard: true, Status: status.Failed, Reason: `output does not contain "OK"`},
				{Constraint: "short", Hard: true, Status: status.Failed, Reason: "output is 14 characters long; the limit is 5"}},
			Invariants: []string{}, Admissible: false, HardFailed: []string{"has-ok", "short"}}},
		{"unverified, soft errored and soft panicking checks do not block", []Constraint{unverified, missingSchema(false), crash(false), hasOK(false)}, "OK", Evaluation{
			Verdicts: []Verdict{
				{Constraint: "asked", Hard: true, Status: status.Unverified, Reason: "not defined in the config, and no judge agent is configured to verify it"},
				{Constraint: "schema", Status: status.Unverified, Reason: "compile JSON Schema schemas/nope.json in the workspace …"},
				{Constraint: "crash", Status: status.Unverified, Reason: "the check panicked: checker bug"},
				{Constraint: "has-ok", Status: status.Passed},
			},
			Invariants: []string{"has-ok"}, Admissible: true}},
		{"a hard check that cannot run fails closed", []Constraint{missingSchema(true), crash(true), hasOK(false)}, "OK", Evaluation{
			Verdicts: []Verdict{
				{Constraint: "schema", Hard: true, Status: status.Failed, Reason: "failed closed, the check could not run: compile JSON Schema schemas/nope.json in the workspace …"},
				{Constraint: "crash", Hard: true, Status: status.Failed, Reason: "failed closed, the check could not run: the check panicked: checker bug"},
				{Constraint: "has-ok", Status: status.Passed},
			},
			Invariants: []string{"has-ok"}, Admissible: false, HardFailed: []string{"schema", "crash"}}},
		{"a constraint nobody defined stays unverified when its judge cannot answer", []Constraint{judgedUndefined}, "OK", Evaluation{
			Verdicts:   []Verdict{{Constraint: "asked", Hard: true, Status: status.Unverified, Reason: "the check panicked: checker bug"}},
			Invariants: []string{}, Admissible: true}},
		{"unverified does not rescue a hard failure", []Constraint{unverified, hasOK(true)}, "no", Evaluation{
			Verdicts: []Verdict{
				{Constraint: "asked", Hard: true, Status: status.Unverified, Reason: "not defined in the config, and no judge agent is configured to verify it"},
				{Constraint: "has-ok", Hard: true, Status: status.Failed, Reason: `output does not contain "OK"`},
			},
			Invariants: []string{}, Admissible: false, HardFailed: []string{"has-ok"}}},
	}
	// Schema errors name an absolute path: compare up to the ellipsis.
	trimReason := cmp.Transformer("prefix", func(v Verdict) Verdict {
		if i := strings.Index(v.Reason, " in the workspace "); i >= 0 {
			v.Reason = v.Reason[:i] + " in the workspace …"
		}
		return v
	})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Evaluate(t.Context(), tt.constraints, tt.output)
			if diff := cmp.Diff(tt.want, got, trimReason); diff != "" {
				t.Errorf("Evaluate (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEvaluateOrder: verdicts come back in constraint order however the
// checks interleave, and the Evaluation marshals with stable field names.
func TestEvaluateOrder(t *testing.T) {
	t.Parallel()
	var cs []Constraint
	var want []string
	for i := range 40 {
		name := "c" + string(rune('a'+i%26)) + strings.Repeat("x", i/26)
		cc := config.Constraint{Check: "contains", Value: "x"}
		if i%3 == 0 {
			cc = config.Constraint{Check: "command", Run: []string{"sh", "-c", "cat >/dev/null"}}
		}
		cs = append(cs, Constraint{Name: name, Hard: true, Checker: mustNew(t, name, cc, Options{})})
		want = append(want, name)
	}
	ev := Evaluate(t.Context(), cs, "x")
	if diff := cmp.Diff(want, ev.Invariants); diff != "" {
		t.Errorf("Invariants (-want +got):\n%s", diff)
	}
	b, err := json.Marshal(Evaluate(t.Context(), cs[1:2], "y"))
	if err != nil {
		t.Fatal(err)
	}
	const wantJSON = `{"verdicts":[{"constraint":"cb","hard":true,"status":"failed","reason":"output does not contain \"x\""}],"invariants":[],"admissible":false,"hard_failed":["cb"]}`
	if string(b) != wantJSON {
		t.Errorf("JSON = %s\nwant   %s", b, wantJSON)
	}
}
