#!/usr/bin/env bash
# Run by deb_test.sh as root inside the fresh Debian 12 where the package was installed (no
# network): every file where docs/install.md says, the shared libraries all resolved, then
# `awaywork doctor` and the offline demo as a user of the package runs them.
set -euo pipefail
fail() { echo "FAIL: $*"; exit 1; }

for f in /usr/bin/awaywork /usr/libexec/awaywork/aw_probe_static /usr/libexec/awaywork/aw_bridge_static \
  /usr/libexec/awaywork/aw_mcp_relay_static; do
  [ -x "$f" ] || fail "$f is not installed"
done
! ldd /usr/bin/awaywork | grep 'not found' || fail "a shared library of awaywork is missing (Depends)"
awaywork --version
pages=0
for cmd in $(awaywork --help | awk '/^Subcommands:/{on=1; next} on && NF==0{on=0} on{print $1}'); do
  page=/usr/share/man/man1/awaywork-$cmd.1.gz
  [ -f "$page" ] || fail "no man page for '$cmd' ($page)"
  zcat "$page" >/tmp/page
  grep -q '^\.TH AWAYWORK' /tmp/page || fail "$page is not a man page"
  pages=$((pages + 1))
done
[ -f /usr/share/man/man1/awaywork.1.gz ] || fail "no awaywork(1)"
echo "man pages: awaywork(1) and $pages commands"
for f in /usr/share/bash-completion/completions/awaywork /usr/share/zsh/vendor-completions/_awaywork \
  /usr/share/fish/vendor_completions.d/awaywork.fish /usr/share/doc/awaywork/copyright \
  /usr/share/doc/awaywork/changelog.Debian.gz /usr/share/doc/awaywork/config.md \
  /usr/share/doc/awaywork/install.md /usr/share/doc/awaywork/examples/config.yml; do
  [ -f "$f" ] || fail "$f is not installed"
done
unit=/usr/lib/systemd/user/awaywork-watch.service
grep -qx 'ExecStart=/usr/bin/awaywork watch' "$unit" || fail "$unit does not run /usr/bin/awaywork watch"
grep -qx 'Delegate=yes' "$unit" || fail "$unit lacks Delegate=yes"
grep -q 'file:///usr/share/doc/awaywork/watch.md' "$unit" || fail "$unit points at another manual"
! grep -qE '^(After|Wants)=.*network-online' "$unit" || fail "$unit wants network-online.target, which a user manager has not got"
offered=$(bash -c '. /usr/share/bash-completion/completions/awaywork; COMP_WORDS=(awaywork ""); COMP_CWORD=1;
  _awaywork; printf "%s\n" "${COMPREPLY[@]}"')
grep -qx doctor <<<"$offered" || fail "bash completion does not offer doctor: $offered"

# A machine's root has writable cgroup hierarchies; Docker hands a container read-only ones.
# Mount the container's own (cgroupns private) memory, pids and cpu hierarchies writable, where
# the sandbox's limits go for root on a cgroup v1 kernel; a cgroup v2 kernel needs nothing here.
if ! [ -s /sys/fs/cgroup/cgroup.controllers ]; then
  mount -t tmpfs -o mode=755 none /sys/fs/cgroup
  for c in memory pids cpu; do
    mkdir -p "/sys/fs/cgroup/$c"
    mount -t cgroup -o "$c" none "/sys/fs/cgroup/$c"
  done
fi

echo "== /usr/share/doc/awaywork/examples/demo.sh"
/usr/share/doc/awaywork/examples/demo.sh | tee /tmp/demo.out
grep -q '^state   done' /tmp/demo.out || fail "the demo's unit did not end done"
grep -q 'sandboxed: network none' /tmp/demo.out || fail "the demo's unit was not sandboxed"
config=$(ls /tmp/awaywork-demo.*/config.yml)
echo "== awaywork --config $config doctor"
awaywork --config "$config" doctor || fail "awaywork doctor does not pass"
