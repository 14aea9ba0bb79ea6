"""A temporary awaywork world for the serve tests: a git repository (as `demo`, and as `checked`
with two checks: one passes, the other only once greet.sh is fixed), a config with the bundled
scripted agent and a slow one, a profile with a secret in the file secret store, and a running
`awaywork serve` (the real binary) on a port the kernel picked."""
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time

BINARY = os.environ.get("AW_BINARY") or os.path.join(
    os.path.dirname(__file__), "../../build/src/cli/awaywork")
SOURCE = os.environ.get("AW_SOURCE_DIR") or os.path.join(os.path.dirname(__file__), "../..")

# A fake GitHub token shaped like a real one; valid nowhere. It must never come out of the API.
SECRET = "ghp_" + "FAKEserveSECRET0123456789abcdefABCDEF"[:36]

SLOW_AGENT = """#!/bin/sh
# Prints a terminal escape and markup (to be shown inert), then a numbered line every 0.2 s for
# LINES lines, then edits a file.
printf '\\033[31mred\\033[0m <img src=x id=injected>\\n'
n=0
while [ $n -lt "${LINES:-50}" ]; do n=$((n+1)); echo "slow agent line $n"; sleep 0.2; done
echo done > SLOW.md
"""

# For bench/serve/dashboard_bench.mjs: each line carries the wall clock (ms) it was written at.
TICKER_AGENT = """#!/bin/sh
n=0
while [ $n -lt 100 ]; do n=$((n+1)); echo "tick $(date +%s%3N) ok"; sleep 0.1; done
"""

# A line now and then, each after 600 ms of silence (bench/serve: the quiet case of a line's latency,
# where nothing comes after it to push the redactor's held tail out).
QUIET_TICKER_AGENT = """#!/bin/sh
n=0
while [ $n -lt 20 ]; do n=$((n+1)); sleep 0.6; echo "tick $(date +%s%3N) quiet"; done
"""

# Writes the profile's secret into the patch: the output check must refuse it.
SPILL_AGENT = """#!/bin/sh
echo "token=$GH_FAKE_TOKEN" > config.txt
"""

LEAKY_AGENT = """#!/bin/sh
echo "the token is $GH_FAKE_TOKEN"
printf 'x\\n' > leak.txt
"""


# Trojan Source (issue 25): bidi controls in a file it writes and in its log (U+202E, U+2066,
# U+2069: the line displays as `"user") { // admin only` but compiles as one string), ASCII
# smuggled in tag characters (U+E0041 U+E0042), and an emoji joined by a ZWJ, which stays.
TROJAN_AGENT = """#!/bin/sh
rlo=$(printf '\\342\\200\\256') lri=$(printf '\\342\\201\\246') pdi=$(printf '\\342\\201\\251')
check="if (role != \\"user$rlo $lri// admin only$pdi $lri\\")"
echo "role check: $check"
printf 'tags: \\363\\240\\201\\201\\363\\240\\201\\202 coder: \\360\\237\\221\\251\\342\\200\\215\\360\\237\\222\\273\\n'
printf 'int admin(const char *role) {\\n  %s return 0;\\n  return 1;\\n}\\n' "$check" > auth.c
"""

# A file whose name holds U+202E: the output check refuses it, and the refusal quotes the name.
BIDI_NAME_AGENT = """#!/bin/sh
echo x > "$(printf 'notes\\342\\200\\256txt.sh')"
"""

# A name git C-quotes (issue 25): `diff --git "a/caf\303\251.txt" ...`. b.txt sorts before it and
# must keep only its own line in the diff's file list.
QUOTED_NAME_AGENT = """#!/bin/sh
echo one > b.txt
printf 'two\\nthree\\n' > "$(printf 'caf\\303\\251.txt')"
"""

# Issue 25 item 4: a line without its newline, then a pause (the live log must show the line
# during it), then the profile's secret split by a pause (the log shows it only as [REDACTED]).
PAUSE_AGENT = """#!/bin/sh
printf 'waiting for a while'
sleep 4
echo ' done'
head=$(printf '%s' "$GH_FAKE_TOKEN" | cut -c1-7) rest=$(printf '%s' "$GH_FAKE_TOKEN" | cut -c8-)
printf 'secret: %s' "$head"
sleep 1
printf '%s end\\n' "$rest"
"""

