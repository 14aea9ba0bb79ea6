# Shared by runner_lock_test.sh and image_test.sh (sourced).
# skip: exit 77 (ctest's skip) saying why, except under CI=true, where that is a failure.
skip() {
  if [ "${CI:-}" = true ]; then echo "FAIL (CI=true, no skipping): $*" >&2; exit 1; fi
  echo "SKIP: $*"; exit 77
}
fail() { echo "FAIL: $*" >&2; exit 1; }
# expect_refusal MESSAGE COMMAND...: the command fails and says MESSAGE.
expect_refusal() {
  local want=$1 out rc
  shift
  set +e
  out=$("$@" 2>&1)
  rc=$?
  set -e
  echo "$out"
  [ "$rc" -ne 0 ] || fail "it went ahead (exit 0): $*"
  grep -qF "$want" <<<"$out" || fail "not the refusal: $want"
}
# Root and a container engine, or a skip.
need_root_and_engine() {
  [ "$(id -u)" -eq 0 ] || skip "needs root (docker)"
  command -v docker >/dev/null && docker info >/dev/null 2>&1 || "$1/scripts/engine-up" >/dev/null 2>&1 ||
    skip "no container engine (scripts/engine-up)"
}
