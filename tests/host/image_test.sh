#!/usr/bin/env bash
# awaywork's image (contrib/docker/Dockerfile, built by scripts/awaywork-image from this build's
# binary): what the build made, a stand-in agent run as a unit in it, and the refusal of an image
# without the worker user.
# Usage: image_test.sh CASE AWAYWORK_BINARY
#   prepare                       builds the image for this binary (scripts/test, before ctest)
#   stand_in_agent_refused        doctor all ✔ in a fresh container; the layout (away under tini, /home/away 700, the worker, the two
#                                 sudoers lines = doctor --print-setup's), then `awaywork run` with
#                                 a stand-in agent: /proc/1/environ, /home/away, sudo refused, no
#                                 GH_TOKEN, though away's own environment holds one
#   image_without_worker_refused  the worker removed: run refuses with the image's message
# Where this machine's kernel has fs.protected_symlinks 0 (global, and not ours to change), a unit
# refuses it (host_runner_lock.unprotected_kernel_refused pins that); so that the unit gets past
# that gate there, the container gets a file reading 1 bind-mounted over the sysctl in its own
# mount namespace. Nothing the probes test depends on it.
# Needs root and Docker: exit 77 (skip) without them, except under CI=true (a failure).
set -euo pipefail
case_name=$1
bin=$(readlink -f "$2")
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
image=awaywork-image-test:$(sha256sum "$bin" | head -c 12)
token=ghp_$(head -c 200 /dev/urandom | tr -dc 'A-Za-z0-9' | head -c 36)
. "$here/testlib.sh"
need_root_and_engine "$src"
# The image is built before ctest (scripts/test runs `image_test.sh prepare BIN`): no test builds it.
if [ "$case_name" = prepare ]; then
  docker image inspect "$image" >/dev/null 2>&1 || AWAYWORK_BIN=$bin "$src/scripts/awaywork-image" "$image"
  exit 0
fi
docker image inspect "$image" >/dev/null 2>&1 ||
  skip "no image $image for this binary: scripts/test makes it ($0 prepare $bin)"

name=aw-image-$case_name-$$
trap 'docker rm -f "$name" >/dev/null 2>&1 || true' EXIT
# As the image runs: tini as PID 1, awaywork as away with a forge token in its environment.
docker run -d --name "$name" --cap-add SYS_ADMIN -e GH_TOKEN="$token" -v "$here:/t:ro" "$image" \
  serve --listen 127.0.0.1:0 >/dev/null
sleep 1
as_root() { docker exec -u root "$name" "$@"; }
as_away() { docker exec -u away -w /home/away "$name" "$@"; }
[ "$(as_root cat /proc/1/comm)" = tini ] || fail "PID 1 is not tini"
child=$(as_root cat /proc/1/task/1/children | awk '{print $1}')
[ "$(as_root stat -c %U "/proc/$child")" = away ] || fail "awaywork (pid $child) does not run as away"
[ "$(docker image inspect -f '{{json .Config.Entrypoint}} {{.Config.User}}' "$image")" = '["/usr/bin/tini","--","/usr/bin/awaywork"] away' ] ||
  fail "the image's entrypoint is not tini -- awaywork as away"
for k in protected_symlinks protected_hardlinks; do
  [ "$(as_root cat /proc/sys/fs/$k)" != 0 ] ||
    as_root sh -c "echo 1 >/run/one && mount --bind /run/one /proc/sys/fs/$k"
done
as_away sh -c 'mkdir -p .config/awaywork && git init -q r && git -C r -c user.email=a@b -c user.name=a commit -q --allow-empty -m i'
docker exec -i -u away -w /home/away "$name" sh -c 'cat > .config/awaywork/config.yml' <<'YML'
isolation: none
sandbox: {mode: off}
agent: stand-in
agents:
  stand-in:
    command: [/t/stand_in_agent.sh]
YML

case $case_name in
  stand_in_agent_refused)
    # A fresh container of the image, its default config: doctor all ✔ (isolation user, forced).
    doc=$(docker run --rm "$image" doctor 2>&1) || fail "doctor in the image: $doc"
    grep -q "^✔ isolation user" <<<"$doc" && grep -q "^all [0-9]* checks pass" <<<"$doc" ||
      fail "doctor in the image: $doc"
    [ "$(as_root stat -c %a /home/away)" = 700 ] || fail "/home/away is not 700"
    as_root id awaywork
    [ "$(as_root id -nG awaywork)" = awaywork ] || fail "the worker has other groups"
    installed=$(as_root cat /etc/sudoers.d/awaywork-awaywork)
    printed=$(as_away awaywork doctor --print-setup | sed -n '/^cat > \/tmp\/awaywork-sudoers/,/^EOF$/p' | sed '1d;$d')
    [ -n "$printed" ] && [ "$installed" = "$printed" ] || fail "sudoers: installed\n$installed\nprinted\n$printed"
    ww=$(as_root find / -xdev -perm -o+w ! -type l ! \( -type d -perm -1000 \) 2>/dev/null | head -5)
    [ -z "$ww" ] || fail "world-writable paths left: $ww"
    set +e
    out=$(as_away awaywork --json run --repo /home/away/r --prompt "report what you can reach" 2>&1)
    set -e
    echo "$out" | tail -40
    grep -q '"isolation": "user"' <<<"$out" || fail "isolation was not forced to user (the config says none)"
    # The agent's lines as the record kept them (its transcript, redacted).
    run_dir=$(grep -o '"run_dir": "[^"]*"' <<<"$out" | cut -d'"' -f4)
    found=$(as_away grep -rhoE '(id |ok |LEAK )[a-z0-9_]+.*' "$run_dir" | sort -u || true)
    echo "findings: $found"
    grep -q "^id awaywork" <<<"$found" || fail "the agent did not run as the worker"
    for p in proc1_environ away_home sudo gh_token; do
      grep -qx "ok $p" <<<"$found" || fail "$p: $(grep " $p" <<<"$found")"
    done
    ! grep -q "$token" <<<"$out" || fail "the token is in the output"
    ;;
  image_without_worker_refused)
    as_root userdel awaywork
    expect_refusal "can't run as the awaywork user in this image: build it from awaywork's Dockerfile, which creates it" \
      as_away awaywork run --repo /home/away/r --prompt hello
    ;;
  *) echo "unknown case $case_name" >&2; exit 2 ;;
esac
echo "PASS $case_name"
