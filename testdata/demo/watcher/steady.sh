#!/bin/sh
# A steady agent: answers once the watcher has decided on three failures.
# It reads the run's watcher log, beside $OPTR_OUTPUT_DIR, so that in this
# demo the failures surely come before the answers.
cat >/dev/null
log="$OPTR_OUTPUT_DIR/../.coordination/watcher-log.md"
while :; do
	n=$(grep -c '^## ' "$log" 2>/dev/null)
	[ "${n:-0}" -ge 3 ] && break
	sleep 0.05
done
printf '# %s\n\n7 is prime: its only divisors are 1 and 7.\n' "$OPTR_AGENT"
