# Sourced by the image scripts (scripts/test-image*, scripts/awaywork-image, scripts/package-test-image).
#   . "$(dirname "$0")/lib/rootfs.sh"
#   dir=$(rootfs_make_dir "$cache/rootfs-NAME")   # a fresh folder, removed at exit
# An EXIT trap runs under the script's `set -e`: any command in it that fails ends the script with
# that status at once, the rest of the cleanup skipped (an `umount` of a /proc that debootstrap
# never left mounted turned a built image into exit 32). So the cleanup never fails: it unmounts
# only what is mounted and keeps the script's own exit status.

# rootfs_cleanup DIR: unmount DIR/proc if mounted, remove DIR. Never fails.
rootfs_cleanup() {
  local dir=$1
  [ -n "$dir" ] && [ -d "$dir" ] || return 0
  if mountpoint -q "$dir/proc" 2>/dev/null; then
    umount "$dir/proc" 2>/dev/null || umount -l "$dir/proc" 2>/dev/null || true
  fi
  rm -rf "$dir" 2>/dev/null || true
  return 0
}

# rootfs_make_dir PREFIX: mktemp -d PREFIX.XXXXXX, removed by rootfs_cleanup when the script exits.
# Sets the global AW_ROOTFS_DIR (the trap's argument); prints nothing (call it, then use the var).
rootfs_make_dir() {
  AW_ROOTFS_DIR=$(mktemp -d "$1.XXXXXX")
  trap 'rootfs_cleanup "$AW_ROOTFS_DIR"' EXIT
}

# rootfs_debootstrap NAME LOG ARGS...: debootstrap ARGS into the log; on failure print the log's
# tail and the step's name, and fail.
rootfs_debootstrap() {
  local name=$1 log=$2
  shift 2
  if ! debootstrap "$@" >"$log" 2>&1; then
    echo "$name: debootstrap failed; the last lines of $log:" >&2
    tail -n 30 "$log" >&2
    return 1
  fi
}
