"""The fake GitLab's merge request reviewers behave as GitLab's where awaywork depends on them
(issue 29): GET .../merge_requests/:iid/reviewers ([{user, state, created_at}]; a 404 before
GitLab 15.3), a reviewer's review ending in requested_changes (GitLab's system note "requested
changes" as them), and PUT .../merge_requests/:iid with reviewer_ids: a kept reviewer keeps the
state of their review, one taken off and put back is unreviewed again (a new review request, as
awaywork's re-request does it), with GitLab's system notes; a Guest may not edit."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gitlab_testlib import Fake, source_repo  # noqa: E402

PROJECT = "grp/sub/app"
ENC = "grp%2Fsub%2Fapp"


class FakeGitlabReviewers(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.fake = Fake()
        cls.bot = cls.fake.user("aw-bot")
        cls.guest = cls.fake.user("guest")
        cls.fake.project(PROJECT, source_repo(cls.fake.dir))
        cls.fake.member("grp", "aw-bot", 30)
        cls.fake.member(PROJECT, "guest", 10)
        cls.fake.member(PROJECT, "maint", 40)
        cls.fake.member(PROJECT, "dev", 30)

    @classmethod
    def tearDownClass(cls):
        cls.fake.stop()

    def mr(self):
        return self.fake.control("POST", f"projects/{PROJECT}/merge_requests",
                                 {"username": "aw-bot", "source": "feature", "title": "t"})["iid"]

    def reviewers(self, iid):
        s, _, out = self.fake.call("GET", f"/projects/{ENC}/merge_requests/{iid}/reviewers",
                                   token=self.bot)
        self.assertEqual(s, 200, out)
        return {r["user"]["username"]: r for r in out}

    def notes(self, iid):
        return self.fake.call("GET", f"/projects/{ENC}/merge_requests/{iid}/notes?per_page=100",
                              token=self.bot)[2]

    def test_a_review_requesting_changes_shows_in_the_reviewers_api_and_as_a_system_note(self):
        iid = self.mr()
        self.fake.control("POST", f"projects/{PROJECT}/merge_requests/{iid}/reviewers",
                          {"username": "maint", "state": "requested_changes"})
        self.fake.control("POST", f"projects/{PROJECT}/merge_requests/{iid}/reviewers",
                          {"username": "dev", "state": "reviewed"})
        got = self.reviewers(iid)
        self.assertEqual({k: v["state"] for k, v in got.items()},
                         {"maint": "requested_changes", "dev": "reviewed"})
        self.assertEqual(set(got["maint"]), {"user", "state", "created_at"})
        self.assertEqual(set(got["maint"]["user"]),
                         {"id", "username", "name", "state", "locked", "avatar_url", "web_url"})
        said = [(n["author"]["username"], n["body"]) for n in self.notes(iid) if n["system"]]
        self.assertIn(("maint", "requested changes"), said)
        mr = self.fake.call("GET", f"/projects/{ENC}/merge_requests/{iid}", token=self.bot)[2]
        self.assertEqual(sorted(u["username"] for u in mr["reviewers"]), ["dev", "maint"])

    def test_reviewer_ids_keep_a_kept_reviewers_state_and_a_re_added_one_is_unreviewed(self):
        iid = self.mr()
        for who, state in (("maint", "requested_changes"), ("dev", "reviewed")):
            self.fake.control("POST", f"projects/{PROJECT}/merge_requests/{iid}/reviewers",
                              {"username": who, "state": state})
        ids = {k: v["user"]["id"] for k, v in self.reviewers(iid).items()}
        target = f"/projects/{ENC}/merge_requests/{iid}"
        s, _, out = self.fake.call("PUT", target, {"reviewer_ids": [ids["dev"]]}, token=self.bot)
        self.assertEqual(s, 200, out)
        self.assertEqual({k: v["state"] for k, v in self.reviewers(iid).items()},
                         {"dev": "reviewed"})
        s, _, out = self.fake.call("PUT", target, {"reviewer_ids": [ids["dev"], ids["maint"]]},
                                   token=self.bot)
        self.assertEqual((s, [u["username"] for u in out["reviewers"]]), (200, ["dev", "maint"]))
        self.assertEqual({k: v["state"] for k, v in self.reviewers(iid).items()},
                         {"dev": "reviewed", "maint": "unreviewed"})
        said = [n["body"] for n in self.notes(iid)
                if n["system"] and n["author"]["username"] == "aw-bot"]
        self.assertIn("removed review request for @maint", said)
        self.assertIn("requested review from @maint", said)
        # GitLab's form: a comma list; 0 unassigns all.
        s, _, _ = self.fake.request("PUT", "/api/v4" + target, None,
                                    {"PRIVATE-TOKEN": self.bot})
        self.assertEqual(s, 400)  # no parameter at all
        self.assertEqual(self.fake.call("PUT", target, {"reviewer_ids": "0"},
                                        token=self.bot)[0], 200)
        self.assertEqual(self.reviewers(iid), {})
        self.assertEqual(self.fake.call("PUT", target, {"reviewer_ids": [ids["dev"]]},
                                        token=self.guest)[0], 403)

    def test_a_gitlab_before_15_3_has_no_reviewers_api(self):
        iid = self.mr()
        self.fake.control("POST", "faults", {"version": "15.2.0"})
        try:
            s, _, out = self.fake.call("GET", f"/projects/{ENC}/merge_requests/{iid}/reviewers",
                                       token=self.bot)
            self.assertEqual((s, out), (404, {"error": "404 Not Found"}))
        finally:
            self.fake.control("POST", "faults", {"version": "17.5.0"})


if __name__ == "__main__":
    unittest.main()