# Issue 25, the agent's work as steps: a Claude Code stand-in (provider claude reads its output as
# stream-json) that says what it does, reads greet.sh, runs sed on it, writes CHANGES.md, and does
# so for real; its last message holds markup and a bidi control (shown inert), its result the
# tokens it used.
STEPS_AGENT = """#!/bin/sh
cat > /dev/null
say() { printf '%s\\n' "$1"; }
say '{"type":"system","subtype":"init"}'
say '{"type":"assistant","message":{"content":[{"type":"text","text":"I will fix the greeting."}]}}'
say '{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"greet.sh"}}]}}'
say '{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"echo Helo, world"}]}}'
sed -i 's/Helo,/Hello,/' greet.sh
say '{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"sed -i s/Helo,/Hello,/ greet.sh"}}]}}'
say '{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t2","content":"(no output)"}]}}'
printf '# Changes\\n\\n- Fix the greeting.\\n' > CHANGES.md
say '{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t3","name":"Write","input":{"file_path":"CHANGES.md","content":"# Changes"}}]}}'
say '{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t3","content":"File created"}]}}'
say '{"type":"assistant","message":{"content":[{"type":"text","text":"Done <img src=x id=stepinjected> user\\u202e ok"}]}}'
say '{"type":"result","subtype":"success","is_error":false,"result":"Done","usage":{"input_tokens":1200,"cache_read_input_tokens":300,"output_tokens":450},"total_cost_usd":0.0123}'
"""

# Issue 25 item 9: a 50 MiB log of numbered lines (115 bytes each).
BIG_AGENT = """#!/bin/sh
awk 'BEGIN {
  line = sprintf("%0100d", 0); n = int(50 * 1048576 / 115)
  for (i = 1; i <= n; i++) printf "line %08d %s\\n", i, line
}'
echo "big log end"
"""


def git(cwd, *args):
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@localhost",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@localhost", GIT_CONFIG_NOSYSTEM="1")
    subprocess.run(["git", "-C", cwd] + list(args), check=True, env=env, capture_output=True)


