// Package pipeline carries one optr run end to end: it resolves the agents
// and constraints a run uses, refuses bad input before anything is written,
// fans the intent out through the executor, writes every artifact of the run
// into the datalake, selects π*, and appends the run to the ledger.
//
// Both faces of optr use it: the CLI's `optr run` and the Action's
// `optr action`, which adds comments and commit-back around it.
package pipeline
