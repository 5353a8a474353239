#!/bin/sh
# Stage 2 of the decide demo: reads the discussion from
# $OPTR_PREVIOUS_OUTPUT (stdin holds the intent and the same text) and
# decides.
set -eu
cat >/dev/null
printf '<<<OPTR:READY:{"stage":"%s","ts":"%s"}>>>\n' "$OPTR_STAGE" "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
options=$(grep -c '^- Option' "$OPTR_PREVIOUS_OUTPUT" || true)
cat <<MD
## Decision

Of the $options options discussed, take Option B: two steps behind a flag,
so each step can be checked and rolled back on its own.
MD
printf '<<<OPTR:HANDOFF:%s>>>\n' "$OPTR_NEXT_STAGE"
