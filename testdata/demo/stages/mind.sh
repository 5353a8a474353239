#!/bin/sh
# Stage 4, the last, of the decide demo: writes the decision record, the
# run's result, and the insights the next run's first stage gets with
# feedback: true. The last stage hands off to nobody.
set -eu
cat >/dev/null
printf '<<<OPTR:READY:{"stage":"%s","ts":"%s"}>>>\n' "$OPTR_STAGE" "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
steps=$(grep -c '^[0-9]\.' "$OPTR_PREVIOUS_OUTPUT" || true)
cat <<MD
# Decision record

The pipeline discussed the options, decided on two steps behind a flag,
and planned $steps steps to carry it out.

## Insights for the next run

- Splitting the change kept every step small enough to check.
- The execute stage needed a restart; keep its input self-contained.
MD
