package checkpoint

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/ledger"
)

func TestDraftsAsWritten(t *testing.T) {
	t.Parallel()
	cp := fixture(t)
	d := Decision{Option: 2, Action: ActionSkip, By: "alice", Note: "schema is wrong, see #12", Source: SourceComment}
	led := ledgerOf(t, 0, CheckpointDraft(cp, epoch), DecisionDraft(cp, d, epoch.Add(time.Minute)))

	var got []map[string]any
	if err := ledger.Scan(bytes.NewReader(led), func(e ledger.Entry) error {
		m := map[string]any{"kind": e.Kind, "run": e.Run, "workflow": e.Workflow, "time": e.Time}
		for k, v := range e.Fields {
			m[k] = v
		}
		got = append(got, m)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := []map[string]any{
		{
			"kind": "checkpoint", "run": "9876543210-1", "workflow": "issue-7", "time": "2026-03-01T12:00:00Z",
			"checkpoint": "cp-9876543210-1-1", "trigger": "NO_ADMISSIBLE",
			"options":     []any{"Proceed", "Skip", "Abort", "Pause"},
			"recommended": json.Number("1"), "recommendation": "Proceed — chosen in 7 of the last 9 NO_ADMISSIBLE checkpoints",
		},
		{
			"kind": "decision", "run": "9876543210-1", "workflow": "issue-7", "time": "2026-03-01T12:01:00Z",
			"checkpoint": "cp-9876543210-1-1", "trigger": "NO_ADMISSIBLE",
			"option": json.Number("2"), "action": "skip", "by": "alice",
			"note": "schema is wrong, see #12", "source": "comment",
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ledger entries (-want +got):\n%s", diff)
	}
}

func TestStatus(t *testing.T) {
	t.Parallel()
	cp := fixture(t)
	other := withTrigger(t, "9876543210-1", 2, TriggerApproval)
	pause := Decision{Option: 4, Action: ActionPause, By: "alice", Source: SourceComment}
	skip := Decision{Option: 2, Action: ActionSkip, By: "bob", Note: "n", Source: SourceComment}
	proceed := Decision{Option: 1, Action: ActionProceed, By: "carol", Source: SourceCLI}
	raised := CheckpointDraft(cp, epoch)
	elsewhere := cp // the same checkpoint id, under another workflow
	elsewhere.Workflow = "issue-99"
	at := func(d Decision, c Checkpoint, min int) ledger.Draft {
		return DecisionDraft(c, d, epoch.Add(time.Duration(min)*time.Minute))
	}

	tests := []struct {
		name     string
		drafts   []ledger.Draft
		wantOpen bool
		want     *Decision
	}{
		{"raised", []ledger.Draft{raised}, true, nil},
		{"decided", []ledger.Draft{raised, at(skip, cp, 1)}, false, &skip},
		{"paused stays open", []ledger.Draft{raised, at(pause, cp, 1)}, true, &pause},
		{"paused, then decided", []ledger.Draft{raised, at(pause, cp, 1), at(proceed, cp, 2)}, false, &proceed},
		{"the first decision stands", []ledger.Draft{raised, at(skip, cp, 1), at(proceed, cp, 2), at(pause, cp, 3)}, false, &skip},
		{"another checkpoint's decision", []ledger.Draft{raised, CheckpointDraft(other, epoch), at(skip, other, 1)}, true, nil},
		{"a decision before the checkpoint is ignored", []ledger.Draft{at(skip, cp, 0), raised}, true, nil},
		{"a malformed decision is ignored", []ledger.Draft{raised, at(Decision{Option: 0, Action: ActionSkip}, cp, 1), at(Decision{Option: 2, Action: "boom"}, cp, 2)}, true, nil},
		{"a decision filed under another workflow closes it still", []ledger.Draft{raised, at(skip, elsewhere, 1)}, false, &skip},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			led := ledgerOf(t, 20, tt.drafts...)
			open, d, err := Status(bytes.NewReader(led), cp.ID)
			if err != nil {
				t.Fatal(err)
			}
			if open != tt.wantOpen {
				t.Errorf("open = %v, want %v", open, tt.wantOpen)
			}
			if diff := cmp.Diff(tt.want, d); diff != "" {
				t.Errorf("decision (-want +got):\n%s", diff)
			}
			// An answer on the issue finds the checkpoint open exactly
			// when the CLI, which names it, does.
			pending, err := Pending(bytes.NewReader(led), cp.Workflow)
			if err != nil {
				t.Fatal(err)
			}
			if slices.Contains(pending, cp.ID) != open {
				t.Errorf("Pending(%s) = %v, but Status says open = %v", cp.Workflow, pending, open)
			}
		})
	}
}

func TestStatusNotFound(t *testing.T) {
	t.Parallel()
	cp := fixture(t)
	// A decision alone does not make a checkpoint.
	led := ledgerOf(t, 5, DecisionDraft(cp, Decision{Option: 1, Action: ActionProceed}, epoch))
	open, d, err := Status(bytes.NewReader(led), cp.ID)
	if !errors.Is(err, ErrNotFound) || open || d != nil {
		t.Errorf("Status of an unknown checkpoint = %v, %v, %v; want ErrNotFound", open, d, err)
	}
	if _, _, err := Status(bytes.NewReader([]byte(`{"checkpoint":"`+cp.ID+`"}`+"\n")), cp.ID); err == nil || errors.Is(err, ErrNotFound) {
		t.Errorf("Status of a broken ledger = %v, want a read error", err)
	}
}

func TestPending(t *testing.T) {
	t.Parallel()
	a := withTrigger(t, "1-1", 1, TriggerNoAdmissible)
	b := withTrigger(t, "2-1", 1, TriggerApproval)
	c := withTrigger(t, "3-1", 1, TriggerHiccup)
	elsewhere, err := New("4-1", "issue-8", 1, TriggerNoAdmissible, "", epoch)
	if err != nil {
		t.Fatal(err)
	}
	led := ledgerOf(t, 10,
		CheckpointDraft(a, epoch),
		CheckpointDraft(b, epoch),
		CheckpointDraft(elsewhere, epoch),
		DecisionDraft(b, Decision{Option: 4, Action: ActionPause}, epoch), // b stays open
		CheckpointDraft(c, epoch),
		DecisionDraft(a, Decision{Option: 3, Action: ActionAbort}, epoch), // a closes
	)
	got, err := Pending(bytes.NewReader(led), "issue-7")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{b.ID, c.ID}, got); diff != "" {
		t.Errorf("Pending(issue-7) (-want +got):\n%s", diff)
	}
	got, err = Pending(bytes.NewReader(led), "issue-9")
	if err != nil || got != nil {
		t.Errorf("Pending(issue-9) = %v, %v; want none", got, err)
	}
}

func TestLast(t *testing.T) {
	t.Parallel()
	a := withTrigger(t, "1-1", 1, TriggerNoAdmissible)
	b := withTrigger(t, "2-1", 1, TriggerApproval)
	elsewhere, err := New("4-1", "issue-8", 1, TriggerNoAdmissible, "", epoch)
	if err != nil {
		t.Fatal(err)
	}
	led := ledgerOf(t, 10,
		CheckpointDraft(a, epoch),
		CheckpointDraft(b, epoch),
		DecisionDraft(b, Decision{Option: 1, Action: ActionProceed}, epoch), // decided, still the last
		CheckpointDraft(elsewhere, epoch),
	)
	for workflow, want := range map[string]string{"issue-7": b.ID, "issue-8": elsewhere.ID, "issue-9": ""} {
		got, err := Last(bytes.NewReader(led), workflow)
		if err != nil || got != want {
			t.Errorf("Last(%s) = %q, %v; want %q", workflow, got, err, want)
		}
	}
}
