#!/bin/sh
# A sloppy agent: fast, but leaves a TODO, which breaks the hard no-todo check.
cat >/dev/null
cat <<MD
# Draft

Ledgers are chained for integrity. TODO: explain why.
MD
