// Package delegate runs a hierarchical delegation pipeline (mode: delegate,
// architecture §4.9): a coordinator plans topics, specialists write one report
// each in parallel, a hard barrier decides the run.
//
// Run takes the ten steps of §4.9 in order, each leaving its file:
//
//  1. the spec folder <datalake>/specs/NNN_<slug>/ and its reports/, NNN
//     taken with an exclusive create (Claim), so concurrent runs never share it;
//  2. the coordinator plans (planning only): an LLM answers
//     {"topics":[{"topic","focus"}]}, a command prints
//     INVOCATION_PLAN_READY: N, a JSON array and
//     RESEARCH_COORDINATOR_COMPLETE: SUCCESS (ParsePlan). A bad plan is a
//     systematic failure, so recovery (§2) applies before the run fails;
//  3. .invocation-plan.txt is written before any specialist starts;
//  4. the specialists run in parallel through executor.Run, so recovery,
//     the watcher, budgets and max-parallel apply to them as to select
//     agents; a command specialist gets OPTR_TOPIC and OPTR_REPORT_PATH, a
//     path in a folder of its own under .candidates/, and writes its report
//     there; an LLM specialist's answer is the report optr writes. Only
//     optr writes reports/, so no specialist can touch another's report;
//  5. each report is validated (Validate): goccy/go-yaml frontmatter, the
//     required sections, counts equal to the bullets, the planned path and
//     nowhere else, then the run's hard constraints (the executor checks the
//     report as the specialist's output). With candidates > 1 each topic is
//     written by that many specialists and the best admissible report is
//     selected by package selection, the score table of select runs;
//  6. the hard barrier: success rate against the threshold;
//  7. OVERVIEW.md, from the reports' frontmatter alone;
//  8. one errors.jsonl line per failure;
//  9. the four-section summary (Summary, Phases, Artifacts, Next Steps) with
//     the success line and the context reduction;
//  10. the ledger run entry's members (Outcome.Ledger).
//
// The package writes only inside its new spec folder (and appends to
// errors.jsonl): nothing an earlier run wrote is touched. It records
// nothing in the ledger and commits nothing: the run driver does that with
// what Outcome holds.
package delegate
