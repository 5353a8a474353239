package checkpoint

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/optr-dev/optr/internal/ledger"
)

// history returns the drafts of one checkpoint on trigger per action,
// each raised and then decided with that action, in order. Run ids start
// at first so that several histories do not collide.
func history(t testing.TB, trigger Trigger, first int, actions ...Action) []ledger.Draft {
	t.Helper()
	var drafts []ledger.Draft
	for i, a := range actions {
		cp := withTrigger(t, fmt.Sprintf("%d-1", first+i), 1, trigger)
		o, ok := cp.OptionFor(a)
		if !ok {
			t.Fatalf("no option for %s", a)
		}
		drafts = append(drafts, decided(t, cp, o.N, "alice")...)
	}
	return drafts
}

func repeat(a Action, n int) []Action {
	out := make([]Action, n)
	for i := range out {
		out[i] = a
	}
	return out
}

func concat(parts ...[]ledger.Draft) []ledger.Draft {
	var out []ledger.Draft
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func TestRecommend(t *testing.T) {
	t.Parallel()
	const (
		P = ActionProceed
		S = ActionSkip
		A = ActionAbort
		W = ActionPause
	)
	// A checkpoint decided twice: only its first decision counts.
	twice := withTrigger(t, "5000-1", 1, TriggerNoAdmissible)
	twiceDrafts := append(decided(t, twice, 2, "alice"), DecisionDraft(twice, Decision{Option: 1, Action: P, By: "bob"}, epoch.Add(time.Hour)))
	// A checkpoint paused first and then decided: the pause does not count.
	paused := withTrigger(t, "6000-1", 1, TriggerNoAdmissible)
	pausedDrafts := []ledger.Draft{
		CheckpointDraft(paused, epoch),
		DecisionDraft(paused, Decision{Option: 4, Action: W, By: "alice"}, epoch.Add(time.Minute)),
		DecisionDraft(paused, Decision{Option: 1, Action: P, By: "alice"}, epoch.Add(time.Hour)),
	}
	renumbered := []Option{
		{N: 1, Label: "Abort", Action: A},
		{N: 2, Label: "Go", Action: P},
		{N: 3, Label: "Skip", Action: S},
	}

	tests := []struct {
		name          string
		drafts        []ledger.Draft
		options       []Option
		configDefault int
		wantN         int
		wantWhy       string
	}{
		{
			name: "7 of the last 9",
			drafts: concat(
				history(t, TriggerNoAdmissible, 100, P, S, P, P, P, S, P, P),
				history(t, TriggerApproval, 200, S, S, S, S, S),  // another trigger
				history(t, TriggerNoAdmissible, 300, W, W, W, W), // pauses decide nothing
				pausedDrafts, // the 7th Proceed, after a pause
			),
			wantN: 1, wantWhy: "Proceed — chosen in 7 of the last 9 NO_ADMISSIBLE checkpoints",
		},
		{
			name:   "only the first decision of a checkpoint counts",
			drafts: concat(history(t, TriggerNoAdmissible, 100, P, S), twiceDrafts),
			wantN:  2, wantWhy: "Skip — chosen in 2 of the last 3 NO_ADMISSIBLE checkpoints",
		},
		{
			name:   "only the last 20 count",
			drafts: history(t, TriggerNoAdmissible, 100, append(repeat(S, 30), repeat(P, 20)...)...),
			wantN:  1, wantWhy: "Proceed — chosen in 20 of the last 20 NO_ADMISSIBLE checkpoints",
		},
		{
			name:   "window boundary",
			drafts: history(t, TriggerNoAdmissible, 100, append(repeat(P, 11), repeat(S, 10)...)...),
			wantN:  1, wantWhy: "Proceed — chosen in 10 of the last 20 NO_ADMISSIBLE checkpoints",
		},
		{
			name:   "a tie goes to the lower number",
			drafts: history(t, TriggerNoAdmissible, 100, A, A, S, S),
			wantN:  2, wantWhy: "Skip — chosen in 2 of the last 4 NO_ADMISSIBLE checkpoints",
		},
		{
			name:   "a tie goes to the lower number whatever the order",
			drafts: history(t, TriggerNoAdmissible, 100, A, A, P, P),
			wantN:  1, wantWhy: "Proceed — chosen in 2 of the last 4 NO_ADMISSIBLE checkpoints",
		},
		{
			name:   "one earlier decision",
			drafts: history(t, TriggerNoAdmissible, 100, A),
			wantN:  3, wantWhy: "Abort — chosen in the one earlier NO_ADMISSIBLE checkpoint",
		},
		{
			name:    "matched by action, not number",
			drafts:  history(t, TriggerNoAdmissible, 100, P, P, S),
			options: renumbered,
			wantN:   2, wantWhy: "Go — chosen in 2 of the last 3 NO_ADMISSIBLE checkpoints",
		},
		{
			name:          "no history: the config",
			drafts:        history(t, TriggerApproval, 100, S, S),
			configDefault: 2,
			wantN:         2, wantWhy: "from the config (checkpoints.recommend)",
		},
		{
			name:          "only pauses: the config",
			drafts:        history(t, TriggerNoAdmissible, 100, W, W),
			configDefault: 3,
			wantN:         3, wantWhy: "from the config (checkpoints.recommend)",
		},
		{
			name:   "no history, no config: option 1",
			drafts: nil,
			wantN:  1, wantWhy: "default",
		},
		{
			name:          "a config option the checkpoint lacks",
			configDefault: 7,
			wantN:         1, wantWhy: "default; checkpoints.recommend names option 7, but the checkpoint has options 1–4",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			options := tt.options
			if options == nil {
				options = StandardOptions(TriggerNoAdmissible)
			}
			led := ledgerOf(t, 50, tt.drafts...)
			n, why, err := Recommend(bytes.NewReader(led), TriggerNoAdmissible, options, tt.configDefault)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([2]any{tt.wantN, tt.wantWhy}, [2]any{n, why}); diff != "" {
				t.Errorf("Recommend (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRecommendWithoutLedger(t *testing.T) {
	t.Parallel()
	n, why, err := Recommend(nil, TriggerBudget, StandardOptions(TriggerBudget), 2)
	if err != nil || n != 2 || why != whyConfig {
		t.Errorf("Recommend(nil) = %d, %q, %v", n, why, err)
	}
	if _, _, err := Recommend(nil, TriggerBudget, nil, 0); err == nil {
		t.Error("Recommend without options = nil error")
	}
}

func TestRecommendBrokenLedger(t *testing.T) {
	t.Parallel()
	led := ledgerOf(t, 0, history(t, TriggerNoAdmissible, 100, ActionSkip, ActionSkip, ActionProceed)...)
	led = append(led, "{\"checkpoint\": not json\n"...)
	n, why, err := Recommend(bytes.NewReader(led), TriggerNoAdmissible, StandardOptions(TriggerNoAdmissible), 0)
	var verr *ledger.VerifyError
	if !errors.As(err, &verr) || verr.Line != 7 {
		t.Errorf("Recommend on a broken ledger: error = %v, want a *ledger.VerifyError at line 7", err)
	}
	// What was read before the bad line still counts.
	if n != 2 || why != "Skip — chosen in 2 of the last 3 NO_ADMISSIBLE checkpoints" {
		t.Errorf("Recommend on a broken ledger = %d, %q", n, why)
	}
	_, _, err = Recommend(iotestErrReader{}, TriggerNoAdmissible, StandardOptions(TriggerNoAdmissible), 0)
	if err == nil || !strings.Contains(err.Error(), "learn from past NO_ADMISSIBLE decisions") {
		t.Errorf("Recommend on a failing reader: %v", err)
	}
}

type iotestErrReader struct{}

func (iotestErrReader) Read([]byte) (int, error) { return 0, io.ErrUnexpectedEOF }

// BenchmarkRecommend measures learning from a large ledger: 100,000 run
// entries and 100 decided checkpoints.
func BenchmarkRecommend(b *testing.B) {
	actions := append(repeat(ActionProceed, 70), repeat(ActionSkip, 30)...)
	led := ledgerOf(b, 100_000, history(b, TriggerNoAdmissible, 1, actions...)...)
	opts := StandardOptions(TriggerNoAdmissible)
	b.SetBytes(int64(len(led)))
	b.ResetTimer()
	for b.Loop() {
		if _, _, err := Recommend(bytes.NewReader(led), TriggerNoAdmissible, opts, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// What people did with the changes of the agent Proceed would deliver
// turns a recommendation the past decisions leave open (none made, or a
// tie), and says why in numbers; it never overrides a clear history or
// the config, whose reasons gain the numbers.
func TestRecommendWithTrack(t *testing.T) {
	t.Parallel()
	const (
		P = ActionProceed
		S = ActionSkip
	)
	closedMostly := Track{Agent: "codex", Merged: 1, Closed: 3}
	mergedMostly := Track{Agent: "claude", Merged: 4, Closed: 1}
	for _, tt := range []struct {
		name          string
		actions       []Action
		configDefault int
		track         Track
		want          int
		why           string
	}{
		{"no history, mostly closed", nil, 0, closedMostly, 2, "Skip — codex's pull requests: 1 of 4 merged lately"},
		{"no history, mostly merged", nil, 0, mergedMostly, 1, "Proceed — claude's pull requests: 4 of 5 merged lately"},
		{"no history, even", nil, 0, Track{Agent: "codex", Merged: 2, Closed: 2}, 1, whyDefault},
		{"no history, no track", nil, 0, Track{}, 1, whyDefault},
		{"a tie, mostly closed", []Action{P, S}, 0, closedMostly, 2, "Skip — chosen as often as Proceed in the last 2 NO_ADMISSIBLE checkpoints (1 each); codex's pull requests: 1 of 4 merged lately"},
		{"a tie, mostly merged", []Action{S, P}, 0, mergedMostly, 1, "Proceed — chosen as often as Skip in the last 2 NO_ADMISSIBLE checkpoints (1 each); claude's"},
		{"history says Proceed", []Action{P, P, S}, 0, closedMostly, 1, "Proceed — chosen in 2 of the last 3 NO_ADMISSIBLE checkpoints; codex's pull requests: 1 of 4 merged lately"},
		{"the config says Proceed", nil, 1, closedMostly, 1, whyConfig + "; codex's pull requests: 1 of 4 merged lately"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var r io.Reader
			if tt.actions != nil {
				r = bytes.NewReader(ledgerOf(t, 0, history(t, TriggerNoAdmissible, 300, tt.actions...)...))
			}
			n, why, err := RecommendWith(r, TriggerNoAdmissible, StandardOptions(TriggerNoAdmissible), tt.configDefault, tt.track)
			if err != nil || n != tt.want || !strings.HasPrefix(why, tt.why) {
				t.Errorf("RecommendWith = %d, %q, %v; want %d, %q", n, why, err, tt.want, tt.why)
			}
			cp := withTrigger(t, "9-1", 1, TriggerNoAdmissible)
			cp.Recommended, cp.Recommendation = n, why
			if err := cp.Validate(); err != nil {
				t.Errorf("the recommendation does not validate: %v", err)
			}
		})
	}
	long := Track{Agent: strings.Repeat("a-very-long-agent-name-", 10), Merged: 0, Closed: 9}
	n, why, _ := RecommendWith(bytes.NewReader(ledgerOf(t, 0, history(t, TriggerNoAdmissible, 400, P, S)...)), TriggerNoAdmissible, StandardOptions(TriggerNoAdmissible), 0, long)
	cp := withTrigger(t, "9-1", 1, TriggerNoAdmissible)
	cp.Recommended, cp.Recommendation = n, why
	if err := cp.Validate(); err != nil {
		t.Errorf("a long agent name makes a recommendation that does not validate: %v", err)
	}
}
