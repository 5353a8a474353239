#!/bin/sh
# A steady agent: answers.
cat >/dev/null
printf '# %s\n\n7 is prime: its only divisors are 1 and 7.\n' "$OPTR_AGENT"
