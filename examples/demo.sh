#!/bin/sh
# The offline demo: one real unit end to end with a scripted stand-in for a model. Makes a git
# repository from demo-repo/ (beside this script) in a new folder under /tmp, and runs the bundled
# scripted agent (agents/scripted-agent, no model, no network) on it with `awaywork run`. Prints
# the unit's summary and the branch it made. Uses the awaywork on PATH, or $AWAYWORK.
# Installed by the Debian package as /usr/share/doc/awaywork/examples/demo.sh; scripts/demo runs
# it with the awaywork of a source build.
# Usage: demo.sh [--limits off]   (or AWAYWORK_DEMO_LIMITS=off)
#   --limits off writes `sandbox: {limits: off}` into the demo's config: doctor's fix for an owner
#   who is not root on a kernel whose memory, pids and cpu controllers are on cgroup v1, where no
#   cgroup of theirs can hold the limits (docs/first-run.md). The phase stays contained.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
awaywork=${AWAYWORK:-awaywork}
limits=${AWAYWORK_DEMO_LIMITS:-on}
usage() { echo "usage: $0 [--limits off]   (or AWAYWORK_DEMO_LIMITS=off)" >&2; exit "${1:-2}"; }
while [ $# -gt 0 ]; do
  case "$1" in
    --limits) [ $# -ge 2 ] || usage; limits=$2; shift 2 ;;
    --limits=*) limits=${1#--limits=}; shift ;;
    -h|--help) usage 0 ;;
    *) echo "demo: unknown argument '$1'" >&2; usage ;;
  esac
done
case "$limits" in
  on) sandbox= ;;
  off) sandbox="sandbox: {limits: off}   # demo.sh --limits off (or AWAYWORK_DEMO_LIMITS=off)" ;;
  *) echo "demo: --limits takes 'off' (or 'on', the default), not '$limits'" >&2; usage ;;
esac

demo=$(mktemp -d /tmp/awaywork-demo.XXXXXX)
repo="$demo/greet"
cp -r "$here/demo-repo" "$repo"
chmod -R u+w "$repo"
git -C "$repo" init -q -b main
git -C "$repo" -c user.name=demo -c user.email=demo@localhost add -A
git -C "$repo" -c user.name=demo -c user.email=demo@localhost commit -qm "greet: first version"

cat >"$demo/config.yml" <<YAML
# Written by the awaywork demo. See docs/config.md for every key.
state_dir: $demo/state
agent: scripted
$sandbox
agents:
  scripted:
    command: [$here/agents/scripted-agent]
    prompt: stdin
repos:
  greet:
    path: $repo
    checks: ["sh tests/test_greet.sh"]
YAML

echo "== awaywork run (config: $demo/config.yml)"
rc=0
"$awaywork" --config "$demo/config.yml" run --repo greet \
  --prompt "Fix the typo in the greeting printed by greet.sh" || rc=$?
branch=$(git -C "$repo" for-each-ref --format='%(refname:short)' 'refs/heads/awaywork/*' | head -n1)
if [ "$rc" -ne 0 ] || [ -z "$branch" ]; then
  echo "demo: the unit did not publish a branch (exit $rc)" >&2
  if [ "$limits" = on ]; then
    echo "demo: \`awaywork --config $demo/config.yml doctor\` says why; where it says no cgroup of" \
      "yours can hold the sandbox's limits and you cannot run as root, run $0 --limits off" >&2
  fi
  exit 1
fi
echo
echo "== the branch it made in $repo: $branch"
git -C "$repo" log --oneline -n 2 "$branch"
git -C "$repo" --no-pager diff --stat main "$branch"
echo
echo "== the source repository's own checkout is untouched:"
git -C "$repo" status --short --branch
