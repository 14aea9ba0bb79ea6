#!/usr/bin/env bash
# `awaywork host lock` on a Debian container shaped like a GitHub-hosted runner
# (runner_fixture.sh), then the leak probes as the worker (worker_probes.sh).
# Usage: runner_lock_test.sh CASE AWAYWORK_BINARY
#   locked_closes_every_leak       fresh runner: lock, every probe ok
#   control_STEP                   lock with STEP skipped: that step's probes LEAK (positive
#                                  controls; STEP is user, home, walk, acl, or home_walk)
#   second_lock_changes_nothing    lock twice: the second run prints that nothing changed
#   unprotected_kernel_refused     protected_symlinks 0 (as here): the lock refuses, changes nothing
#   sudoers_match_print_setup      the installed lines are doctor --print-setup's, visudo -c passes
#   doctor_on_locked_runner        doctor as the runner: all ✔ (but a kernel with protected_symlinks 0)
#   hosted_run_refused_without_lock  `awaywork run` as the runner on a hosted runner, no lock
#   unit_runs_as_worker_on_locked_runner  the action (action.yml) as a job runs it, with a hosted
#                                  runner's real PATH: it locks, the unit is done as the worker
#   action_outputs_when_the_unit_fails  the action's steps under `bash -eo pipefail`: a failed
#                                  unit and a refused check end it and keep their outputs
#   action_used_twice_in_one_job   the second use finds the runner locked (no sudo) and runs
#   refused_off_a_runner           no hosted runner's environment: refused, nothing changed;
#                                  --this-machine locks anyway
# Needs root and Docker: exit 77 (skip) without them, except under CI=true (a failure).
set -euo pipefail
case_name=$1
bin=$(readlink -f "$2")
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
image=awaywork-runner:bookworm-v2
token=ghs_$(head -c 200 /dev/urandom | tr -dc 'A-Za-z0-9' | head -c 36)

. "$here/testlib.sh"
need_root_and_engine "$src"
# Built before ctest by scripts/test (scripts/test-image-runner): no test builds an image.
docker image inspect "$image" >/dev/null 2>&1 || skip "no image $image: run scripts/test-image-runner"

name=aw-hostlock-$case_name-$$
cleanup() { docker rm -f "$name" >/dev/null 2>&1 || true; }
trap cleanup EXIT
caps=()
[ "$case_name" = unprotected_kernel_refused ] && caps=(--cap-add SYS_ADMIN)
docker run -d --name "$name" --hostname runnervm "${caps[@]}" \
  -v "$bin:/usr/local/libexec/awaywork/awaywork:ro" -v "$here:/t:ro" \
  "$image" sleep infinity >/dev/null
# Beside the binary, as a package installs them: the static helpers it looks for there.
for h in aw_probe_static aw_bridge_static aw_mcp_relay_static; do
  [ -e "$(dirname "$bin")/$h" ] && docker cp "$(dirname "$bin")/$h" "$name:/usr/local/libexec/awaywork/$h"
