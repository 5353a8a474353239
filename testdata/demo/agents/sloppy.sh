#!/bin/sh
# A sloppy agent: fast, but leaves a TODO, which breaks the hard no-todo check.
# In the research pipeline (mode: delegate) this agent plans or writes a report.
case "$OPTR_STAGE" in coordinator | specialist) exec sh "$(dirname "$0")/research.sh" sloppy ;; esac
cat >/dev/null
cat <<MD
# Draft

Ledgers are chained for integrity. TODO: explain why.
MD
