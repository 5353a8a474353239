// Package executor fans one intent out to N agents concurrently (bounded by
// MaxParallel), runs each to completion under the recovery policy, captures
// every result once its agent is done (the Sink writes it to the datalake
// before its checks run), and then checks it against the run's constraints.
//
// One agent's failure never cancels the others: each failure is recorded in
// that agent's Result. Wall time therefore tracks the slowest agent, not the
// sum of them.
//
// With a watcher (package escalation) plugged in through Supervise and
// Failed, Run carries the watcher's decisions out:
//
//   - restart: a stalled agent (its context cancelled with
//     escalation.ErrRestart) or one whose failure is answered with restart
//     is relaunched with fresh state, at most MaxRestarts times; the
//     attempts of the launches before it stay in its Result;
//   - reassign: a spare agent that is not busy takes the failed agent's
//     task over, in the same fan-out slot; its Result names whom it replaced;
//   - synthesize: the failed agent's partial output goes to the Synthesizer,
//     which runs once all agents are done and yields the "synthesis" Result;
//   - abort: every remaining agent is cancelled (its Result says so) and Run
//     returns an error wrapping escalation.ErrAbort. Each failure goes to
//     the watcher with the run's outlook (Options.Outlook: SelectOutlook by
//     default, a delegation's threshold), so that failures abort only a
//     run that can no longer succeed and never cancel an agent whose
//     result could still count;
//   - escalate_ceo: nothing more here; the watcher has written the
//     ceo-inbox and the caller posts the escalation comment.
package executor
