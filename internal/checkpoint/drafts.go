package checkpoint

import (
	"time"

	"github.com/optr-dev/optr/internal/ledger"
)

// The kind-specific members of checkpoint and decision ledger entries.
const (
	fieldCheckpoint     = "checkpoint"
	fieldTrigger        = "trigger"
	fieldOptions        = "options"
	fieldRecommended    = "recommended"
	fieldRecommendation = "recommendation"
	fieldOption         = "option"
	fieldAction         = "action"
	fieldBy             = "by"
	fieldNote           = "note"
	fieldSource         = "source"
)

// CheckpointDraft is the ledger entry that records cp was raised at now
// (kind checkpoint): its id, trigger, option labels in order, and the
// recommended option with why.
func CheckpointDraft(cp Checkpoint, now time.Time) ledger.Draft {
	labels := make([]string, len(cp.Options))
	for i, o := range cp.Options {
		labels[i] = o.Label
	}
	return ledger.Draft{
		Kind: ledger.KindCheckpoint, Run: cp.Run, Workflow: cp.Workflow, Time: now,
		Fields: map[string]any{
			fieldCheckpoint:     cp.ID,
			fieldTrigger:        string(cp.Trigger),
			fieldOptions:        labels,
			fieldRecommended:    cp.Recommended,
			fieldRecommendation: cp.Recommendation,
		},
	}
}

// DecisionDraft is the ledger entry that records d answered cp at now
// (kind decision): the checkpoint id and trigger, the option and its
// action, who decided, the note and where. It belongs to the paused run
// (cp.Run), whichever run carries the decision out. A decision whose
// action is not pause closes the checkpoint.
func DecisionDraft(cp Checkpoint, d Decision, now time.Time) ledger.Draft {
	return ledger.Draft{
		Kind: ledger.KindDecision, Run: cp.Run, Workflow: cp.Workflow, Time: now,
		Fields: map[string]any{
			fieldCheckpoint: cp.ID,
			fieldTrigger:    string(cp.Trigger),
			fieldOption:     d.Option,
			fieldAction:     string(d.Action),
			fieldBy:         d.By,
			fieldNote:       d.Note,
			fieldSource:     d.Source,
		},
	}
}
