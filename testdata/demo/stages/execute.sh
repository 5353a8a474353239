#!/bin/sh
# Stage 3 of the decide demo: turns the decision into steps. It crashes on
# its first attempt of every run (an ERROR frame and exit 1, leaving a
# marker in $OPTR_OUTPUT_DIR), so the demo shows a restart; the restart
# gets the same input and succeeds.
set -eu
cat >/dev/null
printf '<<<OPTR:READY:{"stage":"%s","ts":"%s"}>>>\n' "$OPTR_STAGE" "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
marker="${OPTR_OUTPUT_DIR:?OPTR_OUTPUT_DIR is not set}/execute.crashed-once"
if [ ! -e "$marker" ]; then
	mkdir -p "$OPTR_OUTPUT_DIR"
	: >"$marker"
	echo 'half a plan'
	printf '<<<OPTR:ERROR:{"code":"demo_crash","message":"execute crashes once on purpose"}>>>\n'
	echo 'execute: crashing once on purpose' >&2
	exit 1
fi
grep '^Of the' "$OPTR_PREVIOUS_OUTPUT" >/dev/null
cat <<MD
## Steps

1. Add the flag, off by default.
2. Ship step one behind it and check it.
3. Ship step two, then turn the flag on.
MD
printf '<<<OPTR:HANDOFF:%s>>>\n' "$OPTR_NEXT_STAGE"
