#!/usr/bin/env bash
# The hardening cmake/hardening.cmake asks for is in the binaries built (issue 31, item 3), as
# checksec would report it, from readelf alone:
#   awaywork: PIE (ELF type DYN), a GNU_RELRO segment and BIND_NOW (full RELRO), a stack
#     protector (__stack_chk_fail imported), fortified functions (__*_chk imported) when
#     FORTIFY_LEVEL > 0, and with CET=1 (-fcf-protection) endbr64 at its functions' entries;
#   the static helpers (static-pie): DYN without an interpreter, GNU_RELRO, BIND_NOW. Not their
#     stack protector: libc.a brings __stack_chk_fail into every static binary, so its presence
#     proves nothing there.
# CET is looked for as endbr64 instructions, not as the "x86 feature: IBT, SHSTK" property note:
# the linker keeps that note only when every input has it, and Debian 12's crt1.o and crti.o do
# not, so no binary linked there carries it (printed when present, not required).
# Usage: hardening_test.sh AWAYWORK FORTIFY_LEVEL CET [STATIC_HELPER]...
set -euo pipefail
bin=$1 fortify=$2 cet=$3
shift 3
command -v readelf >/dev/null || { echo "SKIP: readelf (binutils) is not installed"; exit 77; }
failed=0
fail() { echo "FAIL: $*"; failed=1; }
ok() { echo "ok: $*"; }

# readelf's output is read whole before grep: `readelf | grep -q` fails under pipefail when grep
# stops reading early (SIGPIPE).
elf_type() { sed -n 's/^ *Type: *\([A-Z]*\).*/\1/p' <<<"$(readelf -hW "$1")"; }
has_relro() { grep -q '^ *GNU_RELRO ' <<<"$(readelf -lW "$1")"; }
has_interp() { grep -q '^ *INTERP ' <<<"$(readelf -lW "$1")"; }
# DT_FLAGS BIND_NOW or DT_FLAGS_1 NOW: either makes ld.so resolve everything before RELRO is
# made read-only.
has_bind_now() { grep -Eq '\((FLAGS|FLAGS_1)\).*\b(BIND_NOW|NOW)\b' <<<"$(readelf -dW "$1")"; }

check_relro() {
  has_relro "$1" && ok "$1: GNU_RELRO segment" || fail "$1: no GNU_RELRO segment (-Wl,-z,relro)"
  has_bind_now "$1" && ok "$1: BIND_NOW" || fail "$1: no BIND_NOW (-Wl,-z,now): partial RELRO"
}

[ "$(elf_type "$bin")" = DYN ] && ok "$bin: PIE (DYN)" ||
  fail "$bin: ELF type $(elf_type "$bin"), not DYN: not a PIE (-fPIE -pie)"
check_relro "$bin"
dynsyms=$(readelf --dyn-syms -W "$bin")
grep -q ' __stack_chk_fail\b' <<<"$dynsyms" && ok "$bin: stack protector (__stack_chk_fail)" ||
  fail "$bin: no __stack_chk_fail: built without -fstack-protector-strong"
if [ "$fortify" -gt 0 ]; then
  chk=$(grep -oE ' __[a-z0-9_]+_chk\b' <<<"$dynsyms" | grep -v __stack_chk_fail | sort -u |
    tr -d ' ' | tr '\n' ' ' || true)
  [ -n "$chk" ] && ok "$bin: fortified functions: $chk" ||
    fail "$bin: no __*_chk function imported: built without -D_FORTIFY_SOURCE"
else
  echo "(no _FORTIFY_SOURCE expected in this tree: -O0 or sanitized)"
fi
if [ "$cet" = 1 ]; then
  # endbr64 is f3 0f 1e fa. A binary of this size built without -fcf-protection holds a few (from
  # objects of the toolchain); built with it, one per function that can be called indirectly.
  n=$(LC_ALL=C grep -obUaP '\xf3\x0f\x1e\xfa' "$bin" | wc -l)
  [ "$n" -ge 1000 ] && ok "$bin: $n endbr64 (-fcf-protection)" ||
    fail "$bin: $n endbr64 instructions: built without -fcf-protection"
  grep -i 'x86 feature' <<<"$(readelf -nW "$bin")" || echo "(no IBT/SHSTK property note: see above)"
fi

for helper in "$@"; do
  [ "$(elf_type "$helper")" = DYN ] && ! has_interp "$helper" && ok "$helper: static-pie" ||
    fail "$helper: ELF type $(elf_type "$helper")$(has_interp "$helper" && echo ', dynamic'): not static-pie"
  check_relro "$helper"
done
[ "$failed" -eq 0 ] || exit 1
echo "hardening_test: passed"
