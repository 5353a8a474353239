// Package outcome records what people did with the pull requests optr
// opened (architecture §4.19): merged, closed unmerged, or reverted on the
// default branch within 30 days of the merge. Each is one `outcome` ledger
// entry, recorded once whatever order and how often the events that report
// it come.
//
// [Read] gathers, from a window of the ledger that verifies, each pull
// request's runs (the run that opened it and its iterations, what they
// cost, π*'s agent and model) and the outcomes already recorded. [Of] turns
// a closed pull request, as GitHub reports it, into its outcome, or says
// why it records nothing (not optr's, open again, already recorded).
// [Sweep] finds, through the API, what became of the pull requests the
// ledger holds no outcome of — for repositories whose workflow does not
// trigger on pull_request.closed — and the reverts of the merged ones.
// [Decode] reads an outcome entry back, for standings and recommendations.
package outcome
