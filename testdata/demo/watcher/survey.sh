#!/bin/sh
# The survey pipeline's parts (mode: delegate): the coordinator plans eight
# topics; a specialist fails at once on the first three and writes a valid
# report on the others.
cat >/dev/null
case "$OPTR_STAGE" in
coordinator)
	cat <<'PLAN'
INVOCATION_PLAN_READY: 8
[{"topic": "Hash chains", "focus": "entries that commit to the one before"},
 {"topic": "Merkle trees", "focus": "proofs of inclusion"},
 {"topic": "Witnesses", "focus": "who else keeps the head"},
 {"topic": "Checkpoints", "focus": "signed heads"},
 {"topic": "Consistency proofs", "focus": "an old head inside a new one"},
 {"topic": "Segments", "focus": "sealed files"},
 {"topic": "Canonical JSON", "focus": "one byte form per entry"},
 {"topic": "Verification cost", "focus": "what a verifier reads"}]
RESEARCH_COORDINATOR_COMPLETE: SUCCESS
PLAN
	;;
specialist)
	case "$OPTR_TOPIC" in
	"Hash chains" | "Merkle trees" | "Witnesses")
		echo "TASK_ERROR: no_sources - found nothing on $OPTR_TOPIC"
		exit 1
		;;
	esac
	cat >"$OPTR_REPORT_PATH" <<MD
---
report_type: research
topic: "$OPTR_TOPIC"
findings_count: 1
recommendations_count: 1
created_date: $(date -u +%Y-%m-%d)
status: complete
---
# $OPTR_TOPIC

## Summary

What the survey found about $OPTR_TOPIC.

## Findings

- $OPTR_TOPIC make a changed history visible to whoever checks.

## Recommendations

- Check it on every run.

## Sources

- docs/architecture.md §4.3 and §4.13
MD
	echo "REPORT_CREATED: $OPTR_REPORT_PATH"
	;;
*)
	echo "TASK_ERROR: no_part - survey.sh runs only as coordinator or specialist" >&2
	exit 2
	;;
esac
