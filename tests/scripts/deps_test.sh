#!/usr/bin/env bash
# scripts/deps's lists by purpose (issue 31, item 9): what the action and scripts/demo install.
#   - build and run (and build,run) hold none of the test suite's own packages (QEMU, a kernel,
#     Chromium, lintian, the engines...), and --for test (the default) holds all of them
#   - a line without a known purpose is refused, naming its file and line
#   - every build and run name has an apt candidate here (Debian 12), when apt has lists
#   - every shared library the built awaywork links comes from a package of --for run (the
#     action's cached binary runs on a runner that installed only that)
#   - action.yml and scripts/demo ask for a purpose, never the whole test set
# Usage: deps_test.sh AWAYWORK_BINARY. Installs nothing.
set -euo pipefail
binary=${1:-}
root=$(cd "$(dirname "$0")/../.." && pwd)
deps=$root/scripts/deps
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# --print: one entry a line; `a|b` entries are alternatives (split for membership checks).
list() { "$deps" "$@" --print; }
names() { tr '|' '\n' | sort -u; }

list --for build >"$work/build"
list --for run >"$work/run"
list --for build,run >"$work/build,run"
list --for build --for run >"$work/build+run"
list --for test >"$work/test"
list >"$work/default"
for f in build run test; do
  [ -s "$work/$f" ] || fail "--for $f --print listed nothing"
done

# The test suite's own packages: never on a machine that only builds or runs awaywork.
test_only=(chromium qemu-system-x86 linux-image-amd64 busybox-static cpio lintian gnome-keyring
  dbus docker.io podman debootstrap golang-github-containers-common clang libclang-rt-14-dev
  clang-format libcmark-gfm-dev fish zsh man-db cron gh bubblewrap python3 python3-yaml curl bc)
for f in build run build,run; do
  names <"$work/$f" >"$work/$f.names"
  for p in "${test_only[@]}"; do
    grep -qxF -- "$p" "$work/$f.names" && fail "--for $f installs the test-only package $p"
  done
done

cmp -s "$work/build,run" "$work/build+run" || fail "--for build,run differs from --for build --for run"
sort -u "$work/build" "$work/run" >"$work/union"
cmp -s "$work/union" "$work/build,run" || fail "--for build,run is not build and run together"
extra=$(comm -23 "$work/union" "$work/test")
[ -z "$extra" ] || fail "--for test lacks what build or run installs: $extra"
cmp -s "$work/test" "$work/default" || fail "the default is not --for test"
for p in "${test_only[@]}"; do
  names <"$work/test" | grep -qxF -- "$p" || fail "--for test lacks $p"
done

# A line with an unknown purpose, or none, is refused with its place.
mkdir -p "$work/copy/deps.d"
cp "$deps" "$work/copy/deps"
printf '# a comment\nbuild cmake\nbild libfoo-dev\n' >"$work/copy/deps.d/bad.txt"
if out=$("$work/copy/deps" --print 2>&1); then
  fail "an unknown purpose was accepted: $out"
else
  grep -qF "deps.d/bad.txt:3: unknown purpose 'bild'" <<<"$out" || fail "unknown purpose: said '$out'"
fi
printf 'libfoo-dev\n' >"$work/copy/deps.d/bad.txt"
if out=$("$work/copy/deps" --print 2>&1); then
  fail "a line without a purpose was accepted: $out"
else
  grep -qF "deps.d/bad.txt:1:" <<<"$out" || fail "no purpose: said '$out'"
fi
if out=$("$deps" --for tests --print 2>&1); then fail "--for tests was accepted"; fi

# Debian's side: each build and run entry has a candidate here (one of its alternatives).
# (Read whole first: grep -q on the pipe would end apt-cache early, a SIGPIPE under pipefail.)
candidate() { local p; p=$(apt-cache policy "$1" 2>/dev/null) && grep -q 'Candidate: [^(]' <<<"$p"; }
if command -v apt-cache >/dev/null && candidate build-essential; then
  while read -r entry; do
    ok=0
    IFS='|' read -ra alts <<<"$entry"
    for a in "${alts[@]}"; do candidate "$a" && { ok=1; break; }; done
    ((ok)) || fail "apt has no candidate for '$entry' (build or run)"
  done <"$work/build,run"
else
  echo "note: apt has no package lists here; the candidates were not checked"
fi

# Every library the binary links directly is installed by --for run.
if [ -n "$binary" ] && [ -x "$binary" ] && command -v objdump >/dev/null && command -v dpkg >/dev/null; then
  names <"$work/run" >"$work/run.names"
  ldd "$binary" >"$work/ldd" || fail "ldd $binary failed"
  for so in $(objdump -p "$binary" | awk '$1 == "NEEDED" {print $2}'); do
    case "$so" in lib[almt]san.so* | libubsan.so*) continue ;; esac  # an AW_SANITIZE build's own
    # The dynamic loader itself (named directly by a -z now, fortified build): libc6's, which is
    # essential on every Debian and Ubuntu; ldd shows it by path, without "=>".
    case "$so" in ld-linux*.so.*) continue ;; esac
    path=$(awk -v so="$so" '$1 == so && $2 == "=>" {print $3}' "$work/ldd")
    [ -n "$path" ] || { fail "$so does not resolve"; continue; }
    owner=
    for p in "$path" "$(readlink -f "$path")" "/usr$path" "${path#/usr}"; do
      owner=$(dpkg -S "$p" 2>/dev/null | head -n1 | cut -d: -f1) && [ -n "$owner" ] && break
    done
    if [ -z "$owner" ]; then
      fail "no package owns $path ($so)"
    elif ! grep -qxF -- "$owner" "$work/run.names"; then
      fail "awaywork links $so from $owner, which --for run does not install (scripts/deps.d)"
    fi
  done
elif [ "${CI:-}" = true ]; then
  fail "no built awaywork at '$binary' to check the libraries against (CI=true)"
else
  echo "note: no built awaywork at '$binary': its libraries were not checked"
fi

# The action and the demo ask for what they need, not the test suite's packages.
calls() { grep -E 'scripts/deps"?( |$)' "$1" | grep -vE '^[[:space:]]*#' | tr -d '"' || true; }
n=0
while IFS= read -r line; do
  n=$((n + 1))
  case "$line" in
    *"scripts/deps --for "*test*) fail "action.yml installs the test set: $line" ;;
    *"scripts/deps --for "*) ;;
    *) fail "action.yml runs scripts/deps without --for: $line" ;;
  esac
done < <(calls "$root/action.yml")
((n)) || fail "action.yml no longer calls scripts/deps (update this test)"
calls "$root/scripts/demo" | grep -qF 'scripts/deps --for build,run' ||
  fail "scripts/demo does not install --for build,run"

if ((fails)); then echo "$fails failed" >&2; exit 1; fi
echo "ok: build $(wc -l <"$work/build"), run $(wc -l <"$work/run"), test $(wc -l <"$work/test") entries"
