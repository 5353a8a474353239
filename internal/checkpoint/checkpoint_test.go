package checkpoint

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/comment"
)

func TestNewID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		run     string
		seq     int
		want    string
		wantErr string
	}{
		{run: "9876543210-1", seq: 1, want: "cp-9876543210-1-1"},
		{run: "local-20260301T120000Z", seq: 12, want: "cp-local-20260301T120000Z-12"},
		{run: strings.Repeat("a", 64), seq: 999_999_999, want: "cp-" + strings.Repeat("a", 64) + "-999999999"},
		{run: "", seq: 1, wantErr: "run id is empty"},
		{run: "../x", seq: 1, wantErr: "is not allowed"},
		{run: strings.Repeat("a", 65), seq: 1, wantErr: "at most 64"},
		{run: "1-1", seq: 0, wantErr: "numbered from 1"},
	}
	for _, tt := range tests {
		got, err := NewID(tt.run, tt.seq)
		if gotErr := errString(err); !strings.Contains(gotErr, tt.wantErr) || (tt.wantErr == "") != (err == nil) {
			t.Errorf("NewID(%q, %d) error = %q, want it to contain %q", tt.run, tt.seq, gotErr, tt.wantErr)
			continue
		}
		if got != tt.want {
			t.Errorf("NewID(%q, %d) = %q, want %q", tt.run, tt.seq, got, tt.want)
		}
		if err == nil {
			if err := ValidateID(got); err != nil {
				t.Errorf("ValidateID(NewID(%q, %d)) = %v", tt.run, tt.seq, err)
			}
			// The id must survive the comment marker unchanged.
			kind, id, ok := comment.ParseMarker(comment.Marker(comment.KindCheckpoint, got))
			if !ok || kind != comment.KindCheckpoint || id != got {
				t.Errorf("marker round trip of %q = %q %q %v", got, kind, id, ok)
			}
		}
	}
}

func TestValidateID(t *testing.T) {
	t.Parallel()
	for _, id := range []string{"", ".hidden", "..", "a/b", `a\b`, "-x", "a b", "cp-1\n", strings.Repeat("a", MaxIDLen+1), "cp-é"} {
		if err := ValidateID(id); err == nil {
			t.Errorf("ValidateID(%q) = nil, want an error", id)
		}
	}
	for _, id := range []string{"cp-1-1-1", "A.b_c-9", strings.Repeat("a", MaxIDLen)} {
		if err := ValidateID(id); err != nil {
			t.Errorf("ValidateID(%q) = %v", id, err)
		}
	}
}

func TestStandardOptionsNoAdmissibleOrder(t *testing.T) {
	t.Parallel()
	// architecture §4.6 fixes this order; Pause may only come after it.
	want := []Option{
		{N: 1, Label: "Proceed", Description: "take the best-scoring result anyway", Action: ActionProceed},
		{N: 2, Label: "Skip", Description: "record the run, select nothing", Action: ActionSkip},
		{N: 3, Label: "Abort", Description: "end the run as failed", Action: ActionAbort},
		{N: 4, Label: "Pause", Description: "leave the checkpoint open and decide later", Action: ActionPause},
	}
	if diff := cmp.Diff(want, StandardOptions(TriggerNoAdmissible)); diff != "" {
		t.Errorf("StandardOptions(NO_ADMISSIBLE) (-want +got):\n%s", diff)
	}
}

func TestStandardOptionsEveryTrigger(t *testing.T) {
	t.Parallel()
	for _, tr := range []Trigger{TriggerNoAdmissible, TriggerApproval, TriggerHiccup, TriggerBudget, "SOMETHING_NEW"} {
		opts := StandardOptions(tr)
		if err := validateOptions(opts); err != nil {
			t.Errorf("StandardOptions(%s): %v", tr, err)
		}
		var actions []Action
		for _, o := range opts {
			actions = append(actions, o.Action)
		}
		// The same number means the same action everywhere.
		if diff := cmp.Diff([]Action{ActionProceed, ActionSkip, ActionAbort, ActionPause}, actions); diff != "" {
			t.Errorf("StandardOptions(%s) actions (-want +got):\n%s", tr, diff)
		}
		opts[0].Label = "changed"
		if StandardOptions(tr)[0].Label != LabelProceed {
			t.Errorf("StandardOptions(%s) shares its slice between calls", tr)
		}
	}
	if StandardOptions(TriggerApproval)[0].Description != "commit the selected result" {
		t.Error("APPROVAL's Proceed must commit the selected result")
	}
}

