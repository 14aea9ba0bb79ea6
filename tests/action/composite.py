"""A stand-in for GitHub's runner of composite actions, enough to run action.yml's own steps for
real: in tests/action/workflow_test.py (here, with stand-in programs) and in
tests/host/runner_lock_test.sh (in a runner-shaped container, as the runner, with the real
awaywork). Each `run` step runs as GitHub runs `shell: bash`: `bash --noprofile --norc -eo
pipefail FILE` in the workspace, with the job's environment plus the step's `env:`; its `if:` is
evaluated; what it writes to GITHUB_OUTPUT becomes `steps.ID.outputs`; the steps after a failed
one are skipped; then the action's outputs are computed. `uses:` steps are not run: the caller
gives their outputs (the cache's `cache-hit`).

Expressions: only the forms action.yml uses (a context path; `A == 'x'` and `A != 'x'` joined by
`&&`). Any other form is an error, so that a new form is added here rather than read as ''.

As a program (for the shell tests): composite.py --action FILE --docker CONTAINER --user USER
  --workdir DIR --temp DIR [--input K=V] [--env K=V] [--github K=V] [--uses-output ID.K=V]
runs the action as the user in the container, with a hosted runner's job environment
(hosted_job_env, its real PATH included) plus each --env; it prints each step's output as it ran,
then `::step ID ran RC` or `::step ID skipped` per step and `::output NAME=VALUE` per output of
the action, and exits with the action's status."""

import argparse
import os
import re
import subprocess
import sys

import yaml

EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
PATH = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)*$")
TERM = re.compile(r"^([A-Za-z0-9_.-]+)\s*(==|!=)\s*'([^']*)'$")

# The PATH of a GitHub-hosted ubuntu-24.04 runner's job, as its job logs and the runner images'
# docs give it: folders under the runner's home among them (~/.local/bin, ~/.cargo/bin,
# ~/.config/composer/vendor/bin, ~/.dotnet/tools), which `awaywork host lock` closes.
HOSTED_PATH = ("/snap/bin:/home/runner/.local/bin:/opt/pipx_bin:/home/runner/.cargo/bin:"
               "/home/runner/.config/composer/vendor/bin:/usr/local/.ghcup/bin:"
               "/home/runner/.dotnet/tools:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:"
               "/sbin:/bin:/usr/games:/usr/local/games:/snap/bin")


def hosted_job_env(temp, workspace, action_path, path=HOSTED_PATH):
    """The environment a step of a job on a GitHub-hosted runner starts with (the part awaywork
    and the action read)."""
    return {"PATH": path, "HOME": "/home/runner", "LANG": "C.UTF-8", "CI": "true",
            "GITHUB_ACTIONS": "true", "RUNNER_ENVIRONMENT": "github-hosted", "RUNNER_OS": "Linux",
            "RUNNER_ARCH": "X64", "RUNNER_TEMP": temp, "GITHUB_WORKSPACE": workspace,
            "GITHUB_ACTION_PATH": action_path}


class LocalHost:
    """Runs the steps here, with only the environment given (nothing of this process's)."""

    def __init__(self, workdir):
        self.workdir = workdir

    def write(self, path, text):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)

    def read(self, path):
        with open(path) as f:
            return f.read()

    def bash(self, path, env):
        r = subprocess.run(["/bin/bash", "--noprofile", "--norc", "-eo", "pipefail", path],
                           env=env, cwd=self.workdir, capture_output=True, text=True, timeout=600)
        return r.returncode, r.stdout, r.stderr


class DockerHost:
    """Runs the steps in a container as USER (the runner), in its workspace."""

    def __init__(self, container, user, workdir):
        self.container, self.user, self.workdir = container, user, workdir

    def _exec(self, args, **kw):
        return subprocess.run(["docker", "exec"] + args, capture_output=True, text=True,
                              timeout=900, **kw)

    def write(self, path, text):
        r = self._exec(["-i", "-u", self.user, self.container, "sh", "-c",
                        'mkdir -p "$(dirname "$1")" && cat >"$1"', "sh", path], input=text)
        if r.returncode != 0:
            raise RuntimeError(f"writing {path} in {self.container}: {r.stderr}")

    def read(self, path):
        r = self._exec(["-u", self.user, self.container, "cat", path])
        if r.returncode != 0:
            raise RuntimeError(f"reading {path} in {self.container}: {r.stderr}")
        return r.stdout

    def bash(self, path, env):
        args = ["-u", self.user, "-w", self.workdir]
        for k, v in env.items():
            args += ["-e", f"{k}={v}"]
        r = self._exec(args + [self.container, "bash", "--noprofile", "--norc", "-eo", "pipefail",
                               path])
        return r.returncode, r.stdout, r.stderr


class StepRun:
    def __init__(self, sid, name, ran, rc=None, stdout="", stderr="", outputs=None):
        self.id, self.name, self.ran, self.rc = sid, name, ran, rc
        self.stdout, self.stderr, self.outputs = stdout, stderr, outputs or {}

    def __repr__(self):
        return (f"<step {self.id} ran={self.ran} rc={self.rc}\n--- stdout\n{self.stdout}"
                f"--- stderr\n{self.stderr}>")


class ActionRun:
    def __init__(self, steps, outputs, rc):
        self.steps, self.outputs, self.rc = steps, outputs, rc

    def step(self, sid):
        return next(s for s in self.steps if s.id == sid)

    def stdout(self):
        return "".join(s.stdout for s in self.steps)

    def __repr__(self):
        return f"<action rc={self.rc} outputs={self.outputs}\n" + "\n".join(map(repr, self.steps))


