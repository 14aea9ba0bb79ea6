#!/usr/bin/env bash
# scripts/check-layout (issue 38, item 3) holds the tree to docs/layout.md, the room map:
#   - it passes on the real tree
#   - an upward #include (base -> unit) planted in a copy fails, naming the file:line and the arrow
#   - an upward target_link_libraries (aw_base -> aw_unit) fails the same way, naming the line
#   - the same include listed under Exceptions passes; an exception nothing makes any more fails
#   - a tests/ folder that mirrors no room fails
#   - the unit knows no forge (issue 39): an include of forge/ in unit/ fails, and so does a
#     credential holder (ForgeSession) planted in the context every phase gets, through a forward
#     declaration the include check cannot see; a mention in a comment does not
# Each case runs on a fresh copy of src/, docs/ and tests/ in a temporary folder; the real tree is
# only read. Usage: check_layout_test.sh [SOURCE_DIR]
# shellcheck disable=SC2016  # the backquotes are markdown, written to docs/layout.md as they are
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
check=$root/scripts/check-layout
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# fresh: a new copy of the tree in $work/tree.
fresh() {
  rm -rf "$work/tree"
  mkdir "$work/tree"
  cp -r "$root/src" "$root/docs" "$root/tests" "$work/tree/"
}
# run_check: check-layout on the copy; its status in $rc, its output in $work/out.
run_check() {
  rc=0
  "$check" "$work/tree" >"$work/out" 2>&1 || rc=$?
}
# expect_fail CASE TEXT...: the check failed and said each TEXT.
expect_fail() {
  local name=$1 text before=$fails
  shift
  ((rc != 0)) || fail "$name: check-layout passed"
  for text in "$@"; do
    grep -qF -- "$text" "$work/out" || fail "$name: the output does not say '$text'"
  done
  ((fails == before)) || sed 's/^/    /' "$work/out" >&2
}
# add_exception ROW: a row at the top of the Exceptions table (after its header's separator).
add_exception() {
  local row=$1
  awk -v row="$row" '{ print } h && /^\| ---/ { print row; h = 0 } /^\| arrow \|/ { h = 1 }' \
    "$work/tree/docs/layout.md" >"$work/layout" && mv "$work/layout" "$work/tree/docs/layout.md"
}

# The real tree.
rc=0
"$check" "$root" >"$work/out" 2>&1 || rc=$?
((rc == 0)) || { fail "check-layout fails on the real tree"; sed 's/^/    /' "$work/out" >&2; }

# An upward include: base/ may use nothing, unit/ is near the top.
fresh
printf '%s\n' '// planted by check_layout_test.sh' '#include "base/result.h"' \
  '#include "unit/pipeline.h"' >"$work/tree/src/base/planted.cc"
run_check
expect_fail "planted include" "src/base/planted.cc:3:" "base → unit" '#include "unit/pipeline.h"'

# The same include, listed as a known wrong arrow with the step that removes it: allowed.
add_exception '| `base` → `unit` | step 2 (issue 39) | planted by the test |'
run_check
((rc == 0)) || { fail "a listed exception still fails"; sed 's/^/    /' "$work/out" >&2; }

# An upward link, on a line of its own at the end of base's CMakeLists.txt.
fresh
echo 'target_link_libraries(aw_base PRIVATE aw_unit)' >>"$work/tree/src/base/CMakeLists.txt"
line=$(wc -l <"$work/tree/src/base/CMakeLists.txt")
run_check
expect_fail "planted link" "src/base/CMakeLists.txt:$line:" "base → unit" "aw_unit"

# An exception that nothing makes any more: the table cannot rot.
fresh
add_exception '| `base` → `record` | step 3 (issue 40) | nothing makes this arrow |'
run_check
expect_fail "stale exception" "exception base → record no longer exists" "docs/layout.md:"

# An exception without the step that removes it.
fresh
add_exception '| `base` → `unit` | some day | no step named |'
printf '#include "unit/pipeline.h"\n' >"$work/tree/src/base/planted.cc"
run_check
expect_fail "exception without a step" "exception base → unit names no step"

# A tests/ folder that is no room's and not listed.
fresh
mkdir "$work/tree/tests/nowhere"
run_check
expect_fail "unlisted tests folder" "tests/nowhere/" "mirrors no room"

# A room the table does not know (a new folder of src/ without its row).
fresh
mkdir "$work/tree/src/newroom"
echo '#include "base/result.h"' >"$work/tree/src/newroom/x.cc"
run_check
expect_fail "room without a row" "src/newroom/x.cc" "in no room"

# The unit knows no forge: an include of forge/ from unit/ is an arrow nothing allows any more.
fresh
printf '%s\n' '// planted by check_layout_test.sh' '#include "forge/session.h"' \
  >"$work/tree/src/unit/planted.cc"
run_check
expect_fail "unit includes forge" "src/unit/planted.cc:2:" "unit → forge"

# The pipeline knows the isolation only by its seam (issue 40): an include of a backend
# (isolate/user, isolate/container, isolate/sandbox) from unit/ is an arrow nothing allows any more.
for backend in user/isolator_user.h container/engine.h sandbox/sandbox.h; do
  fresh
  printf '%s\n' '// planted by check_layout_test.sh' "#include \"isolate/$backend\"" \
    >"$work/tree/src/unit/planted.cc"
  run_check
  expect_fail "unit includes isolate/$backend" "src/unit/planted.cc:2:" "unit → isolate/${backend%%/*}"
done

# A forge session planted in PhaseContext (what every phase gets) through a forward declaration,
# which no include makes: the credential holders' rule names both lines.
fresh
steps=$work/tree/src/unit/steps.h
grep -q '^struct PhaseContext {$' "$steps" || fail "no PhaseContext in src/unit/steps.h to plant in"
awk '{ print } /^class Watchdog;$/ { print "struct ForgeSession;" }
     /^struct PhaseContext \{$/ { print "  std::shared_ptr<ForgeSession> forge;" }' "$steps" \
  >"$work/steps.h" && mv "$work/steps.h" "$steps"
decl=$(grep -n '^struct ForgeSession;$' "$steps" | cut -d: -f1)
member=$(grep -n 'std::shared_ptr<ForgeSession> forge;' "$steps" | cut -d: -f1)
run_check
expect_fail "forge session in PhaseContext" "src/unit/steps.h:$decl:" "src/unit/steps.h:$member:" \
  "names ForgeSession, which holds a credential of room forge" "room unit may not use forge"

# The same name in a comment or a string of the unit is no credential.
fresh
printf '%s\n' '// the unit never holds a ForgeSession (docs/layout.md)' \
  'const char* kWhy = "no ForgeSession or GitHub client here";' >"$work/tree/src/unit/planted.cc"
run_check
((rc == 0)) || { fail "a comment naming ForgeSession fails"; sed 's/^/    /' "$work/out" >&2; }

# A credential holder no longer defined in its room: the table cannot rot.
fresh
sed -i 's/^| `GitHub` | `forge` |/| `GitHubGone` | `forge` |/' "$work/tree/docs/layout.md"
run_check
expect_fail "holder gone" "credential holder GitHubGone is not defined in src/forge/"

if ((fails)); then echo "$fails failed" >&2; exit 1; fi
echo "ok: check-layout passes on the tree and fails on each planted arrow and credential holder"