func TestNew(t *testing.T) {
	t.Parallel()
	created := time.Date(2026, 3, 1, 13, 0, 0, 0, time.FixedZone("CET", 3600))
	cp, err := New("12-1", "issue-7", 2, TriggerApproval, "ctx", created)
	if err != nil {
		t.Fatal(err)
	}
	want := Checkpoint{
		ID: "cp-12-1-2", Trigger: TriggerApproval, Run: "12-1", Workflow: "issue-7",
		Created: created.UTC(), Context: "ctx", Options: StandardOptions(TriggerApproval),
		Recommended: 1, Recommendation: "default",
	}
	if diff := cmp.Diff(want, cp); diff != "" {
		t.Errorf("New (-want +got):\n%s", diff)
	}
	if cp.Created.Location() != time.UTC {
		t.Errorf("Created is in %v, want UTC", cp.Created.Location())
	}
	for _, bad := range []struct {
		run, workflow string
		trigger       Trigger
	}{
		{"12-1", "../etc", TriggerApproval},
		{"12-1", "issue-7", "lower"},
		{"", "issue-7", TriggerApproval},
	} {
		if _, err := New(bad.run, bad.workflow, 1, bad.trigger, "", created); err == nil {
			t.Errorf("New(%q, %q, %q) = nil error", bad.run, bad.workflow, bad.trigger)
		}
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		change  func(*Checkpoint)
		wantErr string
	}{
		{"valid", func(*Checkpoint) {}, ""},
		{"bad id", func(cp *Checkpoint) { cp.ID = "../x" }, "is not allowed"},
		{"lower-case trigger", func(cp *Checkpoint) { cp.Trigger = "hiccup" }, "upper-case word"},
		{"new trigger", func(cp *Checkpoint) { cp.Trigger = "RATE_LIMIT" }, ""},
		{"bad run", func(cp *Checkpoint) { cp.Run = "a/b" }, "run id"},
		{"bad workflow", func(cp *Checkpoint) { cp.Workflow = ".hidden" }, "workflow"},
		{"no time", func(cp *Checkpoint) { cp.Created = time.Time{} }, "creation time"},
		{"bad context", func(cp *Checkpoint) { cp.Context = "\xff" }, "UTF-8"},
		{"no options", func(cp *Checkpoint) { cp.Options = nil }, "no options"},
		{"too many", func(cp *Checkpoint) {
			for i := len(cp.Options); i < MaxOptions+1; i++ {
				cp.Options = append(cp.Options, Option{N: i + 1, Label: "x", Action: ActionSkip})
			}
		}, "at most 9"},
		{"misnumbered", func(cp *Checkpoint) { cp.Options[1].N = 3 }, "option 2 is numbered 3"},
		{"empty label", func(cp *Checkpoint) { cp.Options[0].Label = " " }, "label"},
		{"two-line label", func(cp *Checkpoint) { cp.Options[0].Label = "a\nb" }, "label"},
		{"long description", func(cp *Checkpoint) { cp.Options[0].Description = strings.Repeat("d", 201) }, "description"},
		{"bad action", func(cp *Checkpoint) { cp.Options[2].Action = "explode" }, `action "explode"`},
		{"recommended missing", func(cp *Checkpoint) { cp.Recommended = 5 }, "recommended option 5 does not exist; it has options 1–4"},
		{"recommended zero", func(cp *Checkpoint) { cp.Recommended = 0 }, "recommended option 0"},
		{"recommendation two lines", func(cp *Checkpoint) { cp.Recommendation = "a\nb" }, "recommendation"},
		{"state not JSON", func(cp *Checkpoint) { cp.State = json.RawMessage("{") }, "state"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cp := fixture(t)
			tt.change(&cp)
			err := cp.Validate()
			if got := errString(err); !strings.Contains(got, tt.wantErr) || (tt.wantErr == "") != (err == nil) {
				t.Errorf("Validate() = %q, want an error containing %q", got, tt.wantErr)
			}
		})
	}
}

func TestParseChoice(t *testing.T) {
	t.Parallel()
	cp := fixture(t)
	for n := 1; n <= 4; n++ {
		o, err := ParseChoice(n, cp)
		if err != nil || o != cp.Options[n-1] {
			t.Errorf("ParseChoice(%d) = %v, %v", n, o, err)
		}
	}
	for _, n := range []int{0, -1, 5, 7} {
		_, err := ParseChoice(n, cp)
		want := "checkpoint cp-9876543210-1-1 has options 1–4; got " + strconv.Itoa(n)
		if errString(err) != want {
			t.Errorf("ParseChoice(%d) error = %q, want %q", n, errString(err), want)
		}
	}
}

func TestDecide(t *testing.T) {
	t.Parallel()
	cp := fixture(t)
	got, err := Decide(cp, 2, "alice", "flaky schema", SourceComment)
	want := Decision{Option: 2, Action: ActionSkip, By: "alice", Note: "flaky schema", Source: SourceComment}
	if err != nil || got != want {
		t.Errorf("Decide = %+v, %v; want %+v", got, err, want)
	}
	if _, err := Decide(cp, 9, "alice", "", SourceComment); err == nil {
		t.Error("Decide accepted option 9")
	}
	got, err = AbortDecision(cp, "bob", "stop", SourceComment)
	want = Decision{Option: 3, Action: ActionAbort, By: "bob", Note: "stop", Source: SourceComment}
	if err != nil || got != want {
		t.Errorf("AbortDecision = %+v, %v; want %+v", got, err, want)
	}
	cp.Options = cp.Options[:2]
	if _, err := AbortDecision(cp, "bob", "", SourceComment); err == nil || !strings.Contains(err.Error(), "no abort option") {
		t.Errorf("AbortDecision without an abort option = %v", err)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
