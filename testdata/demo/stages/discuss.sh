#!/bin/sh
# Stage 1 of the decide demo (discuss → decisions → execute → mind): lays
# out the options the intent raises, then hands off to the next stage.
# stdin is the intent; with feedback, $OPTR_FEEDBACK is the previous run's
# insights (absent on the first run).
set -eu
intent=$(cat | head -n 1 | sed 's/[<>]/ /g')
printf '<<<OPTR:READY:{"stage":"%s","ts":"%s"}>>>\n' "$OPTR_STAGE" "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
cat <<MD
## Discussion

Question: $intent

- Option A: do it now, in one change.
- Option B: do it in two steps, behind a flag.
- Option C: do nothing yet and measure first.
MD
if [ -n "${OPTR_FEEDBACK:-}" ] && [ -f "$OPTR_FEEDBACK" ]; then
	printf '\nLast time the mind stage noted:\n'
	grep '^- ' "$OPTR_FEEDBACK" | head -n 3 | sed 's/[<>]/ /g'
fi
printf '<<<OPTR:HANDOFF:%s>>>\n' "$OPTR_NEXT_STAGE"