done
docker exec "$name" ln -s /usr/local/libexec/awaywork/awaywork /usr/bin/awaywork
ex() { docker exec "$name" "$@"; }
fixture() { docker exec -e WORKER="${1:-none}" "$name" /t/runner_fixture.sh "$token"; }
# As root naming the runner (after a lock the runner has no sudo but the two lines); the first
# case runs it as action.yml does, through the runner's sudo (SUDO_USER).
# The runner's environment says it is a hosted runner, as GitHub's does (the lock refuses
# elsewhere); through sudo it is kept by name.
hosted=(-e GITHUB_ACTIONS=true -e RUNNER_ENVIRONMENT=github-hosted)
lock() { docker exec "${hosted[@]}" "$name" awaywork host lock --runner runner "$@"; }
lock_via_sudo() {
  docker exec "${hosted[@]}" -u runner "$name" \
    sudo -n --preserve-env=GITHUB_ACTIONS,RUNNER_ENVIRONMENT awaywork host lock "$@"
}
# The action (action.yml) run as GitHub runs a composite action (tests/action/composite.py): as
# the runner, each step `bash --noprofile --norc -eo pipefail`, in the workspace, with the job
# environment of a hosted ubuntu-24.04 runner and its real PATH (four folders under the runner's
# home). awaywork is where the action installs it, beside it its static programs, as an earlier
# build of this commit left them (the build's steps, apt and cmake, are not run here).
workspace=/home/runner/work/repo/repo
temp=/home/runner/work/_temp
action_ready() {  # action_ready AGENT_SCRIPT: the repository and the config of the caller's job
  hosted_path=$(cd "$src/tests/action" &&
    python3 -c 'import composite; print(composite.HOSTED_PATH)') || fail "python3-yaml is missing"
  # Not skipped by a flag as the other cases do: the action locks as on a runner, kernel step too.
  [ "$(ex cat /proc/sys/fs/protected_symlinks)$(ex cat /proc/sys/fs/protected_hardlinks)" = 11 ] ||
    skip "the kernel's link protections are off (scripts/test sets them); the lock refuses that"
  for h in aw_probe_static aw_bridge_static aw_mcp_relay_static; do
    ex test -x "/usr/local/libexec/awaywork/$h" || fail "no $h beside $bin (the action installs it)"
  done
  ex ln -sf /usr/local/libexec/awaywork/awaywork /usr/local/bin/awaywork
  commit=$(ex awaywork --version | sed -n 's/.*(commit \([0-9a-f]\{12\}\)).*/\1/p')
  [ -n "$commit" ] || fail "the binary names no commit: $(ex awaywork --version)"
  ref=${commit}0000000000000000000000000000  # the commit step wants 40 hex digits, keeps 12
  docker exec -u runner -w /home/runner -e AGENT="$1" "$name" sh -c \
    'git init -q r && git -C r -c user.email=a@b -c user.name=a commit -q --allow-empty -m i &&
     printf "sandbox: {mode: off}\nagent: t\nagents:\n  t:\n    command: [/bin/sh, -c, \"%s\"]\n" \
       "$AGENT" >work/repo/repo/awaywork.yml'
}
action() {  # action INPUT=VALUE...: the steps' output, then `::step ID ran RC` and `::output K=V`
  local inputs=() i
  for i in config=awaywork.yml "$@"; do inputs+=(--input "$i"); done
  python3 "$src/tests/action/composite.py" --action "$src/action.yml" --docker "$name" \
    --user runner --workdir "$workspace" --temp "$temp" \
    --github action_ref="$ref" --github action_repository=awaywork/awaywork \
    --uses-output cache.cache-hit=true --env GITHUB_TOKEN="$token" \
    --env MODEL_KEY="sk-ant-api03-$(printf 'Fake0%.0s' $(seq 19))-AAAAAAAA" "${inputs[@]}"
}
probes() {
  ex sh -c 'touch /srv/drop/tool'  # made after the lock, by root, with the default umask
  ex setpriv --reuid=awaywork --regid=awaywork --init-groups --reset-env /bin/sh /t/worker_probes.sh "$token"
}
expect_probes() {  # expect_probes "LEAKING NAMES..." (all others must be ok)
  local out; out=$(probes); echo "$out"
  local all="environ runner_temp github_env sudo docker crontab toolcache usr_local_bin default_acl leftover_process"
  for p in $all; do
    if [[ " $1 " == *" $p "* ]]; then
      grep -q "^LEAK $p:" <<<"$out" || fail "$p should LEAK with this step skipped (positive control)"
    else
      grep -qx "ok $p" <<<"$out" || fail "$p should be ok"
    fi
  done
  ! grep -q "$token" <<<"$out" || fail "a probe printed the token"
}

