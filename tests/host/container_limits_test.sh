#!/usr/bin/env bash
# Root inside a Docker container on a cgroup v1 host (issue 31, item 14). Docker, in the host's
# cgroup namespace (its default on cgroup v1), mounts the container's own group of each hierarchy
# at /sys/fs/cgroup/<c>, read-only, while /proc/self/cgroup names that group from the hierarchy's
# root (4:memory:/docker/<id>). awaywork used to look for /sys/fs/cgroup/memory/docker/<id>, and
# doctor trusted euid 0: doctor said ✔ and every sandboxed unit failed. Now doctor must fail
# exactly where a unit would, and pass where it runs. This build's binary is bind-mounted into a
# container of awaywork-systemd:bookworm (which has the libraries the build links; systemd is not
# started), run as root with what the sandbox itself needs (user namespaces, mounts: CAP_SYS_ADMIN,
# seccomp, AppArmor and the masked /proc paths unconfined, as deb_test.sh runs the demo).
# Usage: container_limits_test.sh CASE AWAYWORK_BINARY
#   read_only_refused  the mounts as Docker hands them: doctor ✖ names the read-only folder where a
#                      unit's group would go, and `sandbox: required` refuses the unit, same reason
#   writable_holds     the container remounts memory, pids and cpu read-write (CAP_SYS_ADMIN):
#                      doctor all ✔, its limits line names /sys/fs/cgroup/memory, and the unit
#                      runs sandboxed, with the limits, to done
# Needs root, Docker and a cgroup v1 host: exit 77 (skip) without root or Docker, except under
# CI=true (a failure); on a host without cgroup v1 memory there is no such container to test
# (exit 77 always).
set -euo pipefail
case_name=$1
bin_dir=$(dirname "$(readlink -f "$2")")
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
image=awaywork-systemd:bookworm
. "$here/testlib.sh"
need_root_and_engine "$src"
if ! [ -f /sys/fs/cgroup/memory/memory.limit_in_bytes ]; then
  echo "SKIP: no cgroup v1 memory hierarchy on this host (the case is a cgroup v1 host's)"
  exit 77
fi
# Built before ctest by scripts/test (scripts/test-image-systemd): no test builds an image.
docker image inspect "$image" >/dev/null 2>&1 || skip "no image $image: run scripts/test-image-systemd"

name=aw-cglimits-$case_name-$$
trap 'docker rm -f "$name" >/dev/null 2>&1 || true' EXIT
docker run -d --name "$name" --cgroupns=host --cap-add SYS_ADMIN \
  --security-opt seccomp=unconfined --security-opt apparmor=unconfined \
  --security-opt systempaths=unconfined --network none \
  -v "$bin_dir:/opt/awaywork:ro" "$image" sleep 600 >/dev/null
in_box() { docker exec -i "$name" bash -s; }
libs=$(in_box <<<'ldd /opt/awaywork/awaywork | grep "not found" || true')
[ -z "$libs" ] || fail "the image lacks libraries this build links (scripts/test-image-systemd): $libs"

# The shape under test: the memory mount shows our own group, not the hierarchy's root.
shape=$(in_box <<'SH'
group=$(grep -E '^[0-9]+:([^:]*,)?memory(,[^:]*)?:' /proc/self/cgroup | cut -d: -f3)
root=$(awk '$5 == "/sys/fs/cgroup/memory" { print $4 }' /proc/self/mountinfo | tail -1)
echo "group=$group root=$root"
SH
)
echo "$shape"
grep -qE '^group=(/[^ ]+) root=\1$' <<<"$shape" && ! grep -q '^group=/ ' <<<"$shape" ||
  fail "not the shape under test (the memory mount is not the container's own group): $shape"

