#!/usr/bin/env bash
# scripts/check-doc-links (issue 40, item 3): every link of README.md, docs/*.md and
# bench/README.md resolves.
#   - it passes on the real tree
#   - a link to a file that does not exist fails, naming file:line and the path
#   - a link to a heading that does not exist fails, in the same file and in another manual
#   - a link that leaves the repository fails (a clone has nothing beside it)
#   - links in code (fenced blocks, inline spans) and links with a scheme are not followed; a
#     heading's GitHub id (backquotes and punctuation dropped, a repeat numbered) is found
# Each case runs on a fresh copy of the manuals in a temporary folder; the real tree is only read. Usage: doc_links_test.sh [SOURCE_DIR]
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
check=$root/scripts/check-doc-links
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# fresh: a new copy of the manuals (README.md, docs/, bench/) in $work/tree, and a link to each
# other top-level entry of the source tree, which the manuals may point at and no case changes.
fresh() {
  rm -rf "$work/tree"
  mkdir "$work/tree"
  cp -r "$root/README.md" "$root/docs" "$root/bench" "$work/tree/"
  local entry
  for entry in "$root"/* "$root"/.[!.]*; do
    [ -e "$entry" ] && ! [ -e "$work/tree/${entry##*/}" ] && ln -s "$entry" "$work/tree/"
  done
  return 0
}
# run_check: check-doc-links on the copy; its status in $rc, its output in $work/out.
run_check() {
  rc=0
  "$check" "$work/tree" >"$work/out" 2>&1 || rc=$?
}
# expect_fail CASE TEXT...: the check failed and said each TEXT.
expect_fail() {
  local name=$1 text before=$fails
  shift
  ((rc != 0)) || fail "$name: check-doc-links passed"
  for text in "$@"; do
    grep -qF -- "$text" "$work/out" || fail "$name: the output does not say '$text'"
  done
  ((fails == before)) || sed 's/^/    /' "$work/out" >&2
}
expect_pass() {
  ((rc == 0)) || { fail "$1: check-doc-links failed"; sed 's/^/    /' "$work/out" >&2; }
}

# The real tree.
rc=0
"$check" "$root" >"$work/out" 2>&1 || rc=$?
expect_pass "the real tree"

# The copy passes as the tree does (the cases below change only what they plant).
fresh
run_check
expect_pass "the copy"

# A link to a manual that is not there.
fresh
echo 'See [the old manual](docs/gone.md).' >>"$work/tree/README.md"
line=$(wc -l <"$work/tree/README.md")
run_check
expect_fail "missing file" "README.md:$line:" "no such file: docs/gone.md"

# A manual that moved: every link to it breaks.
fresh
rm "$work/tree/docs/units.md"
run_check
expect_fail "moved manual" "README.md:" "no such file: docs/units.md"

# A heading that is not there, in another manual and in the same file.
fresh
echo 'See [limits](docs/first-run.md#limits-for-nobody).' >>"$work/tree/README.md"
echo 'See [above](#no-such-heading).' >>"$work/tree/docs/units.md"
line=$(wc -l <"$work/tree/docs/units.md")
run_check
expect_fail "missing anchor" "no heading #limits-for-nobody in docs/first-run.md" \
  "docs/units.md:$line:" "no heading #no-such-heading in docs/units.md"

# A renamed heading breaks the links to it (docs/config.md links to this one).
fresh
sed -i 's/^## Limits for root in a container$/## Limits for root, in a container engine/' \
  "$work/tree/docs/first-run.md"
run_check
expect_fail "renamed heading" "docs/config.md:" "no heading #limits-for-root-in-a-container"

# A link out of the repository, even to a file that exists there.
fresh
mkdir -p "$work/shared"
touch "$work/shared/DESIGN.md"
echo 'The design: [DESIGN.md](../shared/DESIGN.md).' >>"$work/tree/README.md"
run_check
expect_fail "outside" "(../shared/DESIGN.md) leaves the repository"

# What is not a link to follow, and the ids GitHub gives headings.
fresh
cat >>"$work/tree/docs/units.md" <<'EOF'

## `awaywork run --issue NAME#N`, again

## Notes

## Notes

```sh
[not a link](gone-in-a-fence.md)
```

`[not a link](gone-in-a-span.md)`, [a page](https://example.com/gone.md), [mail](mailto:a@b.example)
[this](#awaywork-run---issue-namen-again), [the second](#notes-1), [with a title](units.md#notes "t")
[label]: ../README.md
EOF
run_check
expect_pass "code, schemes and GitHub's ids"

# A reference definition is a link too.
fresh
echo '[label]: docs/gone.md' >>"$work/tree/README.md"
run_check
expect_fail "reference definition" "no such file: docs/gone.md"

if ((fails)); then
  echo "doc_links_test: $fails failure(s)" >&2
  exit 1
fi
echo "doc_links_test: ok"
