"""action.yml and the reusable workflow (.github/workflows/awaywork.yml), checked two ways:
@action-validator/cli (npm, pinned, installed by scripts/action-validator) validates both
against GitHub's schemas, and refuses broken copies (positive controls); and the security shape
the design asks for is read from the YAML: the three jobs' permissions, which secrets each job
sees, the apply job gated on the check job, every job using the action at the pinned commit.
And the action's steps are run as GitHub runs them (composite.py: `bash -eo pipefail`, the job's
environment of a hosted runner, its real PATH), with stand-ins for sudo, the build and awaywork."""

import copy
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

import yaml

import composite

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
ACTION = os.path.join(ROOT, "action.yml")
WORKFLOW = os.path.join(ROOT, ".github", "workflows", "awaywork.yml")


def skip_or_fail(why):
    if os.environ.get("CI") == "true":
        raise AssertionError(why)
    raise unittest.SkipTest(why)


def load(path):
    with open(path) as f:
        # YAML 1.1 reads the key `on` as True; GitHub reads it as "on".
        return {("on" if k is True else k): v for k, v in yaml.safe_load(f).items()}


class ActionValidator(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        r = subprocess.run([os.path.join(ROOT, "scripts", "action-validator")],
                           capture_output=True, text=True, timeout=600)
        if r.returncode != 0:
            skip_or_fail("scripts/action-validator could not install @action-validator/cli "
                         f"from npm: {r.stderr.strip()[-500:]}")
        cls.bin = r.stdout.strip().splitlines()[-1]

    def validate(self, path):
        return subprocess.run([self.bin, path], capture_output=True, text=True, timeout=120)

    def broken_copy(self, path, edit):
        doc = load(path)
        edit(doc)
        d = tempfile.mkdtemp(prefix="aw-action-")
        out = os.path.join(d, os.path.basename(path))
        with open(out, "w") as f:
            yaml.safe_dump(doc, f, sort_keys=False)
        return out

    def test_action_yml_is_a_valid_composite_action(self):
        r = self.validate(ACTION)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_the_reusable_workflow_is_valid(self):
        r = self.validate(WORKFLOW)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_the_validator_refuses_broken_copies(self):
        def no_shell(doc):
            del doc["runs"]["steps"][0]["shell"]
        r = self.validate(self.broken_copy(ACTION, no_shell))
        self.assertNotEqual(r.returncode, 0, "a composite step without shell passed")

        def bad_permission(doc):
            doc["jobs"]["check"]["permissions"]["contents"] = "writ"
        r = self.validate(self.broken_copy(WORKFLOW, bad_permission))
        self.assertNotEqual(r.returncode, 0, "a permission 'writ' passed")


class WorkflowShape(unittest.TestCase):
    def setUp(self):
        self.wf = load(WORKFLOW)
        self.jobs = self.wf["jobs"]

    def text_of(self, job):
        return yaml.safe_dump(self.jobs[job])

    def test_it_is_reusable_and_grants_nothing_by_default(self):
        self.assertIn("workflow_call", self.wf["on"])
        self.assertEqual(self.wf["permissions"], {})
        self.assertEqual(list(self.jobs), ["agent", "check", "apply"])

    def test_each_job_has_exactly_its_permissions(self):
        # Read only: a follow-up's agent job reads the pull request, its reviews and failing
        # checks (check runs, statuses, Actions job logs).
        self.assertEqual(self.jobs["agent"]["permissions"],
                         {"contents": "read", "issues": "read", "pull-requests": "read",
                          "checks": "read", "statuses": "read", "actions": "read"})
        self.assertEqual(self.jobs["check"]["permissions"], {"contents": "read"})
        self.assertEqual(self.jobs["apply"]["permissions"],
                         {"contents": "write", "pull-requests": "write", "issues": "write"})

    def test_only_the_model_key_reaches_the_agent_job_and_no_secret_the_check_job(self):
        self.assertEqual(list(self.wf["on"]["workflow_call"]["secrets"]), ["model-key"])
        self.assertIn("secrets.model-key", self.text_of("agent"))
        self.assertNotIn("secrets.", self.text_of("check"))
        self.assertNotIn("github.token", self.text_of("check"))
        self.assertNotIn("secrets.", self.text_of("apply"))

    def test_the_apply_job_waits_for_an_accepted_check_and_runs_nothing_of_the_agent(self):
        self.assertEqual(self.jobs["check"]["needs"], "agent")
        self.assertIn("check", self.jobs["apply"]["needs"])
        self.assertIn("needs.check.outputs.verdict == 'accepted'", self.jobs["apply"]["if"])
        steps = {s.get("id"): s for s in self.jobs["apply"]["steps"]}
        self.assertEqual(steps["apply"]["with"]["step"], "apply")
        for s in self.jobs["apply"]["steps"]:
            self.assertNotIn("run", s, "the apply job runs a shell step of its own")

    def test_a_follow_ups_pull_request_reaches_the_agent_jobs_run(self):
        # What watch with run_on: actions dispatches for a follow-up (docs/scale-out.md).
        inputs = self.wf["on"]["workflow_call"]["inputs"]
        self.assertEqual(inputs["pull-request"]["type"], "string")
        self.assertFalse(inputs["pull-request"]["required"])
        steps = {s.get("id"): s for s in self.jobs["agent"]["steps"]}
        self.assertEqual(steps["unit"]["with"]["pull-request"], "${{ inputs.pull-request }}")
        self.assertIn("pull-request", load(ACTION)["inputs"])

    def test_the_artifact_is_named_after_the_unit(self):
        # watch (run_on: actions) takes the apply job's pull request as awaywork's own only when
        # the run it dispatched holds the artifact awaywork-unit-UNIT of the unit the pull
        # request's marker names (issue 26; src/watch/watcher_actions_own.cc).
        def artifact_steps(job, action):
            return [s for s in self.jobs[job]["steps"] if s.get("uses", "").startswith(action)]
        up = artifact_steps("agent", "actions/upload-artifact@")
        self.assertEqual(len(up), 1)
        self.assertEqual(up[0]["with"]["name"], "awaywork-unit-${{ steps.unit.outputs.unit }}")
        for job in ("check", "apply"):
            down = artifact_steps(job, "actions/download-artifact@")
            self.assertEqual(len(down), 1, job)
            self.assertEqual(down[0]["with"]["name"],
                             "awaywork-unit-${{ needs.agent.outputs.unit }}", job)
        self.assertIn("agent", self.jobs["apply"]["needs"])
        # awaywork-unit-UNIT is uploaded whatever the run's end: the proof that the run opened a
        # pull request is a second artifact, awaywork-pull-UNIT-N, the apply job's, uploaded only
        # when the action named it (apply opened N now) and only for an issue, never a follow-up.
        proof = artifact_steps("apply", "actions/upload-artifact@")
        self.assertEqual(len(proof), 1)
        self.assertEqual(proof[0]["with"]["name"], "${{ steps.apply.outputs.pull-artifact }}")
        self.assertEqual(proof[0]["if"], "inputs.pull-request == '' && "
                         "steps.apply.outputs.pull-artifact != ''")
        self.assertIn("pull-artifact", load(ACTION)["outputs"])

    def test_every_job_uses_the_action_at_the_pinned_commit(self):
        for name, job in self.jobs.items():
            fetch = [s for s in job["steps"] if s.get("with", {}).get("path") == ".awaywork-action"]
            self.assertEqual(len(fetch), 1, name)
            self.assertEqual(fetch[0]["with"]["ref"], "${{ inputs.awaywork-ref }}", name)
            self.assertFalse(fetch[0]["with"]["persist-credentials"], name)
            uses = [s for s in job["steps"] if s.get("uses") == "./.awaywork-action"]
            self.assertEqual(len(uses), 1, name)
            self.assertEqual(uses[0]["with"]["commit"], "${{ inputs.awaywork-ref }}", name)

    def test_the_action_refuses_an_unpinned_ref_and_locks_the_runner(self):
        action = load(ACTION)
        self.assertEqual(action["runs"]["using"], "composite")
        steps = action["runs"]["steps"]
        self.assertIn("{40}", steps[0]["run"])
        lock = [s for s in steps if "host lock" in s.get("run", "")]
        self.assertEqual(len(lock), 1)
        run = lock[0]["run"]
        self.assertIn("sudo --preserve-env=GITHUB_ACTIONS,RUNNER_ENVIRONMENT", run)
        self.assertIn("/usr/local/bin/awaywork ${CONFIG:+--config \"$CONFIG\"} host lock", run)
        cache = [s for s in steps if str(s.get("uses", "")).startswith("actions/cache@")]
        self.assertIn("steps.commit.outputs.sha", cache[0]["with"]["key"])
        for out in ("unit", "state", "verdict", "branch", "pull-request"):
            self.assertIn(out, action["outputs"])

    def test_every_expression_of_the_action_is_one_github_can_read(self):
        # GitHub reads every `${{ ... }}` of action.yml, in run scripts too (a backslash before it
        # escapes nothing), when it loads the action; a composite action has no secrets context.
        with open(ACTION) as f:
            text = f.read()
        allowed = {"inputs", "github", "runner", "steps", "env", "job", "strategy", "matrix"}
        found = re.findall(r"\$\{\{(.*?)\}\}", text)
        self.assertGreater(len(found), 10)
        for expr in found:
            expr = expr.strip()
            self.assertRegex(expr, r"^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)*$",
                             "an expression GitHub cannot parse")
            self.assertIn(expr.split(".")[0], allowed, f"${{{{ {expr} }}}}: no such context here")


# Stand-ins, each logging what it was asked to LOG/NAME. sudo is a hosted runner's: passwordless
# until awaywork's lock takes it away (then "a password is required", as there).
SUDO = r"""#!/bin/bash
echo "$*" >>"$STANDIN_DIR/log/sudo"
if [ -e "$STANDIN_DIR/locked" ]; then echo "sudo: a password is required" >&2; exit 1; fi
while [ $# -gt 0 ] && [ "${1#-}" != "$1" ]; do shift; done
case " $* " in
  *" host lock "*) "$@" && touch "$STANDIN_DIR/locked"; exit ;;
esac
exec "$@"
"""
DEPS = r"""#!/bin/bash
echo "deps $*" >>"$STANDIN_DIR/log/deps"
"""
CMAKE = r"""#!/bin/bash
echo "cmake $*" >>"$STANDIN_DIR/log/build"
while [ $# -gt 0 ]; do [ "$1" = -B ] && mkdir -p "$2"; shift; done
"""
# The build tree as the real build leaves it (BUILD_OUT: where the executables go), with other
# executables beside it that must not be installed.
NINJA = r"""#!/bin/bash
echo "ninja $*" >>"$STANDIN_DIR/log/build"
while [ $# -gt 0 ]; do [ "$1" = -C ] && dir=$2; shift; done
mkdir -p "$dir/$BUILD_OUT" "$dir/tests/unit" "$dir/$BUILD_OUT/CMakeFiles"
install -m 755 "$STANDIN_DIR/awaywork" "$dir/$BUILD_OUT/awaywork"
for p in $STATIC_PROGRAMS; do
  printf '#!/bin/sh\necho %s\n' "$p" >"$dir/$BUILD_OUT/$p" && chmod 755 "$dir/$BUILD_OUT/$p"
done
printf '#!/bin/sh\n' >"$dir/tests/unit/unit_test"; chmod 755 "$dir/tests/unit/unit_test"
: >"$dir/$BUILD_OUT/CMakeFiles/main.cc.o"
"""
AWAYWORK = r"""#!/bin/bash
echo "awaywork $*" >>"$STANDIN_DIR/log/awaywork"
while [ $# -gt 0 ]; do
  case $1 in
    --version) echo "awaywork 0.1.0 (commit $STANDIN_COMMIT)"; exit 0 ;;
    --config) shift 2 ;;
    --json) shift ;;
    *) break ;;
  esac
done
case $1 in
  host) echo "nothing changed: the host was already locked" ;;
  secret) cat >/dev/null ;;
  run)
    printf '%s\n' "$PATH" >"$STANDIN_DIR/log/run.path"
    printf '{"id": "u1", "state": "%s", "verdict": "accepted",\n' "$STANDIN_STATE"
    printf ' "branch": "aw/u1", "pull_request": ""}\n'
    exit "$STANDIN_RC" ;;
  check)
    printf '{"accepted": false, "error": "stand-in refusal",\n'
    printf ' "artifact": {"unit": "u1", "manifest_sha256": "ab"}}\n'
    exit "$STANDIN_RC" ;;
  apply)
    printf '{"id": "u1", "branch": "aw/u1", "pull_request": "https://github.com/o/r/pull/1",\n'
    printf ' "posted": [%s], "already": []}\n' "$STANDIN_POSTED"
    exit "$STANDIN_RC" ;;
  *) echo "stand-in awaywork: $*?" >&2; exit 2 ;;
esac
"""


def build_facts():
    """What the real build makes: the static programs (src/isolate/CMakeLists.txt) and the
    folder of the build tree where they and awaywork are put."""
    with open(os.path.join(ROOT, "src", "isolate", "CMakeLists.txt")) as f:
        text = f.read()
    names = re.findall(r"^aw_static_program\((\w+)", text, re.M)
    out = re.search(r"RUNTIME_OUTPUT_DIRECTORY \$\{PROJECT_BINARY_DIR\}/(\S+)\)", text).group(1)
    return names, out


class ActionSteps(unittest.TestCase):
    """action.yml's steps for real, here: /usr/local/ is a folder of the test's (rewritten in the
    scripts), sudo, cmake, ninja, scripts/deps and awaywork are stand-ins."""

    COMMIT = "0123456789abcdef0123456789abcdef01234567"

    @classmethod
    def setUpClass(cls):
        if not shutil.which("jq"):
            skip_or_fail("jq is missing (the action reads awaywork's JSON with it, as runners do)")
        cls.static_programs, cls.build_out = build_facts()

    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="aw-action-run-")
        self.addCleanup(shutil.rmtree, self.root, True)
        self.dir = os.path.join(self.root, "standin")
        for d in ("bin", "action/scripts", "standin/log", "usr/local/bin", "temp", "work"):
            os.makedirs(os.path.join(self.root, d))
        for path, text in (("bin/sudo", SUDO), ("bin/cmake", CMAKE), ("bin/ninja", NINJA),
                           ("action/scripts/deps", DEPS), ("standin/awaywork", AWAYWORK)):
            with open(os.path.join(self.root, path), "w") as f:
                f.write(text)
            os.chmod(os.path.join(self.root, path), 0o755)
        self.temp = os.path.join(self.root, "temp")
        self.env = composite.hosted_job_env(self.temp, os.path.join(self.root, "work"),
                                            os.path.join(self.root, "action"),
                                            path=os.path.join(self.root, "bin") + ":" +
                                            composite.HOSTED_PATH)
        self.env.update({"STANDIN_DIR": self.dir, "STANDIN_COMMIT": self.COMMIT[:12],
                         "STANDIN_RC": "0", "STANDIN_STATE": "done", "STANDIN_POSTED": "",
                         "STATIC_PROGRAMS": " ".join(self.static_programs),
                         "BUILD_OUT": self.build_out})
        self.usr_local = os.path.join(self.root, "usr", "local")

    def run_action(self, cache_hit="false", **inputs):
        inputs.setdefault("config", "awaywork.yml")
        with open(ACTION) as f:
            text = f.read()
        self.assertIn("/usr/local/", text)  # what the rewrite below stands in for
        return composite.run_action(
            ACTION, inputs, self.env, composite.LocalHost(os.path.join(self.root, "work")),
            self.temp, github={"action_ref": self.COMMIT, "action_repository": "o/awaywork"},
            uses_outputs={"cache": {"cache-hit": cache_hit}},
            rewrite={"/usr/local/": self.usr_local + "/"})

    def log(self, name):
        path = os.path.join(self.dir, "log", name)
        if not os.path.exists(path):
            return ""
        with open(path) as f:
            return f.read()

    def test_the_unit_runs_with_the_hosted_path_but_the_closed_home(self):
        run = self.run_action(step="run", repo="web", prompt="hello")
        self.assertEqual(run.rc, 0, run)
        self.assertEqual(run.outputs["state"], "done", run)
        home = [d for d in composite.HOSTED_PATH.split(":") if d.startswith("/home/runner/")]
        self.assertEqual(len(home), 4)
        seen = self.log("run.path").strip().split(":")
        want = [d for d in self.env["PATH"].split(":") if not d.startswith("/home/runner/")]
        self.assertEqual(seen, want, "folders under the closed home go, the rest stay, in order")

    def test_the_build_installs_the_static_programs_where_awaywork_looks(self):
        self.assertLessEqual({"aw_bridge_static", "aw_probe_static", "aw_mcp_relay_static"},
                            set(self.static_programs))
        # Where an installed awaywork looks for them: beside itself, then ../libexec/awaywork/.
        with open(os.path.join(ROOT, "src", "isolate", "static_program.cc")) as f:
            self.assertIn('dir + "/../libexec/awaywork/" + name', f.read())
        run = self.run_action(step="run", repo="web", prompt="hello")
        self.assertEqual(run.rc, 0, run)
        self.assertIn("ninja", self.log("build"), "the build did not run")
        bindir = os.path.join(self.usr_local, "bin")
        self.assertTrue(os.access(os.path.join(bindir, "awaywork"), os.X_OK), run)
        libexec = os.path.join(bindir, "..", "libexec", "awaywork")
        for name in self.static_programs:
            path = os.path.join(libexec, name)
            self.assertTrue(os.access(path, os.X_OK), f"{name} is not installed at {path}: {run}")
        self.assertEqual(sorted(os.listdir(libexec)), sorted(self.static_programs),
                         "something else of the build tree was installed")

    # GitHub runs `shell: bash` as `bash -eo pipefail`: awaywork's exit status is the step's, and
    # its outputs are written all the same (the run's state, the check's verdict).
    def test_a_failed_unit_keeps_its_outputs(self):
        self.env.update({"STANDIN_RC": "3", "STANDIN_STATE": "failed"})
        run = self.run_action(step="run", repo="web", prompt="hello")
        self.assertEqual(run.rc, 3, run)
        self.assertEqual((run.outputs["unit"], run.outputs["state"]), ("u1", "failed"), run)
        self.assertIn('"state": "failed"', run.step("unit").stdout, "awaywork's JSON is not shown")

    def test_a_refused_check_keeps_its_outputs(self):
        self.env["STANDIN_RC"] = "5"
        run = self.run_action(step="check", lock="false", artifact=self.temp + "/artifact")
        self.assertEqual(run.rc, 5, run)
        self.assertEqual((run.outputs["unit"], run.outputs["verdict"]), ("u1", "refused"), run)
        self.assertEqual(run.outputs["manifest-sha256"], "ab", run)

    # The first use locks the runner, which takes its sudo away; actions/cache saves only at the
    # job's end, so the second use misses the cache again.
    def test_used_twice_in_one_job(self):
        self.env["MODEL_KEY"] = "sk-ant-api03-" + "Fake0" * 19 + "-AAAAAAAA"
        first = self.run_action(step="run", repo="web", prompt="one", secrets="MODEL_KEY")
        self.assertEqual(first.rc, 0, first)
        self.assertTrue(os.path.exists(os.path.join(self.dir, "locked")), "no lock through sudo")
        built, sudo = self.log("build"), self.log("sudo")
        second = self.run_action(step="run", repo="web", prompt="two", secrets="MODEL_KEY")
        self.assertEqual(second.rc, 0, second)
        self.assertEqual(second.outputs["state"], "done", second)
        self.assertEqual(self.log("build"), built, "the second use built again")
        again = self.log("sudo")[len(sudo):].splitlines()
        self.assertEqual([c for c in again if c != "-n true"], [],
                         "the second use asked sudo for more than whether it has it")
        self.assertEqual(self.log("awaywork").count("host lock"), 1, self.log("awaywork"))
        self.assertEqual(self.log("awaywork").count(" run --json"), 2)

    def test_a_second_use_at_another_commit_says_why_it_cannot(self):
        first = self.run_action(step="run", repo="web", prompt="one")
        self.assertEqual(first.rc, 0, first)
        self.COMMIT = "fedcba9876543210fedcba9876543210fedcba98"
        second = self.run_action(step="run", repo="web", prompt="two")
        self.assertNotEqual(second.rc, 0, second)
        err = "".join(s.stdout + s.stderr for s in second.steps)
        self.assertIn("locked by an earlier awaywork step of this job", err)
        self.assertNotIn("a password is required", err)

    # A follow-up (issue 26): the agent job's step runs `run --pr REPO#N`; anything but a number,
    # or both an issue and a pull request, is refused before awaywork runs.
    def test_a_pull_request_runs_a_follow_up(self):
        run = self.run_action(step="run", repo="web", artifact=self.temp + "/art",
                              **{"pull-request": "9"})
        self.assertEqual(run.rc, 0, run)
        self.assertIn("run --json --pr web#9 --artifact", self.log("awaywork"))
        self.assertNotIn("--issue", self.log("awaywork"))

    def test_a_pull_request_that_is_not_a_number_or_beside_an_issue_is_refused(self):
        for inputs in ({"pull-request": "9 --base x"}, {"pull-request": "9", "issue": "3"}):
            before = self.log("awaywork").count(" run ")
            run = self.run_action(step="run", repo="web", **inputs)
            self.assertEqual(run.rc, 2, run)
            self.assertEqual(self.log("awaywork").count(" run "), before, inputs)

    def test_a_failed_apply_keeps_its_outputs(self):
        self.env["STANDIN_RC"] = "1"
        run = self.run_action(step="apply", lock="false", artifact=self.temp + "/artifact")
        self.assertEqual(run.rc, 1, run)
        self.assertEqual((run.outputs["unit"], run.outputs["branch"]), ("u1", "aw/u1"), run)

    # The pull request apply opened now names the proof watch asks for (awaywork-pull-UNIT-N, a
    # folder to upload under it); one found by its marker (a retried apply), none at all, or a
    # failed apply names nothing.
    def test_an_opened_pull_request_names_its_proof_and_nothing_else_does(self):
        self.env["STANDIN_POSTED"] = '"pull", "comment-1"'
        run = self.run_action(step="apply", lock="false", artifact=self.temp + "/artifact")
        self.assertEqual(run.rc, 0, run)
        self.assertEqual(run.outputs["pull-opened"], "1", run)
        self.assertEqual(run.outputs["pull-artifact"], "awaywork-pull-u1-1", run)
        with open(os.path.join(self.temp, "awaywork-pull", "pull-request")) as f:
            self.assertEqual(f.read(), "https://github.com/o/r/pull/1\n")
        shutil.rmtree(os.path.join(self.temp, "awaywork-pull"))
        for posted, rc in (('"comment-1"', "0"), ("", "0"), ('"pull"', "1")):
            self.env["STANDIN_POSTED"], self.env["STANDIN_RC"] = posted, rc
            run = self.run_action(step="apply", lock="false", artifact=self.temp + "/artifact")
            self.assertEqual(run.rc, int(rc), run)
            self.assertEqual(run.outputs.get("pull-artifact", ""), "", (posted, rc, run))
            self.assertFalse(os.path.exists(os.path.join(self.temp, "awaywork-pull")), posted)


if __name__ == "__main__":
    unittest.main()
