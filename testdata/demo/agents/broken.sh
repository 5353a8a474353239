#!/bin/sh
# A broken agent: fails with a non-zero exit status.
cat >/dev/null
echo "broken: cannot reach the model (simulated)" >&2
exit 3
