#!/bin/sh
# A scripted specialist for the tests. MODE says how it behaves; every mode
# first checks that the invocation plan was written before it started.
cat >/dev/null
p="$OPTR_REPORT_PATH"
spec=$(dirname "$p") # the spec folder: above reports/, or above .candidates/<candidate>/
while [ ! -e "$spec/.invocation-plan.txt" ] && [ "$spec" != / ]; do spec=$(dirname "$spec"); done
if ! grep -q '^PLAN_COMPLETE$' "$spec/.invocation-plan.txt"; then
	echo "TASK_ERROR: no_plan - the invocation plan was not written before the specialist started"
	exit 5
fi
if [ -n "$RENDEZVOUS" ]; then
	# Wait until every specialist has started: proves they run in parallel.
	touch "$RENDEZVOUS/$OPTR_AGENT"
	i=0
	while [ "$(ls "$RENDEZVOUS" | wc -l)" -lt "$RENDEZVOUS_N" ]; do
		i=$((i + 1))
		[ "$i" -gt 3000 ] && { echo "TASK_ERROR: alone - the other specialists never started"; exit 6; }
		sleep 0.01
	done
fi
report() {
	cat <<MD
---
report_type: research
topic: "$OPTR_TOPIC"
findings_count: ${FINDINGS:-2}
recommendations_count: 1
created_date: 2026-11-23
status: complete
---
# $OPTR_TOPIC

## Summary
${BODY:-A short summary of the topic.}

## Findings
- the first finding
- the second finding

## Recommendations
- act on the findings

## Sources
- https://example.com/$OPTR_AGENT
MD
}
case "$MODE" in
good) report >"$p"; echo "REPORT_CREATED: $p" ;;
silent) report >"$p" ;;
nothing) echo "REPORT_CREATED: $p" ;;
elsewhere) report >"$ELSEWHERE/$OPTR_AGENT.md"; echo "REPORT_CREATED: $ELSEWHERE/$OPTR_AGENT.md" ;;
link) ln -s /etc/passwd "$p"; echo "REPORT_CREATED: $p" ;;
huge) truncate -s 50M "$p"; echo "REPORT_CREATED: $p" ;;
badyaml) printf -- '---\ntopic: [unclosed\n---\n## Summary\n' >"$p"; echo "REPORT_CREATED: $p" ;;
falsecounts) FINDINGS=5 report >"$p"; echo "REPORT_CREATED: $p" ;;
todo) BODY="TODO: write this" report >"$p"; echo "REPORT_CREATED: $p" ;;
taskerror) echo "TASK_ERROR: upstream_down - the search API answered 503"; echo 'ERROR_CONTEXT: {"status":503}'; exit 4 ;;
*) echo "unknown MODE $MODE" >&2; exit 2 ;;
esac
