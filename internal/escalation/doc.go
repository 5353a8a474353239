// Package escalation is optr's watcher and handler: the two tiers of the
// seed's tiered watcher, inside every run and standalone.
//
// Tier 1 notices trouble: an agent that shows no sign of life (output
// bytes, control frames, tokens) for watcher.stuck-after, or an agent that
// failed. It writes an escalation (escalate.md). Tier 2 decides one of five
// actions with a fixed decision table, records the decision and carries it
// out.
//
// # Decision table
//
// The first rule that matches wins (architecture §4.7; see [Respond]):
//
//	| # | situation                                      | decision     |
//	|---|------------------------------------------------|--------------|
//	| 1 | watcher.max-failures agents (default 3) failed | abort        |
//	| 2 | conflict or deadlock                           | escalate_ceo |
//	| 3 | timeout or stuck, a restart left               | restart      |
//	| 4 | error with partial outputs                     | synthesize   |
//	| 5 | error without outputs                          | reassign     |
//	| 6 | anything else                                  | synthesize   |
//
// A timeout or stall whose agent has used watcher.max-restarts is an error
// (rules 4 and 5). In a run the decisions are carried out for real: restart
// kills the agent's processes and relaunches it with fresh state; reassign
// gives its task to a spare agent that is not busy; synthesize hands the
// partial outputs to a synthesis step; abort stops the remaining agents and
// fails the run; escalate_ceo posts an escalation comment and writes the
// ceo-inbox. Abort also writes the ceo-inbox and comments
// ([Escalation.NeedsHuman]).
// Conflict and deadlock are what an agent itself reports, as the code of
// an ERROR control frame (reason "conflict" or "deadlock").
//
// # Files
//
// In a .coordination directory (a run's lives in its run directory):
//
//	escalate.md                      the trigger: # Escalation: <id>, **Reason:**, **Trigger:**, **Agent:**
//	blackboard.json                  agents, task_queue, findings, messages; unknown members kept
//	watcher-log.md                   one "## [YYYY-MM-DD HH:MM:SS] Escalation <id>: <decision>" entry each
//	decision.md                      the latest decision, whole
//	agent_<id>.md                    worker outputs (read only)
//	archive/escalations/escalate-<YYYYMMDD-HHMMSS>.md   handled triggers
//	../ceo-inbox/YYYY-MM-DD-watcher-escalation-<id>.md   for escalate_ceo and abort
//
// Missing files are empty; a blackboard that cannot be read is copied aside
// before it is rewritten; the blackboard is replaced atomically. [Handle]
// is the one-shot handler, [Watch] polls, [Command] is `optr handle`
// without flag parsing, and [Watcher] runs inside a run.
package escalation
