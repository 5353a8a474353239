package checkpoint

// The labels of the standard options.
const (
	LabelProceed = "Proceed"
	LabelSkip    = "Skip"
	LabelAbort   = "Abort"
	LabelPause   = "Pause"
)

// StandardOptions returns the options optr offers at a checkpoint raised
// for t, as a new slice. Every trigger offers the same four actions under
// the same numbers — 1 Proceed, 2 Skip, 3 Abort, 4 Pause — so that a
// number means the same thing on every checkpoint and the NO_ADMISSIBLE
// order fixed by architecture §4.6 (Proceed, Skip, Abort) holds; only the
// descriptions say what each does for t. An unknown trigger gets generic
// descriptions.
func StandardOptions(t Trigger) []Option {
	d := descriptions[t]
	if d == ([3]string{}) {
		d = descriptions[""]
	}
	l := [3]string{LabelProceed, LabelSkip, LabelAbort}
	if t == TriggerThreat { // architecture §4.15 names them so
		l = [3]string{"Deliver anyway", "Discard", LabelAbort}
	}
	return []Option{
		{N: 1, Label: l[0], Description: d[0], Action: ActionProceed},
		{N: 2, Label: l[1], Description: d[1], Action: ActionSkip},
		{N: 3, Label: l[2], Description: d[2], Action: ActionAbort},
		{N: 4, Label: LabelPause, Description: "leave the checkpoint open and decide later", Action: ActionPause},
	}
}

// descriptions are the Proceed, Skip and Abort descriptions per trigger;
// "" holds the generic ones.
var descriptions = map[Trigger][3]string{
	TriggerNoAdmissible: {
		"take the best-scoring result anyway",
		"record the run, select nothing",
		"end the run as failed",
	},
	TriggerApproval: {
		"commit the selected result",
		"record the run, commit no result",
		"end the run as failed, commit nothing",
	},
	TriggerHiccup: {
		"carry on with the results the agents have produced",
		"record the failure, select nothing",
		"end the run as failed",
	},
	TriggerBudget: {
		"select among the results gathered before the budget ran out",
		"record the run, select nothing",
		"end the run as failed",
	},
	TriggerThreat: {
		"deliver π*'s result as it is, findings and all",
		"record the run, deliver nothing",
		"end the run as failed, deliver nothing",
	},
	"": {
		"carry on with the run",
		"record the run, select nothing",
		"end the run as failed",
	},
}

// situation says in one sentence why a run paused for t, for the prompt
// and the comment; empty for an unknown trigger.
func situation(t Trigger) string {
	switch t {
	case TriggerNoAdmissible:
		return "No result passed every hard constraint."
	case TriggerApproval:
		return "A result was selected and waits for approval before it is committed (checkpoints.before-commit)."
	case TriggerHiccup:
		return "Recovery ran out of options: an agent kept failing in a way optr could not fix."
	case TriggerBudget:
		return "The run's budget is spent."
	case TriggerThreat:
		return "Threat detection found something in the selected result; nothing is delivered until a maintainer decides."
	}
	return ""
}