case $case_name in
  locked_closes_every_leak)
    fixture none
    lock_via_sudo --skip kernel
    expect_probes ""
    ;;
  control_user)
    fixture misshaped
    lock --skip kernel --skip user
    expect_probes "environ sudo docker crontab leftover_process"
    ;;
  control_home)
    fixture none
    lock --skip kernel --skip home
    expect_probes "runner_temp"
    ;;
  control_walk)
    fixture none
    lock --skip kernel --skip walk
    expect_probes "toolcache usr_local_bin"
    ;;
  control_home_walk)  # GITHUB_ENV is closed twice: by the home and by its mode
    fixture none
    lock --skip kernel --skip home --skip walk
    expect_probes "runner_temp github_env toolcache usr_local_bin"
    ;;
  control_acl)
    fixture none
    lock --skip kernel --skip acl
    expect_probes "default_acl"
    ;;
  misshaped_worker_reshaped)
    fixture misshaped
    lock --skip kernel
    expect_probes ""
    ;;
  second_lock_changes_nothing)
    fixture misshaped
    first=$(lock --skip kernel); echo "$first"
    grep -q "created user\|removed from group sudo" <<<"$first" || fail "the first lock changed nothing"
    second=$(lock --skip kernel); echo "$second"
    grep -qx "nothing changed: the host was already locked" <<<"$second" || fail "the second lock changed things"
    json=$(lock --skip kernel --json)
    grep -q '"changed": false' <<<"$json" || fail "--json: changed is not false: $json"
    ;;
  unprotected_kernel_refused)
    fixture none
    # A kernel with the setting off, as this machine had it: where it is on, a read-only file
    # reading 0 over the sysctl in the container's own mount namespace stands in for it.
    if [ "$(ex cat /proc/sys/fs/protected_symlinks)" != 0 ]; then
      ex sh -c 'echo 0 >/run/zero && mount --bind -o ro /run/zero /proc/sys/fs/protected_symlinks' ||
        fail "cannot stand in a kernel with protected_symlinks 0"
    fi
    set +e; out=$(lock 2>&1); rc=$?; set -e; echo "$out"
    [ "$rc" -eq 1 ] || fail "exit $rc, not 1"
    grep -q "fs.protected_symlinks is 0 and cannot be set here" <<<"$out" || fail "no kernel refusal"
    ! ex id awaywork >/dev/null 2>&1 || fail "a refused lock made the worker"
    [ "$(ex stat -c %a /usr/local/bin)" = 777 ] || fail "a refused lock changed modes"
    ;;
  sudoers_match_print_setup)
    fixture none
    lock --skip kernel
    installed=$(ex cat /etc/sudoers.d/awaywork-awaywork)
    printed=$(docker exec -u runner -w /home/runner "$name" awaywork doctor --print-setup |
      sed -n '/^cat > \/tmp\/awaywork-sudoers/,/^EOF$/p' | sed '1d;$d')
    [ -n "$printed" ] && [ "$installed" = "$printed" ] || fail "installed:\n$installed\nprinted:\n$printed"
    [ "$(ex stat -c '%a %U' /etc/sudoers.d/awaywork-awaywork)" = "440 root" ] || fail "not 0440 root"
    ex visudo -c -q || fail "visudo -c"
    ! docker exec -u runner "$name" sudo -n true 2>/dev/null || fail "the runner kept its sudo"
    grep -q "^# awaywork host lock: runner ALL=(ALL) NOPASSWD:ALL" <<<"$(ex cat /etc/sudoers.d/runner)" ||
      fail "the runner's own rule is not commented out"
    ;;
  doctor_on_locked_runner)
    fixture none
    lock --skip kernel
    set +e
    out=$(docker exec -u runner -w /home/runner -e PATH=/usr/local/bin:/usr/bin:/bin \
      -e GITHUB_ACTIONS=true -e RUNNER_ENVIRONMENT=github-hosted -e AWAYWORK_SECRETS_PASSPHRASE=x \
      "$name" awaywork doctor 2>&1)
    set -e
    echo "$out"
    grep -q "isolation user" <<<"$out" || fail "a hosted runner's isolation is not user"
    # The one exception: a kernel with protected_symlinks 0 (this machine had it), which a
    # container cannot set.
    bad=$(grep '^✖' <<<"$out" | grep -v 'fs.protected_symlinks is 1' || true)
    [ -z "$bad" ] || fail "doctor failed: $bad"
    ;;
  unit_runs_as_worker_on_locked_runner)
    # The action as a job runs it (issue 31, item 5): the lock through the runner's sudo, then the
    # unit, with the hosted PATH whose folders under the runner's home the lock closed. The agent
    # leaves a process behind: after the phase none of the worker's may survive.
    fixture none
    action_ready 'id -un; env | grep -c ghs_ || true; setsid sleep 1000 & true'
    out=$(action step=run repo=/home/runner/r prompt=hello 2>&1) || fail "the action failed: $out"
    echo "$out"
    grep -qx "::step lock ran 0" <<<"$out" || fail "the lock step did not run"
    grep -q '"isolation": "user"' <<<"$out" || fail "not isolation user"
    grep -qx '::output state=done' <<<"$out" || fail "the action's output state is not done"
    ! ex pgrep -u awaywork >/dev/null || fail "a process of the worker survived the phase"
    ! grep -q "$token" <<<"$out" || fail "the runner's token reached the record"
    # The control: this PATH as it is, given to awaywork on the locked runner, is refused.
    expect_refusal "every PATH entry is runnable by worker awaywork" \
      docker exec -u runner -w "$workspace" -e PATH="$hosted_path" -e HOME=/home/runner \
      -e GITHUB_ACTIONS=true -e RUNNER_ENVIRONMENT=github-hosted "$name" \
      awaywork --config awaywork.yml run --repo /home/runner/r --prompt hello
    ;;
  action_outputs_when_the_unit_fails)
    # GitHub runs the step as `bash -eo pipefail` (issue 31, item 7): a failed unit ends the action
    # with awaywork's status and its outputs are written all the same; so for a check that refuses
    # (a folder that is no artifact).
    fixture none
    action_ready 'exit 3'
    set +e; out=$(action step=run repo=/home/runner/r prompt=hello 2>&1); rc=$?; set -e
    echo "$out"
    [ "$rc" -eq 1 ] || fail "the action ended $rc, not awaywork's 1 for a failed unit"
    grep -qx '::step unit ran 1' <<<"$out" || fail "the unit step did not end with awaywork's status"
    grep -qx '::output state=failed' <<<"$out" || fail "the failed unit's state was lost"
    grep -qE '^::output unit=.+' <<<"$out" || fail "the failed unit's id was lost"
    set +e; out=$(action step=check lock=false artifact="$temp/none" 2>&1); rc=$?; set -e
    echo "$out"
    [ "$rc" -eq 5 ] || fail "the check ended $rc, not 5 (refused)"
    grep -qx '::output verdict=refused' <<<"$out" || fail "the refused check's verdict was lost"
    ;;
  action_used_twice_in_one_job)
    # Two uses of the action in one job (issue 31, item 8): the first locks the runner through its
    # sudo, which the lock takes away; the second finds the runner locked and runs its unit.
    fixture none
    action_ready 'id -un'
    for use in first second; do
      out=$(action step=run repo=/home/runner/r prompt="$use" secrets=MODEL_KEY 2>&1) ||
        fail "the $use use failed: $out"
      echo "$out"
      grep -qx '::output state=done' <<<"$out" || fail "the $use use's unit is not done"
      ! docker exec -u runner "$name" sudo -n true 2>/dev/null || fail "the runner kept its sudo"
    done
    grep -q "the runner was locked by an earlier awaywork step of this job" <<<"$out" ||
      fail "the second use did not find the runner locked"
    ;;
  refused_off_a_runner)
    fixture none
    out=$(ex awaywork host lock --runner runner --skip kernel 2>&1) && fail "the lock ran off a runner: $out"
    grep -q "this is not a GitHub-hosted runner" <<<"$out" || fail "no refusal: $out"
    grep -q -- "--this-machine" <<<"$out" || fail "the refusal does not say how: $out"
    ! ex id awaywork >/dev/null 2>&1 || fail "the refused lock made the worker user"
    [ "$(ex stat -c %a /home/runner)" != 700 ] || fail "the refused lock closed the runner's home"
    ex awaywork host lock --runner runner --skip kernel --this-machine >/dev/null ||
      fail "--this-machine did not lock"
    ex id awaywork >/dev/null || fail "--this-machine made no worker"
    ;;
  hosted_run_refused_without_lock)
    fixture none
    expect_refusal "can't run as the awaywork user on this GitHub-hosted runner: run awaywork through its action, which creates it" \
      docker exec -u runner -w /home/runner -e GITHUB_ACTIONS=true -e RUNNER_ENVIRONMENT=github-hosted \
      -e AWAYWORK_SECRETS_PASSPHRASE=x "$name" sh -c \
      'git init -q r && git -C r -c user.email=a@b -c user.name=a commit -q --allow-empty -m i &&
       mkdir -p .config/awaywork &&
       printf "agent: t\nagents:\n  t:\n    command: [/bin/true]\n" >.config/awaywork/config.yml &&
       awaywork run --repo /home/runner/r --prompt hello'
    ;;
  *) echo "unknown case $case_name" >&2; exit 2 ;;
esac
echo "PASS $case_name"