class World:
    # forge: (api_url, token) of a running fake GitHub (tests/fakes/fake_github.py) that holds
    # octo/web; the config then names it `fake` and the repository `web`.
    # gitlab: (api_url, token) of a running fake GitLab (tests/fakes/fake_gitlab.py) that holds
    # grp/sub/app; the config then names it `lab` and the repository `app`. One or the other.
    def __init__(self, forge=None, gitlab=None):
        assert not (forge and gitlab), "one forge per World"
        self.root = tempfile.mkdtemp(prefix="aw-serve-test-")
        self.src = os.path.join(self.root, "src")
        self.config = os.path.join(self.root, "config.yml")
        self.env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(self.root, "xdg"),
                        AWAYWORK_SECRET_BACKEND="file")
        self.env.pop("AWAYWORK_SECRETS_PASSPHRASE", None)
        shutil.copytree(os.path.join(SOURCE, "examples/demo-repo"), self.src)
        git(self.src, "init", "-q", "-b", "main")
        git(self.src, "add", "-A")
        git(self.src, "commit", "-qm", "initial")
        agents = os.path.join(self.root, "agents")
        os.makedirs(agents)
        for name, body in (("slow", SLOW_AGENT), ("leaky", LEAKY_AGENT), ("ticker", TICKER_AGENT),
                           ("quietticker", QUIET_TICKER_AGENT),
                           ("spill", SPILL_AGENT), ("trojan", TROJAN_AGENT),
                           ("bidiname", BIDI_NAME_AGENT), ("quoted", QUOTED_NAME_AGENT),
                           ("pause", PAUSE_AGENT), ("big", BIG_AGENT), ("steps", STEPS_AGENT)):
            path = os.path.join(agents, name)
            with open(path, "w") as f:
                f.write(body)
            os.chmod(path, 0o755)
        scripted = os.path.abspath(os.path.join(SOURCE, "examples/agents/scripted-agent"))
        with open(self.config, "w") as f:
            f.write(f"""state_dir: {self.root}/state
agent: scripted
agents:
  scripted:
    command: [{scripted}]
  slow:
    command: [{agents}/slow]
  leaky:
    command: [{agents}/leaky]
  ticker:
    command: [{agents}/ticker]
  quietticker:
    command: [{agents}/quietticker]
  spill:
    command: [{agents}/spill]
  trojan:
    command: [{agents}/trojan]
  bidiname:
    command: [{agents}/bidiname]
  quoted:
    command: [{agents}/quoted]
  pause:
    command: [{agents}/pause]
  big:
    command: [{agents}/big]
  steps:
    provider: claude
    profile: claude
    command: [{agents}/steps]
profiles:
  web:
    secrets: [GH_FAKE_TOKEN]
  claude:
    secrets: [CLAUDE_CODE_OAUTH_TOKEN]
repos:
  demo:
    path: {self.src}
  checked:
    path: {self.src}
    checks: [[sh, -c, "echo check one passes"], [sh, tests/test_greet.sh]]
""")
            if forge:
                f.write(f"""  web:
    github: octo/web
forges:
  fake:
    api_url: {forge[0]}
    credential: GH_TOKEN
""")
            if gitlab:
                f.write(f"""  app:
    gitlab: grp/sub/app
forges:
  lab:
    kind: gitlab
    api_url: {gitlab[0]}
    credential: GITLAB_TOKEN
""")
        self.awaywork("secret", "set", "GH_FAKE_TOKEN", input=SECRET)
        # Shaped like a Claude Code OAuth token (`claude setup-token`); valid nowhere.
        self.awaywork("secret", "set", "CLAUDE_CODE_OAUTH_TOKEN", input="sk-ant-oat01-" + "F" * 80 + "AA")
        if forge:
            self.awaywork("secret", "set", "GH_TOKEN", input=forge[1])
        if gitlab:
            self.awaywork("secret", "set", "GITLAB_TOKEN", input=gitlab[1])
        self.server = None
        self.stderr_path = os.path.join(self.root, "serve.stderr")

    def awaywork(self, *args, input=None, check=True):
        return subprocess.run([BINARY, "--config", self.config] + list(args), input=input,
                              capture_output=True, text=True, env=self.env, check=check,
                              timeout=120)

    def serve(self, *extra):
        """Starts `awaywork serve --json`; returns (port, token, url)."""
        self.stderr = open(self.stderr_path, "ab")
        self.server = subprocess.Popen([BINARY, "--config", self.config, "serve", "--json"] +
                                       list(extra), stdout=subprocess.PIPE, stderr=self.stderr,
                                       env=self.env)
        line = self.server.stdout.readline()
        info = json.loads(line)
        self.port, self.url, self.address = info["port"], info["url"], info["address"]
        # No URL when the server holds neither 127.0.0.1 nor [::1]: the token is in the file.
        if self.url:
            self.token = self.url.split("#token=")[1]
        else:
            with open(info["token_file"]) as f:
                self.token = f.read().strip()
        return self.port, self.token, self.url

    def server_log(self):
        with open(self.stderr_path, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def stop(self, sig=signal.SIGTERM):
        if self.server and self.server.poll() is None:
            self.server.send_signal(sig)
            self.server.wait(timeout=30)

    def close(self, keep=False):
        self.stop()
        if not keep:
            shutil.rmtree(self.root, ignore_errors=True)


def wait_for(predicate, timeout=30.0, step=0.05):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    raise AssertionError(f"timed out after {timeout} s")


if __name__ == "__main__":
    # For the browser tests (dashboard_test.mjs): make the world, start the server, print it as
    # one JSON line, and keep it until stdin closes.
    import sys
    w = World()
    port, token, url = w.serve()
    print(json.dumps({"root": w.root, "port": port, "token": token, "url": url,
                      "secret": SECRET, "config": w.config, "server_log": w.stderr_path}),
          flush=True)
    sys.stdin.read()
    w.stop()
    if os.environ.get("AW_SERVE_TEST_LOG"):
        sys.stderr.write(w.server_log())
    w.close()
