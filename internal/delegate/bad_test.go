package delegate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optr-dev/optr/internal/datalake"
	"github.com/optr-dev/optr/internal/status"
)

// earlierRun leaves a finished delegate run in h's datalake and returns the
// hashes of everything in it.
func earlierRun(t *testing.T, h *harness) map[string]string {
	t.Helper()
	h.coordinator("old-planner", commandPlan("hash chains"))
	h.specialist("old-scout", "good")
	in := h.input(pipeline("old-planner", "old-scout"))
	in.RunID = "r0"
	if o, err := Run(t.Context(), in); err != nil || o.Status != status.Completed {
		t.Fatalf("earlier run: %v %+v", err, o)
	}
	return hashTree(t, filepath.Join(h.lake, "specs"))
}

// untouched checks that every file of the earlier run is still there, unchanged.
func untouched(t *testing.T, h *harness, before map[string]string) {
	t.Helper()
	after := hashTree(t, filepath.Join(h.lake, "specs"))
	for p, sum := range before {
		if after[p] != sum {
			t.Errorf("the earlier run's %s was changed or removed", p)
		}
	}
}

// TestBadSpecialists gives one topic to a misbehaving specialist and one to
// a good one: each misbehaviour is a named failure of its topic, never a
// crash, and the earlier run's files stay as they were.
func TestBadSpecialists(t *testing.T) {
	t.Parallel()
	tests := []struct {
		mode, typ, says string
	}{
		{"elsewhere", ReasonReportElsewhere, "not at its report path"},
		{"nothing", ReasonReportMissing, "wrote nothing there"},
		{"huge", ReasonReportTooLarge, "is 52428800 bytes; a report may hold at most 1048576 bytes"},
		{"badyaml", ReasonFrontmatter, "not valid YAML"},
		{"falsecounts", ReasonCounts, "findings_count is 5 but ## Findings lists 2 bullets"},
		{"taskerror", ReasonTaskError, "TASK_ERROR upstream_down - the search API answered 503 (ERROR_CONTEXT {\"status\":503})"},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			before := earlierRun(t, h)
			elsewhere := t.TempDir()
			h.coordinator("planner", commandPlan("hash chains", "witnesses"))
			h.specialist("good", "good")
			h.specialist("bad", tt.mode, "ELSEWHERE", elsewhere)
			o, err := Run(t.Context(), h.input(pipeline("planner", "good", "bad")))
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if !o.Warned() || o.Valid != 1 {
				t.Fatalf("status %s, %d valid; want one failed topic (%s)", o.Status, o.Valid, o.Message)
			}
			f := o.Topics[1].Failure
			if f == nil || f.Type != tt.typ || !strings.Contains(f.Message, tt.says) || f.Hint == "" {
				t.Fatalf("topic 2 failure = %+v; want %s saying %q", f, tt.typ, tt.says)
			}
			if o.Spec != "specs/002_research" {
				t.Errorf("spec = %s, want the next number", o.Spec)
			}
			untouched(t, h, before)
			var last datalake.ErrorRecord
			lines := strings.Split(strings.TrimSpace(readFile(t, filepath.Join(h.lake, "errors.jsonl"))), "\n")
			if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || last.ErrorType != tt.typ || last.Details.Topic != "witnesses" {
				t.Errorf("errors.jsonl's last line = %+v (%v)", last, err)
			}
		})
	}
}

// TestBadPlans: a coordinator whose plan optr cannot use fails the run with
// the named reason; no specialist runs and no invocation plan is written.
func TestBadPlans(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, plan, reason string
	}{
		{"zero topics", commandPlan(), ReasonPlanEmpty},
		{"more than max-topics", commandPlan("a", "b", "c", "d", "e"), ReasonPlanTooLong},
		{"duplicate topics", commandPlan("hash chains", "Hash Chains"), ReasonPlanDuplicate},
		{"a topic whose slug is empty", commandPlan("***"), ReasonPlanEmptySlug},
		{"a non-JSON plan", "INVOCATION_PLAN_READY: 2\nhash chains, witnesses\nRESEARCH_COORDINATOR_COMPLETE: SUCCESS", ReasonPlanMalformed},
		{"no plan at all", "I could not decide.", ReasonPlanMissing},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			before := earlierRun(t, h)
			h.coordinator("planner", tt.plan)
			h.specialist("scout", "good")
			o, err := Run(t.Context(), h.input(pipeline("planner", "scout")))
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if o.Status != status.Failed || o.CoordinatorFailure == nil || o.CoordinatorFailure.Type != tt.reason {
				t.Fatalf("status %s, coordinator failure %+v; want failed with %s", o.Status, o.CoordinatorFailure, tt.reason)
			}
			if len(o.Results) != 1 || o.InvocationPlan != "" || o.Overview != "" {
				t.Fatalf("after a bad plan: %d results, plan %q, overview %q", len(o.Results), o.InvocationPlan, o.Overview)
			}
			if _, err := os.Stat(filepath.Join(o.SpecDir, FileInvocationPlan)); err == nil {
				t.Error("an invocation plan was written for a refused plan")
			}
			if !strings.Contains(o.Summary, "Fix the coordinator") || !strings.Contains(o.Summary, "Research complete: 0/0 topics (0% success)") {
				t.Errorf("summary:\n%s", o.Summary)
			}
			untouched(t, h, before)
		})
	}
}
