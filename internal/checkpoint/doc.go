// Package checkpoint pauses a run until a human decides what happens next
// (architecture §2 "Checkpoints", §4.6).
//
// A [Checkpoint] is raised for a [Trigger] — no admissible result
// ([TriggerNoAdmissible]), an approval before commit-back
// ([TriggerApproval]), recovery out of options ([TriggerHiccup]), a spent
// budget ([TriggerBudget]) or a threat found in π*'s result
// ([TriggerThreat]) — and offers numbered [Option] values, one of them
// recommended. Each Option carries the [Action] the caller carries out:
// proceed, skip, abort, or pause (stay open).
//
// The life of a checkpoint:
//
//   - The caller builds it with [New], asks [Recommend] for the
//     recommended option (learned from past decisions in the ledger, else
//     from the config), and fills [Checkpoint.State] with what it needs to
//     resume.
//   - In a terminal, [Prompt] asks at once and returns a [Decision].
//   - Otherwise the caller saves it with [Save] to
//     <datalake>/checkpoints/<id>.json (written once, never rewritten),
//     appends [CheckpointDraft] to the ledger, and posts [Comment] on the
//     issue.
//   - An answer (optr resume --choose N, /optr choose N, /optr abort)
//     becomes a Decision through [Decide] or [AbortDecision]; the caller
//     appends [DecisionDraft] and edits the comment to [DecidedComment].
//
// Whether a checkpoint is still open is read from the ledger alone
// ([Status], [Pending]): a decision entry other than pause closes it. A
// resume always starts from the saved file ([Load]), never from a comment
// body, which anyone can edit.
package checkpoint
