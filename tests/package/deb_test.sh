#!/usr/bin/env bash
# The Debian package end to end: scripts/package-deb builds it from the Release build; lintian
# reports no error and no hardening-* tag; unpacked anywhere, the binary finds its static helpers
# in ../libexec/awaywork and never in the tree it was built in; installed by apt on a fresh
# Debian 12 (debootstrap minbase, scripts/package-test-image) with nothing but the package's
# declared dependencies, it puts every file where docs/install.md says, `awaywork doctor` passes
# and the offline demo (examples/demo.sh, the scripted agent, default isolation: the OS sandbox,
# required) publishes its branch, with no network.
#
# Needs root, the container engine (scripts/engine-up), lintian, dpkg-dev and debootstrap; without
# them it skips (77), except under CI=true where that is a failure. Slow parts are cached by the
# package's sha256 (the .deb is reproducible for one commit): lintian's report in
# /var/cache/awaywork/lintian/, the installed container as image awaywork-deb-installed:SHA.
# AW_DEB_TEST_OFFLINE=1 installs without network in the container (see install_offline).
# Usage: deb_test.sh SOURCE_DIR
set -euo pipefail
src=$(cd "$1" && pwd)
skip() {
  if [ "${CI:-}" = true ]; then echo "FAIL (CI=true, no skipping): $*"; exit 1; fi
  echo "SKIP: $*"
  exit 77
}
fail() { echo "FAIL: $*"; exit 1; }

[ "$(id -u)" -eq 0 ] || skip "needs root (dpkg, the container engine)"
for p in cpack dpkg-shlibdeps lintian debootstrap docker apt-get; do
  command -v "$p" >/dev/null || skip "$p is not installed (scripts/deps installs it)"
done
"$src/scripts/engine-up" >/dev/null || skip "the container engine does not answer (scripts/engine-up)"

