#!/bin/sh
# The project's check: the greeting must be spelt right.
out=$(sh ./greet.sh Ada)
if [ "$out" != "Hello, Ada!" ]; then
  echo "FAIL: expected 'Hello, Ada!', got '$out'" >&2
  exit 1
fi
echo "ok: greet.sh greets Ada"
