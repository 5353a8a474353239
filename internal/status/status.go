package status

// Status is how a run, an agent, a stage or a verdict stands.
type Status string

// A run's status: the Action's `status` output, the ledger `run` entry's
// `status`, optr-selection.json's. Running is a run not yet ended (the
// progress comment); a run ends completed, paused (at a checkpoint),
// failed, or skipped (the Action had nothing to do).
const (
	Running   Status = "running"
	Completed Status = "completed"
	Paused    Status = "paused"
	Failed    Status = "failed"
	Skipped   Status = "skipped"
)

// An agent's status (a result's `status`): Queued, Running and Retrying
// while it works, then Succeeded, Failed, Escalated (recovery gave up and
// handed it to a human) or Cancelled (the run stopped first).
const (
	Queued    Status = "queued"
	Retrying  Status = "retrying"
	Succeeded Status = "succeeded"
	Escalated Status = "escalated"
	Cancelled Status = "cancelled"
)

// A stage's status (a stage record's and the ledger's `stages[].status`)
// uses the agent's words Escalated (it crashed more than restarts times),
// Failed and Cancelled, Completed for the last stage that finished, and:
const (
	// HandedOff: the stage handed its output to the next one.
	HandedOff Status = "handed_off"
	// NotStarted: an earlier stage did not hand off.
	NotStarted Status = "not_started"
)

// A verdict's status (a constraint's on one result): Passed, Failed, or
// Unverified (nothing could check it).
const (
	Passed     Status = "passed"
	Unverified Status = "unverified"
)