work=$(mktemp -d /tmp/awaywork-deb-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
t0=$(date +%s)
step() { echo "== [$(($(date +%s) - t0)) s] $*"; }

step "scripts/package-deb"
deb=$("$src/scripts/package-deb" 2>"$work/package.log") || { cat "$work/package.log"; fail "scripts/package-deb"; }
sha=$(sha256sum "$deb" | cut -c1-16)
echo "$deb: $(du -k "$deb" | cut -f1) KiB, sha256 $sha..."
dpkg-deb -f "$deb" Depends

step "lintian"
cache=/var/cache/awaywork/lintian
mkdir -p "$cache"
if ! [ -f "$cache/$sha-pedantic-info.txt" ]; then
  # --pedantic --display-info: every tag but the experimental ones. lintian warns when run as root; that line
  # is not a tag.
  lintian --pedantic --display-info "$deb" 2>&1 | grep -v 'running with root privileges' >"$cache/$sha-pedantic-info.tmp" || true
  mv "$cache/$sha-pedantic-info.tmp" "$cache/$sha-pedantic-info.txt"
fi
grep -E '^[EWIP]:' "$cache/$sha-pedantic-info.txt" || echo "(no tags)"
! grep -q '^E:' "$cache/$sha-pedantic-info.txt" || fail "lintian reports errors (above)"
# Any level: a hardening-* tag (hardening-no-bindnow, hardening-no-fortify-functions, ...) means a
# flag of cmake/hardening.cmake or dpkg-buildflags did not reach a binary (issue 31, item 3).
! grep -Eq '^[EWIPX]: [^ ]+: hardening-' "$cache/$sha-pedantic-info.txt" ||
  fail "lintian reports a hardening tag (above): see cmake/hardening.cmake"

# doctor's line about the egress bridge, which it looks for with the binary's own search.
doctor_bridge() { "$work/root/usr/bin/awaywork" --config "$work/container.yml" doctor 2>&1 | grep aw_bridge_static || true; }
unpacked_check() {
  step "unpacked: the helpers found beside the binary, never in the build tree"
  dpkg-deb -x "$deb" "$work/root"
  printf 'isolation: container\nsandbox: {network: allowlist, allow: [example.org]}\n' \
    >"$work/container.yml"
  got=$(doctor_bridge)
  [[ $got == *"egress bridge for network allowlist: $work/root/usr/libexec/awaywork/aw_bridge_static"* ]] ||
    fail "doctor did not find the bridge in usr/libexec/awaywork: '$got'"
  rm "$work/root/usr/libexec/awaywork/aw_bridge_static"
  got=$(doctor_bridge)
  [[ $got == *"aw_bridge_static not found"* ]] || fail "a missing helper was not reported: '$got'"
  [[ $got != *"$src"* ]] || fail "the packaged binary looks in its build tree: '$got'"
}

image=awaywork-deb-installed:$sha${AW_DEB_TEST_OFFLINE:+-offline}
mounts=(-v "$deb:/tmp/awaywork.deb:ro" -v "$src/tests/package:/tests:ro")
# Without network in the container: the declared dependencies' closure, fetched on the host
# (apt-get download, from this machine's apt sources) and installed with dpkg, awaywork last.
install_offline() {
  mkdir -p "$work/debs"
  local names
  names=$(dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed 's/(.*//; s/|.*//; s/ //g')
  # shellcheck disable=SC2086
  (cd "$work/debs" && apt-get download -q $(apt-cache depends --recurse --no-recommends --no-suggests \
    --no-conflicts --no-breaks --no-replaces --no-enhances $names | grep -v '^ ' | grep -v '^<' | sort -u) \
    >"$work/download.log" 2>&1) || { cat "$work/download.log"; fail "apt-get download"; }
  echo "offline: $(ls "$work/debs" | wc -l) packages from the host's apt sources"
  docker run --name "aw-deb-$$" --network none "${mounts[@]}" -v "$work/debs:/debs:ro" \
    awaywork-plain:bookworm sh -c 'dpkg -i /debs/*.deb >/tmp/dpkg.log 2>&1 || { cat /tmp/dpkg.log; exit 1; };
      dpkg -i /tmp/awaywork.deb'
}
install_online() {
  docker run --name "aw-deb-$$" "${mounts[@]}" awaywork-plain:bookworm sh -c '
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/tmp/update.log 2>&1 || { cat /tmp/update.log; exit 75; }
    apt-get install -y -q --no-install-recommends /tmp/awaywork.deb >/tmp/install.log 2>&1 ||
      { cat /tmp/install.log; exit 1; }
    grep -E "^(The following NEW|  )" /tmp/install.log | head -n 20'
}
if ! docker image inspect "$image" >/dev/null 2>&1; then
  unpacked_check
  # Built before ctest by scripts/test (scripts/package-test-image): no test builds an image.
  docker image inspect awaywork-plain:bookworm >/dev/null 2>&1 ||
    skip "no image awaywork-plain:bookworm: run scripts/package-test-image"
  docker rm -f "aw-deb-$$" >/dev/null 2>&1 || true
  status=0
  if [ "${AW_DEB_TEST_OFFLINE:-}" = 1 ]; then
    step "install on fresh Debian 12, offline"
    install_offline || status=$?
  else
    step "install on fresh Debian 12: apt-get install ./awaywork.deb"
    install_online || status=$?
    if [ "$status" -eq 75 ]; then
      echo "the container cannot reach the apt sources: installing offline"
      docker rm -f "aw-deb-$$" >/dev/null
      status=0
      install_offline || status=$?
    fi
  fi
  if [ "$status" -eq 0 ]; then
    docker commit "aw-deb-$$" "$image" >/dev/null
    # One cached install: the images of earlier packages go.
    docker images --format '{{.Repository}}:{{.Tag}}' awaywork-deb-installed | grep -vx "$image" |
      xargs -r docker rmi >/dev/null || true
  fi
  docker rm -f "aw-deb-$$" >/dev/null
  [ "$status" -eq 0 ] || fail "installing the package in a fresh Debian 12 (exit $status)"
else
  step "installed image $image cached: this package passed the unpacked check and installed before"
fi

step "in the container: files, doctor, the demo (no network)"
# The sandbox needs user namespaces, mounts and writable cgroups, which a Docker container is
# denied by default and a user's machine grants: seccomp and AppArmor unconfined, CAP_SYS_ADMIN,
# and (tests/package/in_container.sh) the container's own cgroup hierarchies mounted writable.
docker run --rm "${mounts[@]}" --network none --cgroupns=private --cap-add SYS_ADMIN \
  --security-opt seccomp=unconfined --security-opt apparmor=unconfined \
  --security-opt systempaths=unconfined "$image" bash /tests/in_container.sh ||
  fail "inside the fresh Debian 12 (above)"
step "deb_test: passed"
