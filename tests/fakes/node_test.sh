#!/bin/sh
# Runs a node:test script (tests/fakes/*.mjs); without node it skips (77), under CI=true it fails.
if ! command -v node >/dev/null; then
  echo "node is missing (install Node.js 20+; scripts/agent-clis needs it too)"
  [ "$CI" = true ] && exit 1
  exit 77
fi
exec node --test "$@"