# A repository, a stand-in agent that edits it, a config with the default sandbox (required,
# limits on) under isolation none.
in_box <<'SH'
set -e
mkdir -p /w/agents && cd /w
git init -q -b main src
cd src && echo a >a.txt && git add a.txt && git -c user.name=t -c user.email=t@t commit -qm init
printf '#!/bin/sh\necho b > a.txt\n' >/w/agents/agent && chmod 755 /w/agents/agent
cat >/w/config.yml <<YML
state_dir: /w/state
isolation: none
agent: a
agents:
  a:
    command: [/w/agents/agent]
repos:
  src:
    path: /w/src
YML
SH

run_doctor() {
  set +e
  doctor=$(in_box <<<'/opt/awaywork/awaywork --config /w/config.yml doctor 2>&1')
  doctor_rc=$?
  set -e
  echo "== doctor (exit $doctor_rc)"
  echo "$doctor"
}
run_unit() {
  set +e
  unit=$(in_box <<<'/opt/awaywork/awaywork --config /w/config.yml run --repo src --prompt edit --json 2>&1')
  unit_rc=$?
  set -e
  echo "== run (exit $unit_rc)"
  echo "$unit" | tail -60
}
limits_line() { grep '^✔ where containment and limits come from' <<<"$doctor" || true; }

case $case_name in
  read_only_refused)
    run_doctor
    [ "$doctor_rc" -ne 0 ] || fail "doctor passed where every sandboxed unit fails"
    grep -q '^✖ sandbox: cgroup limits (memory, pids, cpu): mkdir /sys/fs/cgroup/memory/awaywork-sandbox-.*Read-only file system' <<<"$doctor" ||
      fail "doctor does not name the read-only folder where a unit's group would go"
    limits_line | grep -q "no cgroup of this owner's can hold limits (.*Read-only file system" ||
      fail "doctor's limits line does not say that no cgroup can hold the limits: $(limits_line)"
    run_unit
    [ "$unit_rc" -ne 0 ] || fail "the unit went ahead (sandbox: required, no cgroup for its limits)"
    grep -q 'missing cgroup limits (memory, pids, cpu): mkdir /sys/fs/cgroup/memory/awaywork-sandbox-.*Read-only file system' <<<"$unit" ||
      fail "the unit was not refused for the read-only cgroup folder doctor named"
    ! grep -q "/sys/fs/cgroup/memory/docker/" <<<"$doctor$unit" ||
      fail "a path below the mount was taken for the container's group"
    ;;
  writable_holds)
    in_box <<<'for c in memory pids cpu; do mount -o remount,rw,bind /sys/fs/cgroup/$c; done' ||
      fail "the container could not remount its cgroup hierarchies read-write"
    run_doctor
    [ "$doctor_rc" -eq 0 ] && grep -q '^all [0-9]* checks pass' <<<"$doctor" ||
      fail "doctor does not pass where the unit's limits can be set"
    limits_line | grep -qF "limits from cgroup v1 groups (memory, pids, cpu) below awaywork's own (/sys/fs/cgroup/memory)" ||
      fail "doctor's limits line does not name the container's own memory group: $(limits_line)"
    run_unit
    [ "$unit_rc" -eq 0 ] || fail "the unit failed (exit $unit_rc)"
    grep -q '"sandbox": "sandboxed' <<<"$unit" || fail "the unit did not run sandboxed"
    ! grep -q 'failed_to_start' <<<"$unit" || fail "a phase failed to start"
    grep -q '"state": "done"' <<<"$unit" || fail "the unit did not end done"
    grep -qF "limits from cgroup v1 groups (memory, pids, cpu) below awaywork's own (/sys/fs/cgroup/memory)" <<<"$unit" ||
      fail "the unit's note does not say where its limits came from"
    # Its groups were made below the container's own and removed after the unit.
    left=$(in_box <<<'ls -d /sys/fs/cgroup/{memory,pids,cpu}/awaywork-sandbox-* 2>/dev/null || true')
    [ -z "$left" ] || fail "the unit's cgroups were left behind: $left"
    ;;
  *) echo "unknown case $case_name" >&2; exit 2 ;;
esac
echo "PASS $case_name"
