#!/bin/sh
# Shapes a fresh Debian container like a GitHub-hosted runner, as root, before `awaywork host lock`
# (tests/host/runner_lock_test.sh). What the worker must not reach, each made as a hosted runner
# has it: the `runner` user with passwordless sudo and the docker group, its home 0755 holding
# the tool folders its PATH names, RUNNER_TEMP (a step script with the token) and a GITHUB_ENV
# file, a world-writable toolcache with a `gh`, a world-writable /usr/local/bin, a docker socket
# for the docker group, a folder whose default ACL makes new files writable by others, and a
# long-running runner process with the token in its environment. WORKER=misshaped adds a worker
# account a careless earlier setup left: a shell, a home, the sudo and docker groups, cron
# allowed, and a process still running.
# Usage: runner_fixture.sh TOKEN
set -eu
token=$1

groupadd -f docker
# Fixed uids no host account has: a container shares the host's kernel, so a test on the host
# that ends every process of its own users' uids (the isolation user tests' cleanup, run beside
# this one by ctest -j) would otherwise also end this container's (the leftover_process control).
useradd --uid 58101 --create-home --shell /bin/bash --groups docker runner
chmod 0755 /home/runner
echo 'runner ALL=(ALL) NOPASSWD:ALL' >/etc/sudoers.d/runner
echo '%sudo ALL=(ALL:ALL) NOPASSWD: ALL' >/etc/sudoers.d/90-sudo-group
chmod 0440 /etc/sudoers.d/runner /etc/sudoers.d/90-sudo-group

# The folders a hosted ubuntu-24.04 runner's PATH names (tests/action/composite.py HOSTED_PATH):
# four under the runner's home, which the lock closes, and two outside it.
for d in .local/bin .cargo/bin .config/composer/vendor/bin .dotnet/tools; do
  mkdir -p "/home/runner/$d"
done
chown -R runner:runner /home/runner
mkdir -p /opt/pipx_bin /usr/local/.ghcup/bin

temp=/home/runner/work/_temp
mkdir -p "$temp/_runner_file_commands" /home/runner/work/repo/repo
printf '#!/bin/bash\ngh auth login --with-token <<<%s\n' "$token" >"$temp/step.sh"
chmod 0644 "$temp/step.sh"
: >"$temp/_runner_file_commands/set_env_1"
chmod 0666 "$temp/_runner_file_commands/set_env_1"
chown -R runner:runner /home/runner/work

mkdir -p /opt/hostedtoolcache/gh/2.40.0/x64/bin
printf '#!/bin/sh\necho "gh version 2.40.0"\n' >/opt/hostedtoolcache/gh/2.40.0/x64/bin/gh
chmod -R 0777 /opt/hostedtoolcache
chmod 0777 /usr/local/bin

mkdir -p /srv/drop
setfacl -d -m o::rwx /srv/drop

# The docker socket, root:docker 0660 (a listener that answers like the engine's /_ping).
python3 - <<'PY' &
import os, socket, grp
p = "/run/docker.sock"
s = socket.socket(socket.AF_UNIX)
s.bind(p); os.chown(p, 0, grp.getgrnam("docker").gr_gid); os.chmod(p, 0o660); s.listen(8)
if os.fork() == 0:
    while True:
        c, _ = s.accept(); c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nOK"); c.close()
os._exit(0)
PY
wait
[ -e /var/run/docker.sock ] || ln -s /run/docker.sock /var/run/docker.sock

# The runner's worker process, holding the job's token for the whole job.
setpriv --reuid=runner --regid=runner --init-groups --reset-env \
  env GITHUB_TOKEN="$token" RUNNER_TEMP="$temp" GITHUB_ENV="$temp/_runner_file_commands/set_env_1" \
  sleep 100000 >/dev/null 2>&1 &
echo $! >/run/fake-runner.pid

if [ "${WORKER:-none}" = misshaped ]; then
  useradd --uid 58102 --create-home --shell /bin/bash --groups sudo,docker awaywork
  echo 'awaywork:awaywork' | chpasswd
  setpriv --reuid=awaywork --regid=awaywork --init-groups --reset-env \
    sh -c 'sleep 100000' earlier-phase >/dev/null 2>&1 &
fi
for i in 1 2 3 4 5 6 7 8 9 10; do [ -S /run/docker.sock ] && exit 0; sleep 0.2; done
echo "runner_fixture: the docker socket did not appear" >&2
exit 1
