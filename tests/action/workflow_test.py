"""action.yml and the reusable workflow (.github/workflows/awaywork.yml), checked two ways:
@action-validator/cli (npm, pinned, installed by scripts/action-validator) validates both
against GitHub's schemas, and refuses broken copies (positive controls); and the security shape
the design asks for is read from the YAML: the three jobs' permissions, which secrets each job
sees, the apply job gated on the check job, every job using the action at the pinned commit."""

import copy
import os
import subprocess
import sys
import tempfile
import unittest

import yaml

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
        self.assertEqual(self.jobs["agent"]["permissions"], {"contents": "read", "issues": "read"})
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


if __name__ == "__main__":
    unittest.main()
