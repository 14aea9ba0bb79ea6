#!/usr/bin/env bash
# The packaged demo's limits switch (issue 31, item 17): examples/demo.sh writes its own config,
# so `demo.sh --limits off` (or AWAYWORK_DEMO_LIMITS=off) is how an owner who is not root on a
# cgroup v1 kernel applies doctor's `sandbox: {limits: off}` fix to it. Runs demo.sh with a
# stand-in awaywork that keeps the config, has the real binary load it (`units`: the config parser
# and nothing else) and makes the branch the demo looks for; the real unit runs in the package
# test (in_container.sh).
# Usage: demo_test.sh AWAYWORK_BINARY SOURCE_DIR
set -uo pipefail
real=$1
src=$2
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
work=$(mktemp -d)
made=()
cleanup() { rm -rf "$work" "${made[@]}"; }
trap cleanup EXIT

cat >"$work/awaywork" <<'STUB'
#!/bin/sh
# Stand-in: awaywork --config CFG run --repo greet --prompt P
cfg=$2
cp "$cfg" "$STUB_OUT/config.yml"
"$STUB_REAL" --config "$cfg" units >"$STUB_OUT/units.out" 2>&1 || exit 9
[ "${STUB_FAIL:-}" = 1 ] && exit 3
repo=$(sed -n 's/^ *path: //p' "$cfg")
git -C "$repo" branch awaywork/stand-in
STUB
chmod +x "$work/awaywork"

# demo NAME [ENV=VALUE...] -- ARGS...: runs demo.sh; its exit status in $rc, output in $work/NAME.*.
demo() {
  local name=$1 envs=()
  shift
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  mkdir -p "$work/$name"
  env AWAYWORK="$work/awaywork" STUB_REAL="$real" STUB_OUT="$work/$name" "${envs[@]}" \
    "$src/examples/demo.sh" "$@" >"$work/$name.out" 2>"$work/$name.err"
  rc=$?
  local d
  d=$(sed -n 's/^== awaywork run (config: \(.*\)\/config.yml)$/\1/p' "$work/$name.out")
  [ -n "$d" ] && made+=("$d")
}
limits_off() { grep -qE '^sandbox: \{limits: off\}' "$work/$1/config.yml"; }

demo default --
[ "$rc" -eq 0 ] || fail "the demo without --limits failed ($rc): $(cat "$work/default.err" "$work/default/units.out" 2>/dev/null)"
[ -f "$work/default/config.yml" ] && ! grep -q 'limits' "$work/default/config.yml" ||
  fail "the default demo config turns limits off or was not written"

demo flag -- --limits off
[ "$rc" -eq 0 ] || fail "demo.sh --limits off failed ($rc): $(cat "$work/flag.err" "$work/flag/units.out" 2>/dev/null)"
limits_off flag || fail "demo.sh --limits off did not write sandbox: {limits: off}"

demo env AWAYWORK_DEMO_LIMITS=off --
[ "$rc" -eq 0 ] || fail "AWAYWORK_DEMO_LIMITS=off failed ($rc): $(cat "$work/env.err" 2>/dev/null)"
limits_off env || fail "AWAYWORK_DEMO_LIMITS=off did not write sandbox: {limits: off}"

demo bad -- --limits maybe
[ "$rc" -eq 2 ] || fail "demo.sh --limits maybe: exit $rc, not 2"
[ ! -e "$work/bad/config.yml" ] || fail "demo.sh --limits maybe ran a unit"

# A failed unit points at doctor and at the switch.
demo failed STUB_FAIL=1 --
[ "$rc" -eq 1 ] || fail "a failed unit: demo exit $rc, not 1"
grep -q -- '--limits off' "$work/failed.err" || fail "a failed unit does not name --limits off: $(cat "$work/failed.err")"

if [ "$failures" -ne 0 ]; then echo "demo_test: $failures failure(s)"; exit 1; fi
echo "demo_test: the demo's config takes limits off by flag and by environment"
