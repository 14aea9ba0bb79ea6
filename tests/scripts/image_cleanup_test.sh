#!/usr/bin/env bash
# The image scripts' cleanup paths, run for real under their own `set -euo pipefail` with a stand-in
# debootstrap and container client on PATH (the real ones take minutes and a mirror):
#   ok             debootstrap succeeds, nothing mounted: exit 0, "built", the tarball kept, the
#                  scratch root filesystem removed (an EXIT trap's failing `umount` made this exit 32)
#   fail           debootstrap fails: exit 1, the log's tail and the script's name on stderr, no
#                  scratch folder left
#   fail-mounted   (root) debootstrap fails with the chroot's /proc still mounted: unmounted, removed
# Usage: image_cleanup_test.sh CASE SCRIPT (SCRIPT: a name under scripts/). Exit 77 skips (not root
# for fail-mounted, outside CI).
set -euo pipefail
case_=$1 script=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
if [ "$case_" = fail-mounted ] && [ "$(id -u)" -ne 0 ]; then
  [ "${CI:-}" = true ] && { echo "FAIL: fail-mounted needs root and CI=true" >&2; exit 1; }
  echo "SKIP: fail-mounted needs root"; exit 77
fi

work=$(mktemp -d)
cleanup() { grep -q " $work/" /proc/mounts && awk -v w="$work/" 'index($2, w) == 1 {print $2}' /proc/mounts | xargs -r umount -l; rm -rf "$work"; }
trap cleanup EXIT
mkdir -p "$work/bin" "$work/cache"

cat >"$work/bin/debootstrap" <<'STUB'
#!/bin/sh
# Stand-in: the target folder is the argument before the last (SUITE TARGET MIRROR).
for a; do prev=$target; target=$a; done
dir=$prev
case "$FAKE_DEBOOTSTRAP" in
  ok)
    mkdir -p "$dir/etc/systemd/system" "$dir/etc/sudoers.d" "$dir/etc/apt" "$dir/proc" \
      "$dir/var/cache/apt/archives" "$dir/var/lib/apt/lists" "$dir/usr/share/doc"
    echo stand-in >"$dir/etc/debian_version" ;;
  fail)
    echo "E: Couldn't download packages: stand-in failure"; exit 1 ;;
  fail-mounted)
    mkdir -p "$dir/proc" && mount -t tmpfs stand-in-proc "$dir/proc" || exit 2
    echo "E: Couldn't download packages: stand-in failure"; exit 1 ;;
esac
STUB
cat >"$work/bin/docker" <<'STUB'
#!/bin/sh
# Stand-in client: no image is present; import and build succeed.
echo "$*" >>"$AW_FAKE_DOCKER_LOG"
case "$1 $2" in
  "image inspect") case "$*" in *"-f "*) echo 1; exit 0 ;; *) exit 1 ;; esac ;;
esac
exit 0
STUB
chmod +x "$work/bin/debootstrap" "$work/bin/docker"
cp /bin/true "$work/awaywork"

export PATH="$work/bin:$PATH" AW_IMAGE_CACHE="$work/cache" AW_DOCKER="$work/bin/docker"
export AW_FAKE_DOCKER_LOG="$work/docker.log" AWAYWORK_BIN="$work/awaywork" FAKE_DEBOOTSTRAP=$case_
set +e
"$root/scripts/$script" >"$work/out" 2>"$work/err"
rc=$?
set -e

fail() {
  echo "FAIL ($script, $case_): $*" >&2
  echo "--- stdout"; cat "$work/out"; echo "--- stderr"; cat "$work/err"; exit 1
}
left=$(find "$work/cache" -maxdepth 1 -name 'rootfs*' | head -n 1)
[ -z "$left" ] || fail "the scratch root filesystem was left behind: $left"
! grep -q " $work/cache/" /proc/mounts || fail "a mount under the cache was left: $(grep " $work/cache/" /proc/mounts)"
case "$case_" in
  ok)
    [ "$rc" -eq 0 ] || fail "exit $rc, want 0"
    grep -q "built" "$work/out" || fail "no 'built' line"
    ls "$work/cache"/*.tar >/dev/null 2>&1 || fail "no tarball kept in the cache"
    grep -q '^import ' "$work/docker.log" || fail "the tarball was not imported" ;;
  fail | fail-mounted)
    [ "$rc" -ne 0 ] || fail "exit 0 after debootstrap failed"
    grep -q "stand-in failure" "$work/err" || fail "the debootstrap log's tail is not on stderr"
    grep -q "^$script: debootstrap failed" "$work/err" || fail "stderr does not name the script"
    ! ls "$work/cache"/*.tar >/dev/null 2>&1 || fail "a tarball was kept after a failure" ;;
esac
echo "PASS ($script, $case_): exit $rc"
