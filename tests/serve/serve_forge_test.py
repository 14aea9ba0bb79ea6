"""`awaywork serve` with a forge: a unit submitted from an issue of the fake GitHub
(tests/fakes/fake_github.py, a test server standing in for GitHub's REST API and git over HTTP)
runs through `run --issue`, the listing filters by issue, and /metrics counts the forge's
requests and rate limit. GET /api/v1/watcher follows a real `awaywork watch` on the same state
folder: its polls and rate limit, its claim while the unit runs, and that it stopped. A unit
submitted from an issue of the fake GitLab (tests/fakes/fake_gitlab.py, a nested group's project)
publishes a draft merge request that serve names as one, with its !N, and its GitLab requests
are in /metrics' forge series."""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../fakes"))
from github_testlib import Fake, git  # noqa: E402
from gitlab_testlib import Fake as GitLabFake  # noqa: E402
from serve_http_test import get_json, request  # noqa: E402
from world import BINARY, SOURCE, World, wait_for  # noqa: E402

# A fake token shaped like a real one; valid nowhere. It must never come out of the API.
FORGE_TOKEN = "ghp_" + "FAKEserveFORGE0123456789abcdefABCDEFGH"[:36]


def forge_world(cls):
    """A fake GitHub holding octo/web (the demo repository) and one issue, and a World on it."""
    cls.fake = Fake()
    cls.fake.user("octo")
    cls.fake.control("POST", "users", {"login": "aw-bot", "type": "User",
                                       "token": FORGE_TOKEN})
    src = os.path.join(cls.fake.dir, "src")
    shutil.copytree(os.path.join(SOURCE, "examples/demo-repo"), src)
    git("init", "-q", "-b", "main", src)
    git("add", "-A", cwd=src)
    git("commit", "-qm", "initial", cwd=src)
    cls.fake.repo("octo", "web", source=src)
    cls.fake.control("PUT", "repos/octo/web/collaborators/aw-bot", {"permission": "write"})
    cls.issue = cls.fake.control("POST", "repos/octo/web/issues", {
        "user": "octo", "title": "Fix the typo in greet.sh",
        "body": "greet.sh prints Helo; it should say Hello."})["number"]
    cls.w = World(forge=(cls.fake.api_url, FORGE_TOKEN))