def parse_output_file(text):
    """GITHUB_OUTPUT: `name=value` lines and `name<<DELIMITER` ... `DELIMITER` blocks."""
    out, lines, i = {}, text.split("\n"), 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line:
            continue
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delim = line.split("<<", 1)
            value = []
            while i < len(lines) and lines[i] != delim:
                value.append(lines[i])
                i += 1
            i += 1
            out[name] = "\n".join(value)
        else:
            name, value = line.split("=", 1)
            out[name] = value
    return out


class Context:
    def __init__(self, inputs, github, runner):
        self.data = {"inputs": inputs, "github": github, "runner": runner, "steps": {}}

    def value(self, path):
        if not PATH.match(path):
            raise ValueError(f"expression form not handled by composite.py: {path!r}")
        cur = self.data
        for part in path.split("."):
            if not isinstance(cur, dict):
                return ""
            cur = cur.get(part, "")
        return "" if isinstance(cur, dict) else str(cur)

    def expand(self, text):
        return EXPR.sub(lambda m: self.value(m.group(1)), str(text))

    def condition(self, text):
        text = str(text).strip()
        m = re.fullmatch(r"\$\{\{\s*(.*?)\s*\}\}", text)
        if m:
            text = m.group(1)
        result = True
        for term in text.split("&&"):
            t = TERM.match(term.strip())
            if not t:
                raise ValueError(f"condition form not handled by composite.py: {term!r}")
            # GitHub compares strings ignoring case.
            same = self.value(t.group(1)).lower() == t.group(3).lower()
            result = result and (same if t.group(2) == "==" else not same)
        return result


def run_action(action_file, inputs, job_env, host, temp, github=None, runner=None,
               uses_outputs=None, rewrite=None):
    """Runs every step of the composite action ACTION_FILE on HOST. job_env: the job's whole
    environment (PATH, HOME, RUNNER_TEMP...); temp: RUNNER_TEMP, where the step scripts and the
    GITHUB_OUTPUT files go; rewrite: {old: new} applied to each step's script (a stand-in's path
    for an absolute one, here only)."""
    with open(action_file) as f:
        action = yaml.safe_load(f)
    values = {}
    for name, spec in (action.get("inputs") or {}).items():
        if name in inputs:
            values[name] = str(inputs[name])
        elif "default" in spec:
            values[name] = str(spec["default"])
        elif spec.get("required"):
            raise ValueError(f"input {name} is required")
    unknown = set(inputs) - set(values)
    if unknown:
        raise ValueError(f"no such inputs: {sorted(unknown)}")
    runner = dict({"temp": temp, "os": "Linux", "arch": "X64"}, **(runner or {}))
    ctx = Context(values, dict(github or {}), runner)
    steps, failed_rc = [], None
    for i, step in enumerate(action["runs"]["steps"]):
        sid = step.get("id") or f"__{i}"
        name = ctx.expand(step.get("name", sid))
        if failed_rc is not None or ("if" in step and not ctx.condition(step["if"])):
            steps.append(StepRun(sid, name, False))
            continue
        if "uses" in step:
            outputs = dict((uses_outputs or {}).get(sid, {}))
            ctx.data["steps"][sid] = {"outputs": outputs}
            steps.append(StepRun(sid, name, True, 0, outputs=outputs))
            continue
        if step.get("shell") != "bash":
            raise ValueError(f"step {sid}: shell {step.get('shell')!r}, not bash")
        script = ctx.expand(step["run"])
        for old, new in (rewrite or {}).items():
            script = script.replace(old, new)
        env = dict(job_env)
        for k, v in (step.get("env") or {}).items():
            env[k] = ctx.expand(v)
        out_file = f"{temp}/_runner_file_commands/set_output_{i}"
        env["GITHUB_OUTPUT"] = out_file
        host.write(out_file, "")
        path = f"{temp}/step_{i}.sh"
        host.write(path, script)
        rc, stdout, stderr = host.bash(path, env)
        outputs = parse_output_file(host.read(out_file))
        ctx.data["steps"][sid] = {"outputs": outputs}
        steps.append(StepRun(sid, name, True, rc, stdout, stderr, outputs))
        if rc != 0:
            failed_rc = rc
    outputs = {k: ctx.expand(v["value"]) for k, v in (action.get("outputs") or {}).items()}
    return ActionRun(steps, outputs, failed_rc or 0)


def pairs(items):
    out = {}
    for item in items:
        k, sep, v = item.partition("=")
        if not sep:
            raise SystemExit(f"composite.py: {item!r} is not K=V")
        out[k] = v
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--action", required=True)
    p.add_argument("--docker", required=True)
    p.add_argument("--user", required=True)
    p.add_argument("--workdir", required=True)
    p.add_argument("--temp", required=True)
    for flag in ("--input", "--env", "--github", "--uses-output"):
        p.add_argument(flag, action="append", default=[])
    a = p.parse_args()
    uses = {}
    for k, v in pairs(a.uses_output).items():
        sid, _, out = k.partition(".")
        uses.setdefault(sid, {})[out] = v
    env = hosted_job_env(a.temp, a.workdir, os.path.dirname(os.path.abspath(a.action)))
    env.update(pairs(a.env))
    run = run_action(a.action, pairs(a.input), env, DockerHost(a.docker, a.user, a.workdir),
                     a.temp, github=pairs(a.github), uses_outputs=uses)
    for s in run.steps:
        if s.ran:
            print(f"::group::{s.name}")
            sys.stdout.write(s.stdout)
            sys.stdout.write(s.stderr)
            print("::endgroup::")
    for s in run.steps:
        print(f"::step {s.id} ran {s.rc}" if s.ran else f"::step {s.id} skipped")
    for k, v in run.outputs.items():
        print(f"::output {k}={v}")
    return run.rc


if __name__ == "__main__":
    sys.exit(main())
