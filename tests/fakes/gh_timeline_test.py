"""Issue 26: a pull request's timeline and events, and a branch's required status checks, on the
fake GitHub. Debian's `gh api`, unchanged, reads GET .../issues/N/timeline and .../issues/N/events
(`--paginate` over the fake's Link headers) as the fake serves them: events (labeled,
review_requested with requested_reviewer and review_requester), comments ("commented") and
submitted reviews ("reviewed", the state in lower case), oldest first; a pending review is not
there. Each answers with an ETag and 304 to If-None-Match while nothing changed, a new item changes
it. Branch protection: GET .../branches/B/protection/required_status_checks is 404 "Branch not
protected" without a rule and GitHub's status-check-policy with one (administrators only); the
branch's own `protected` and `protection` fields say the same to anyone who may read it."""

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


class TimelineAndProtection(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        require(os.access(GH, os.X_OK), "gh is not installed (scripts/deps: deps.d/forge.txt)")
        cls.cadir = tempfile.mkdtemp(prefix="fake-github-ca-")
        cls.ca, cert, key = make_ca(cls.cadir)
        cls.fake = Fake(tls=(cert, key), ca=cls.ca)
        cls.owner = cls.fake.user("octo")  # the repository's owner: its administrator
        cls.token = cls.fake.user("aw-bot")
        cls.maint = cls.fake.user("maint")
        cls.reader = cls.fake.user("reader")
        cls.fake.repo("octo", "web", source_repo(cls.fake.dir))
        for login, role in (("aw-bot", "write"), ("maint", "write"), ("reader", "read")):
            cls.fake.control("PUT", f"repos/octo/web/collaborators/{login}",
                             {"permission": role})
        status, _, pr = cls.fake.call("POST", "/repos/octo/web/pulls",
                                      {"title": "a change", "head": "feature", "base": "main",
                                       "draft": True}, token=cls.token)
        assert status == 201, pr
        cls.pr = pr["number"]

    @classmethod
    def tearDownClass(cls):
        cls.fake.stop()
        shutil.rmtree(cls.cadir, ignore_errors=True)

    def gh(self, *args, token=None):
        home = tempfile.mkdtemp(prefix="gh-home-", dir=self.fake.dir)
        env = clean_env(HOME=home, GH_CONFIG_DIR=os.path.join(home, "gh"),
                        GH_HOST=f"localhost:{self.fake.port}",
                        GH_ENTERPRISE_TOKEN=token or self.token, GH_NO_UPDATE_NOTIFIER="1",
                        GH_PROMPT_DISABLED="1", NO_COLOR="1", SSL_CERT_FILE=self.ca)
        return subprocess.run([GH, "api", *args], env=env, capture_output=True, text=True,
                              timeout=120)

    def get(self, path, token=None, headers=None):
        return self.fake.call("GET", path, token=token or self.token, headers=headers)

    def test_gh_api_reads_the_timeline_and_the_events_unchanged_and_etags_answer_304(self):
        n = self.pr
        p = f"repos/octo/web/pulls/{n}"
        self.fake.control("POST", f"repos/octo/web/issues/{n}/labels",
                          {"user": "maint", "labels": ["needs-work"]})
        self.fake.control("POST", f"repos/octo/web/issues/{n}/comments",
                          {"user": "maint", "body": "/awaywork also handle the empty case"})
        self.fake.control("POST", p + "/reviews",
                          {"user": "maint", "event": "REQUEST_CHANGES", "body": "Not yet."})
        self.fake.control("POST", p + "/reviews", {"user": "maint", "body": "still pending"})
        status, _, _ = self.fake.call("POST", f"/{p}/requested_reviewers",
                                      {"reviewers": ["maint"]}, token=self.token)
        self.assertEqual(status, 201)

        timeline = f"repos/octo/web/issues/{n}/timeline"
        r = self.gh("--paginate", timeline + "?per_page=2", "--jq", ".[] | @json")
        self.assertEqual(r.returncode, 0, r.stderr)
        items = [json.loads(line) for line in r.stdout.splitlines()]  # one item a line
        self.assertEqual([x["event"] for x in items],
                         ["labeled", "commented", "reviewed", "review_requested"])
        labeled, commented, reviewed, requested = items
        self.assertEqual((labeled["actor"]["login"], labeled["label"]["name"]),
                         ("maint", "needs-work"))
        self.assertEqual((commented["actor"]["login"], commented["user"]["login"],
                          commented["body"]), ("maint", "maint",
                                               "/awaywork also handle the empty case"))
        self.assertEqual((reviewed["user"]["login"], reviewed["state"], reviewed["body"]),
                         ("maint", "changes_requested", "Not yet."))
        self.assertEqual((requested["review_requester"]["login"],
                          requested["requested_reviewer"]["login"]), ("aw-bot", "maint"))
        for x in items:
            self.assertIsInstance(x["id"], int)
            self.assertIn("created_at" if x["event"] != "reviewed" else "submitted_at", x)
        # Unchanged: what gh read is what the fake serves (at GHES's /api/v3, to gh's host name).
        status, _, direct = self.get(f"/api/v3/{timeline}?per_page=100",
                                     headers={"Host": f"localhost:{self.fake.port}"})
        self.assertEqual((status, direct), (200, items))

        r = self.gh(f"repos/octo/web/issues/{n}/events")
        self.assertEqual(r.returncode, 0, r.stderr)
        events = json.loads(r.stdout)
        self.assertEqual([(e["event"], e["actor"]["login"]) for e in events],
                         [("labeled", "maint"), ("review_requested", "aw-bot")])
        self.assertEqual(events[1]["requested_reviewer"]["login"], "maint")

        # ETags: the same answer is 304 to If-None-Match (and not counted); a change is not.
        for path in (f"/{timeline}", f"/repos/octo/web/issues/{n}/events"):
            status, h, _ = self.get(path)
            self.assertEqual(status, 200)
            tag = h["etag"]
            status, _, body = self.get(path, headers={"If-None-Match": tag})
            self.assertEqual((status, body), (304, None), path)
        status, h, _ = self.get(f"/{timeline}")
        self.fake.control("POST", f"repos/octo/web/issues/{n}/comments",
                          {"user": "maint", "body": "one more"})
        status, _, body = self.get(f"/{timeline}", headers={"If-None-Match": h["etag"]})
        self.assertEqual(status, 200)
        self.assertEqual(body[-1]["event"], "commented")
        self.assertEqual(body[-1]["body"], "one more")

    def test_required_status_checks_404_without_protection_and_the_rule_with_it(self):
        path = "/repos/octo/web/branches/main/protection/required_status_checks"
        status, _, body = self.get(path, token=self.owner)
        self.assertEqual((status, body["message"]), (404, "Branch not protected"))
        self.assertIn("documentation_url", body)
        _, _, branch = self.get("/repos/octo/web/branches/main", token=self.reader)
        self.assertFalse(branch["protected"])
        self.assertEqual(branch["protection"]["required_status_checks"]["contexts"], [])

        self.fake.control("PUT", "repos/octo/web/branches/main/protection",
                          {"checks": [{"context": "build", "app_id": 15368}],
                           "contexts": ["lint"], "strict": True})
        try:
            status, _, rule = self.get(path, token=self.owner)
            self.assertEqual(status, 200, rule)
            self.assertEqual(rule["contexts"], ["build", "lint"])
            self.assertEqual(rule["checks"], [{"context": "build", "app_id": 15368},
                                              {"context": "lint", "app_id": None}])
            self.assertTrue(rule["strict"])
            self.assertTrue(rule["url"].endswith(path))
            # GitHub shows a branch's protection rule to its administrators only.
            for token in (self.reader, self.token):
                status, _, _ = self.get(path, token=token)
                self.assertEqual(status, 404)
            # The branch itself, readable by anyone who may read the repository, says it too.
            r = self.gh("repos/octo/web/branches/main", token=self.reader)
            self.assertEqual(r.returncode, 0, r.stderr)
            branch = json.loads(r.stdout)
            self.assertTrue(branch["protected"])
            checks = branch["protection"]["required_status_checks"]
            self.assertEqual((checks["enforcement_level"], checks["contexts"]),
                             ("non_admins", ["build", "lint"]))
            _, _, other = self.get("/repos/octo/web/branches/feature")
            self.assertFalse(other["protected"])
        finally:
            self.fake.control("DELETE", "repos/octo/web/branches/main/protection")
        status, _, body = self.get(path, token=self.owner)
        self.assertEqual((status, body["message"]), (404, "Branch not protected"))


if __name__ == "__main__":
    unittest.main()