class ServeForge(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        forge_world(cls)
        cls.w.serve()

    @classmethod
    def tearDownClass(cls):
        cls.w.close()
        cls.fake.stop()

    def submit(self, body):
        return request(self.w.port, "POST", "/api/v1/units", token=self.w.token,
                       body=json.dumps(body).encode())

    def test_a_unit_from_an_issue_runs_and_is_listed_under_its_issue(self):
        status, _, body = self.submit({"issue": f"web#{self.issue}"})
        self.assertEqual(status, 202, body)
        uid = json.loads(body)["id"]
        u = wait_for(lambda: (lambda u: u if u["state"] != "running" else None)(
            get_json(self.w, f"/api/v1/units/{uid}")[1]), timeout=120)
        self.assertEqual(u["state"], "done", u)
        self.assertEqual(u["issue"]["number"], self.issue)
        self.assertEqual(u["issue"]["repo"], "octo/web")
        self.assertEqual(u["issue"]["title"], "Fix the typo in greet.sh")
        self.assertRegex(u["issue"]["url"], rf"^http://.*/octo/web/issues/{self.issue}$")
        self.assertIn("Helo", u["prompt"])  # the task was built from the issue's text
        # The draft pull request it opened (issue 25 item 6): the record's URL and its number.
        pull = u["published"]["pull_request"]
        self.assertTrue(u["pull_request"], u)
        self.assertEqual(pull["url"], u["pull_request"])
        self.assertRegex(pull["url"], rf"^http://.*/octo/web/pull/{pull['number']}$")
        self.assertGreater(pull["number"], 0)
        _, page = get_json(self.w, f"/api/v1/units?issue={self.issue}")
        self.assertEqual([x["id"] for x in page["units"]], [uid])
        self.assertEqual(page["units"][0]["issue"]["number"], self.issue)
        _, page = get_json(self.w, f"/api/v1/units?issue={self.issue + 1}")
        self.assertEqual(page["units"], [])
        self.assertEqual(get_json(self.w, "/api/v1/units?issue=x")[0], 400)
        status, _, metrics = request(self.w.port, "GET", "/metrics", token=self.w.token)
        text = metrics.decode()
        m = re.search(r'awaywork_forge_requests_total\{api="([^"]+)"\} (\d+)', text)
        self.assertTrue(m, text)
        self.assertEqual(m.group(1), self.fake.api_url)
        self.assertGreater(int(m.group(2)), 3)
        self.assertRegex(text, r'awaywork_forge_rate_limit_remaining\{api="[^"]+"\} \d+')
        for body in (json.dumps(u), text):
            self.assertNotIn(FORGE_TOKEN, body)

    def test_an_issue_submission_is_checked_before_anything_runs(self):
        for body, want in (({"issue": "web"}, "NAME#N"), ({"issue": "web#0"}, "NAME#N"),
                           ({"issue": "web#1", "prompt": "x"}, "not both"),
                           ({"issue": "nope#1"}, "forge repositories: web (octo/web)")):
            status, _, out = self.submit(body)
            self.assertEqual(status, 400, out)
            self.assertIn(want, json.loads(out)["error"])


class ServeWatcher(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        forge_world(cls)
        with open(cls.w.config, "a") as f:
            f.write("watch:\n  poll_seconds: 5\n  repos:\n    web: {}\n")
        cls.w.serve()
        cls.owner = cls.fake.user("octo-owner")  # a second login of the fake; only its token
        cls.fake.control("PUT", "repos/octo/web/collaborators/octo-owner",
                         {"permission": "admin"})

    @classmethod
    def tearDownClass(cls):
        cls.w.close()
        cls.fake.stop()

    def watcher(self):
        status, view = get_json(self.w, "/api/v1/watcher")
        self.assertEqual(status, 200, view)
        return view

    def test_the_watcher_route_follows_a_real_watch_from_its_first_poll_to_its_stop(self):
        before = self.watcher()
        self.assertFalse(before["watching"])
        self.assertIn("has not run", before["message"])
        status, _, out = self.fake.call("POST", f"/repos/octo/web/issues/{self.issue}/labels",
                                        {"labels": ["awaywork"]}, token=self.owner)
        self.assertEqual(status, 200, out)
        log = os.path.join(self.w.root, "watch.jsonl")
        watch = subprocess.Popen([BINARY, "--config", self.w.config, "watch", "--log", log],
                                 env=self.w.env, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
        try:
            claimed = wait_for(lambda: (lambda v: v if v["watching"] and v["claims"] else None)(
                self.watcher()), timeout=60, step=0.1)
            claim = claimed["claims"][0]
            self.assertEqual((claim["repo"], claim["issue"]), ("web", self.issue), claimed)
            self.assertIn(claim["phase"], ("claiming", "running"))
            self.assertGreater(claim["comment"], 0)
            self.assertIn("@octo-owner", claim["trigger"])
            repo = claimed["repos"][0]
            self.assertEqual(repo["repo"], "web")
            self.assertEqual(claimed["pid"], watch.pid)
            ended = wait_for(lambda: (lambda v: v if not v["claims"] and v["repos"][0]["polled_at"]
                                      else None)(self.watcher()), timeout=120, step=0.2)
            self.assertEqual(ended["queue"], [])
            self.assertIsInstance(ended["repos"][0]["rate_limit"]["remaining"], int, ended)
            labels = [x["name"] for x in self.fake.call(
                "GET", f"/repos/octo/web/issues/{self.issue}/labels", token=self.owner)[2]]
            self.assertIn("awaywork:done", labels)
        finally:
            watch.send_signal(signal.SIGTERM)
            watch.wait(timeout=60)
        self.assertEqual(watch.returncode, 0)
        after = self.watcher()
        self.assertFalse(after["watching"], after)
        self.assertIsNotNone(after["stopped_at"])
        self.assertIn("stopped", after["message"])
        self.assertNotIn(FORGE_TOKEN, json.dumps(after))


class ServeGitlab(unittest.TestCase):
    """Issue 29 item 8: serve for a GitLab project's units (the demo repository as grp/sub/app)."""

    @classmethod
    def setUpClass(cls):
        cls.fake = GitLabFake()
        token = cls.fake.user("aw-bot")  # the fake's own token for its user; valid nowhere else
        cls.token = token
        src = os.path.join(cls.fake.dir, "src")
        shutil.copytree(os.path.join(SOURCE, "examples/demo-repo"), src)
        git("init", "-q", "-b", "main", src)
        git("add", "-A", cwd=src)
        git("commit", "-qm", "initial", cwd=src)
        cls.fake.project("grp/sub/app", src)
        cls.fake.member("grp", "aw-bot", 30)  # Developer on the group, so on its nested project
        cls.fake.member("grp/sub/app", "maint", 40)
        cls.issue = cls.fake.control("POST", "projects/grp/sub/app/issues", {
            "username": "maint", "title": "Fix the typo in greet.sh",
            "description": "greet.sh prints Helo; it should say Hello."})["iid"]
        cls.w = World(gitlab=(cls.fake.api_url, token))
        cls.w.serve()

    @classmethod
    def tearDownClass(cls):
        cls.w.close()
        cls.fake.stop()

    def submit(self, body):
        return request(self.w.port, "POST", "/api/v1/units", token=self.w.token,
                       body=json.dumps(body).encode())

    def test_a_unit_from_a_gitlab_issue_shows_its_merge_request_as_one(self):
        # The project's path (GROUP/SUB/PROJECT#N) as the form takes it; `run --issue` resolves it.
        status, _, body = self.submit({"issue": f"grp/sub/app#{self.issue}"})
        self.assertEqual(status, 202, body)
        uid = json.loads(body)["id"]
        u = wait_for(lambda: (lambda u: u if u["state"] != "running" else None)(
            get_json(self.w, f"/api/v1/units/{uid}")[1]), timeout=120)
        self.assertEqual(u["state"], "done", u)
        self.assertEqual((u["issue"]["number"], u["issue"]["repo"]), (self.issue, "grp/sub/app"))
        self.assertRegex(u["issue"]["url"], rf"^http://.*/grp/sub/app/-/issues/{self.issue}$")
        mrs = self.fake.control("GET", "projects/grp/sub/app/merge_requests")
        self.assertEqual(len(mrs), 1, mrs)
        # Before: "draft pull request" with no number, /pull/N being all pull_of read.
        self.assertEqual(u["published"]["pull_request"],
                         {"number": mrs[0]["iid"], "kind": "merge_request",
                          "url": mrs[0]["web_url"]})
        _, t = get_json(self.w, f"/api/v1/units/{uid}/thread")
        self.assertEqual(t["thread"]["pull_request"]["kind"], "merge_request")
        self.assertEqual(t["thread"]["pull_request"]["number"], mrs[0]["iid"])
        # The unit's GitLab requests (the issue's reads, the merge request, the notes) are in
        # the forge series, under the GitLab forge's api_url, with the RateLimit-* it last saw.
        # Before: only watch recorded GitLab's usage; run --issue's publisher saved none. (Polled:
        # the runner saves its usage as the unit's run ends, just after the record says done.)
        api = re.escape(self.fake.api_url)

        def gitlab_series():
            status, _, metrics = request(self.w.port, "GET", "/metrics", token=self.w.token)
            self.assertEqual(status, 200)
            text = metrics.decode()
            return text if re.search(rf'awaywork_forge_requests_total\{{api="{api}"\}}',
                                     text) else None

        text = wait_for(gitlab_series, timeout=30, step=0.2)
        m = re.search(rf'awaywork_forge_requests_total\{{api="{api}"\}} (\d+)', text)
        self.assertTrue(m, text)
        self.assertGreater(int(m.group(1)), 3, text)
        self.assertRegex(text, rf'awaywork_forge_rate_limit_limit\{{api="{api}"\}} [1-9]\d*')
        self.assertRegex(text, rf'awaywork_forge_rate_limit_remaining\{{api="{api}"\}} \d+')
        # A 304 is not free on GitLab: the help text no longer says it is for every forge.
        self.assertIn("# HELP awaywork_forge_not_modified_total Conditional requests the forge "
                      "answered 304 (GitHub does not count them against its rate limit; GitLab "
                      "does).", text)
        for out in (json.dumps(u), text):
            self.assertNotIn(self.token, out)

    def test_a_bad_issue_names_the_gitlab_shape(self):
        status, _, out = self.submit({"issue": "grp/sub/app"})
        self.assertEqual(status, 400, out)
        self.assertIn("GROUP/PROJECT#N", json.loads(out)["error"])
        status, _, out = self.submit({"issue": "grp/other#1"})
        self.assertEqual(status, 400, out)
        self.assertIn("forge repositories: app (grp/sub/app)", json.loads(out)["error"])


if __name__ == "__main__":
    unittest.main()
