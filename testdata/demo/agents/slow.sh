#!/bin/sh
# A slow agent: a correct answer, but it takes a while.
# In the research pipeline (mode: delegate) this agent plans or writes a report.
case "$OPTR_STAGE" in coordinator | specialist) exec sh "$(dirname "$0")/research.sh" slow ;; esac
intent=$(cat)
sleep 1.5
cat <<MD
# A careful answer

Each ledger entry carries the hash of the entry before it. Changing any
entry changes its hash, which no longer matches the next entry's prev, so
tampering shows up at the first altered line when the chain is verified.
MD
