#!/bin/sh
# A command check: passes (exit 0) when the output on stdin has at least $1 words.
words=$(wc -w | tr -d ' ')
if [ "$words" -ge "$1" ]; then
  exit 0
fi
echo "only $words words, want at least $1" >&2
exit 1
