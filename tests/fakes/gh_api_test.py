"""Debian's `gh api` (REST), unchanged, against the fake GitHub in GHES mode (GH_HOST and
GH_ENTERPRISE_TOKEN) over TLS with a test CA that gh's Go TLS trusts through SSL_CERT_FILE:
it reads issues, comments and pull requests, `--paginate` follows the fake's Link headers, and
without the CA it refuses the fake's certificate."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from github_testlib import Fake, clean_env, make_ca, require, source_repo  # noqa: E402

GH = shutil.which("gh") or "/usr/bin/gh"


class GhApiAgainstTheFake(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        require(os.access(GH, os.X_OK), "gh is not installed (scripts/deps: deps.d/forge.txt)")
        cls.cadir = tempfile.mkdtemp(prefix="fake-github-ca-")
        cls.ca, cert, key = make_ca(cls.cadir)
        cls.fake = Fake(tls=(cert, key), ca=cls.ca)
        cls.token = cls.fake.user("alice")
        cls.fake.repo("alice", "r", source_repo(cls.fake.dir, workflow="awaywork.yml"))
        cls.rid = cls.fake.call("GET", "/repos/alice/r", token=cls.token)[2]["id"]
        for n in range(1, 46):
            cls.fake.control("POST", "repos/alice/r/issues", {"title": f"issue {n}"})
        for n in range(1, 6):
            cls.fake.control("POST", "repos/alice/r/issues/1/comments", {"body": f"comment {n}"})
        cls.pr = cls.fake.call("POST", "/repos/alice/r/pulls",
                               {"title": "a change", "head": "feature", "base": "main",
                                "draft": True}, token=cls.token)[2]["number"]

    @classmethod
    def tearDownClass(cls):
        cls.fake.stop()
        shutil.rmtree(cls.cadir, ignore_errors=True)

    def gh(self, *args, ca=True):
        home = tempfile.mkdtemp(prefix="gh-home-", dir=self.fake.dir)
        env = clean_env(HOME=home, GH_CONFIG_DIR=os.path.join(home, "gh"),
                        GH_HOST=f"localhost:{self.fake.port}", GH_ENTERPRISE_TOKEN=self.token,
                        GH_NO_UPDATE_NOTIFIER="1", GH_PROMPT_DISABLED="1", NO_COLOR="1")
        if ca:
            env["SSL_CERT_FILE"] = self.ca
        else:
            env["SSL_CERT_DIR"] = "/nonexistent"  # the system bundle only, without the test CA
        return subprocess.run([GH, "api", *args], env=env, capture_output=True, text=True,
                              timeout=120)

    def since(self):
        return len(self.fake.control("GET", "log"))

    def test_gh_api_paginates_issues_from_the_fake_over_tls(self):
        mark = self.since()
        r = self.gh("--paginate", "repos/alice/r/issues?per_page=20", "--jq", ".[].number")
        self.assertEqual(r.returncode, 0, r.stderr)
        numbers = [int(x) for x in r.stdout.split()]
        self.assertEqual(sorted(numbers), list(range(1, 47)))  # 45 issues and the pull request
        log = self.fake.control("GET", "log")[mark:]
        self.assertEqual([e["path"] for e in log],
                         ["/repos/alice/r/issues"] + [f"/repositories/{self.rid}/issues"] * 2)
        self.assertEqual([e["query"] for e in log[1:]],
                         ["per_page=20&page=2", "per_page=20&page=3"])
        self.assertTrue(all(e["login"] == "alice" and e["user_agent"].startswith("GitHub CLI")
                            for e in log))

    def test_gh_api_reads_comments_page_by_page_and_a_pull_request(self):
        r = self.gh("--paginate", "repos/alice/r/issues/1/comments?per_page=2", "--jq", ".[].body")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines(), [f"comment {n}" for n in range(1, 6)])
        r = self.gh(f"repos/alice/r/pulls/{self.pr}")
        self.assertEqual(r.returncode, 0, r.stderr)
        pr = json.loads(r.stdout)
        self.assertEqual((pr["draft"], pr["head"]["ref"], pr["base"]["ref"]),
                         (True, "feature", "main"))
        r = self.gh("repos/alice/r/pulls", "--jq", ".[].number")
        self.assertEqual(r.stdout.split(), [str(self.pr)])

    def test_gh_api_posts_a_comment(self):
        r = self.gh("repos/alice/r/issues/2/comments", "-f", "body=from gh")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout)["user"]["login"], "alice")
        _, _, comments = self.fake.call("GET", "/repos/alice/r/issues/2/comments",
                                        token=self.token)
        self.assertEqual([c["body"] for c in comments], ["from gh"])

    def test_gh_api_dispatches_a_workflow_and_reads_its_runs(self):
        url = "repos/alice/r/actions/workflows/awaywork.yml/dispatches"
        r = self.gh("-X", "POST", url, "-f", "ref=main", "-f", "inputs[issue]=3")
        self.assertEqual((r.returncode, r.stdout), (0, ""), r.stderr)  # 204: no body
        r = self.gh("-X", "POST", url, "-f", "ref=main", "-f", "inputs[issue]=4",
                    "-F", "return_run_details=true")
        self.assertEqual(r.returncode, 0, r.stderr)
        rid = json.loads(r.stdout)["workflow_run_id"]
        r = self.gh(f"repos/alice/r/actions/runs/{rid}", "--jq", ".status")
        self.assertEqual((r.returncode, r.stdout.strip()), (0, "queued"), r.stderr)
        r = self.gh("repos/alice/r/actions/runs?event=workflow_dispatch", "--jq",
                    ".workflow_runs | length")
        self.assertEqual(r.stdout.strip(), "2", r.stderr)
        runs = self.fake.call("GET", "/repos/alice/r/actions/runs", token=self.token)[2]
        got = {x["id"]: x for x in runs["workflow_runs"]}
        self.assertIn(rid, got)
        r = self.gh("-X", "POST", url, "-f", "ref=nope")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("No ref found for: nope", r.stderr)

    def test_gh_refuses_the_fake_without_the_test_ca(self):
        r = self.gh("repos/alice/r", ca=False)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("certificate", r.stderr)


if __name__ == "__main__":
    unittest.main()
