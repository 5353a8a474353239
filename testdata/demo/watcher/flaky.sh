#!/bin/sh
# A flaky agent: fails at once, before it writes anything.
cat >/dev/null
echo "TASK_ERROR: upstream_down - the service $OPTR_AGENT needs did not answer" >&2
exit 1
