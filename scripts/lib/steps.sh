# Sourced by scripts/test (and scripts/test-fresh): named, timed steps and a failure that says
# which step, which command and which status.
#   . scripts/lib/steps.sh
#   steps_begin NAME                 # the ERR trap, the clock
#   step NAME COMMAND [ARGS...]      # prints "== NAME" then "== NAME: 12.3 s"; output passes
#                                    # through and is kept in $STEPS_LAST_OUT (stdout only)
#   steps_end                        # the table of every step's wall time
# Under set -e a failing step ends the script; the ERR trap names it before it does.

STEPS_NAME=script
STEPS_CURRENT=
STEPS_TABLE=()
STEPS_LAST_OUT=$(mktemp)
steps_begin() {
  STEPS_NAME=$1
  STEPS_START=$(date +%s.%N)
  set -E  # the ERR trap also fires inside functions (step)
  trap 'steps_failed $? "$BASH_COMMAND"' ERR
  trap 'rm -f "$STEPS_LAST_OUT"' EXIT
}

steps_failed() {
  local rc=$1 cmd=$2
  trap - ERR
  echo "" >&2
  if [ -n "$STEPS_CURRENT" ]; then
    STEPS_TABLE+=("$(printf '%-20s %8s s  FAILED (exit %s)' "${STEPS_CURRENT%%: *}" "$(steps_secs "$STEPS_T0")" "$rc")")
    echo "$STEPS_NAME: FAILED: step '${STEPS_CURRENT%%: *}', command '${STEPS_CURRENT#*: }', exit $rc" >&2
  else
    echo "$STEPS_NAME: FAILED outside a step: command '$cmd', exit $rc" >&2
  fi
  steps_table >&2
}

steps_secs() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

step() {
  local name=$1
  shift
  STEPS_CURRENT="$name: $*"
  echo "== $STEPS_NAME: $name ($*)"
  STEPS_T0=$(date +%s.%N)
  "$@" | tee "$STEPS_LAST_OUT"
  local took
  took=$(steps_secs "$STEPS_T0")
  STEPS_TABLE+=("$(printf '%-20s %8s s' "$name" "$took")")
  echo "== $STEPS_NAME: $name: $took s"
  STEPS_CURRENT=
}

steps_table() {
  local row
  ((${#STEPS_TABLE[@]})) || return 0
  echo "== $STEPS_NAME: wall time per step"
  for row in "${STEPS_TABLE[@]}"; do echo "   $row"; done
}

steps_end() {
  steps_table
  echo "== $STEPS_NAME: done in $(steps_secs "$STEPS_START") s"
}
