#!/bin/sh
# The demo agents' parts in the research pipeline (mode: delegate). optr sets
# OPTR_STAGE=coordinator for the agent that plans and OPTR_STAGE=specialist,
# OPTR_TOPIC and OPTR_REPORT_PATH for each agent that writes a report.
# $1 is the persona: good, slow or sloppy.
persona=$1
cat >/dev/null # the brief: what to plan or research, and the request
case "$OPTR_STAGE" in
coordinator)
	# Planning only: the plan, announced and confirmed by line signals.
	cat <<'PLAN'
INVOCATION_PLAN_READY: 4
[{"topic": "Hash chains", "focus": "how each entry commits to the one before"},
 {"topic": "Witnesses", "focus": "who else keeps a copy of the head"},
 {"topic": "Checkpoints", "focus": "signed heads and inclusion proofs"},
 {"topic": "Verification cost", "focus": "what a verifier has to read"}]
RESEARCH_COORDINATOR_COMPLETE: SUCCESS
PLAN
	;;
specialist)
	findings=2
	case "$persona" in
	slow) sleep 1 ;;
	sloppy) findings=3 ;; # claims a finding it never lists: the report fails validation
	esac
	cat >"$OPTR_REPORT_PATH" <<MD
---
report_type: research
topic: "$OPTR_TOPIC"
findings_count: $findings
recommendations_count: 1
created_date: $(date -u +%Y-%m-%d)
status: complete
---
# $OPTR_TOPIC

## Summary

What $persona found about $OPTR_TOPIC, in two findings.

## Findings

- Each ledger entry carries the hash of the entry before it, so a change
  anywhere breaks every later hash.
- Publishing the head to parties optr does not control makes a rewritten
  history visible, not just a flipped byte.

## Recommendations

- Verify the chain and compare the head with a published checkpoint.

## Sources

- docs/architecture.md §4.3 and §4.13
MD
	echo "REPORT_CREATED: $OPTR_REPORT_PATH"
	;;
*)
	echo "TASK_ERROR: no_part - research.sh runs only as coordinator or specialist" >&2
	exit 2
	;;
esac
