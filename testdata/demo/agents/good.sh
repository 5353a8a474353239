#!/bin/sh
# A good agent: announces itself, answers in Markdown, reports its TTV.
# In the research pipeline (mode: delegate) this agent plans or writes a report.
case "$OPTR_STAGE" in coordinator | specialist) exec sh "$(dirname "$0")/research.sh" good ;; esac
intent=$(cat)
printf '<<<OPTR:READY:{"stage":"answer","ts":"%s"}>>>' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
sleep 0.3
cat <<MD
# Answer

You asked: "$intent"

A hash-chained ledger stores each entry with the hash of the one before it,
so changing, removing or reordering any past entry breaks every hash after
it. Anyone can verify the whole history by recomputing the chain, and an
appender only needs the last hash to extend it.
MD
printf '<<<OPTR:RESULT:{"ttv_ms":300}>>>\n'
