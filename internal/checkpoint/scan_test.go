package checkpoint

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/ledger"
)

func TestScanCheckpointsFindsWhatScanFinds(t *testing.T) {
	t.Parallel()
	cp := fixture(t)
	other := withTrigger(t, "1-1", 1, TriggerBudget)
	led := ledgerOf(t, 30,
		CheckpointDraft(cp, epoch),
		ledger.Draft{Kind: ledger.KindEscalation, Run: "2-1", Time: epoch, Fields: map[string]any{"reason": "stuck"}},
		CheckpointDraft(other, epoch),
		DecisionDraft(cp, Decision{Option: 2, Action: ActionSkip, By: "a"}, epoch.Add(time.Minute)),
		ledger.Draft{Kind: ledger.KindRun, Run: "3-1", Time: epoch, Fields: map[string]any{"selected": "codex"}},
		DecisionDraft(other, Decision{Option: 4, Action: ActionPause, By: "b"}, epoch.Add(time.Minute)),
	)
	var want, got []ledger.Entry
	if err := ledger.Scan(bytes.NewReader(led), func(e ledger.Entry) error {
		if e.Kind == ledger.KindCheckpoint || e.Kind == ledger.KindDecision {
			want = append(want, e)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := scanCheckpoints(bytes.NewReader(led), func(e ledger.Entry) error {
		got = append(got, e)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(want) != 4 {
		t.Fatalf("the test ledger has %d checkpoint and decision entries, want 4", len(want))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("scanCheckpoints (-want +got):\n%s", diff)
	}
	stop := errors.New("stop")
	if err := scanCheckpoints(bytes.NewReader(led), func(ledger.Entry) error { return stop }); err != stop {
		t.Errorf("an error from fn came back as %v", err)
	}
}

func TestScanCheckpointsErrors(t *testing.T) {
	t.Parallel()
	good := ledgerOf(t, 3, CheckpointDraft(fixture(t), epoch)) // lines 1–4
	tests := []struct {
		name    string
		ledger  []byte
		line    int64
		problem ledger.Problem
	}{
		{"a bad checkpoint line", append(append([]byte{}, good...), `{"checkpoint":1}`+"\n"...), 5, ledger.ProblemMember},
		{"a torn last line", append(append([]byte{}, good...), `{"seq":5`...), 5, ledger.ProblemTorn},
		{"a torn entry", good[:len(good)-1], 4, ledger.ProblemTorn},
		{"a line too long", append(append([]byte{}, good...), strings.Repeat("x", ledger.MaxLineSize+2)+"\n"...), 5, ledger.ProblemTooLong},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := scanCheckpoints(bytes.NewReader(tt.ledger), func(ledger.Entry) error { return nil })
			var verr *ledger.VerifyError
			if !errors.As(err, &verr) || verr.Line != tt.line || verr.Problem != tt.problem {
				t.Fatalf("scanCheckpoints = %v, want a %s problem at line %d", err, tt.problem, tt.line)
			}
		})
	}
	// Lines that cannot be checkpoint entries are not read at all.
	junk := append(append([]byte{}, good...), "not json\n"...)
	if err := scanCheckpoints(bytes.NewReader(junk), func(ledger.Entry) error { return nil }); err != nil {
		t.Errorf("scanCheckpoints over a non-checkpoint junk line = %v", err)
	}
}
