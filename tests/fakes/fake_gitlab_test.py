"""The fake GitLab behaves as GitLab's REST v4 where awaywork depends on it: token auth
(PRIVATE-TOKEN, Bearer; 401 in GitLab's body), projects by id or URL-encoded nested path, members
with inherited access levels, issues and notes (system notes kept, edits), label events, draft
merge requests, offset pagination headers and Link, weak ETags with 304, RateLimit-* headers and
429 with Retry-After, 5xx faults, and git over HTTP with a token (oauth2) that only a Developer
may push with."""

import os
import subprocess
import sys
import time
import unittest
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gitlab_testlib import Fake, source_repo  # noqa: E402

PROJECT = "grp/sub/app"
ENC = "grp%2Fsub%2Fapp"


class FakeGitlab(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.fake = Fake()
        cls.bot = cls.fake.user("aw-bot")
        cls.guest = cls.fake.user("guest")
        cls.project = cls.fake.project(PROJECT, source_repo(cls.fake.dir))
        cls.fake.member("grp", "aw-bot", 30)  # a group's member reaches its subgroups' projects
        cls.fake.member(PROJECT, "guest", 10)
        cls.fake.member(PROJECT, "maint", 40)

    @classmethod
    def tearDownClass(cls):
        cls.fake.stop()

    def issue(self, title="fix it", **kw):
        return self.fake.control("POST", f"projects/{PROJECT}/issues",
                                 {"username": "maint", "title": title, **kw})

    def test_auth_by_private_token_or_bearer_and_401_in_gitlabs_shape(self):
        s, _, u = self.fake.call("GET", "/user", token=self.bot)
        self.assertEqual((s, u["username"], u["bot"]), (200, "aw-bot", False))
        s, _, u = self.fake.call("GET", "/user", headers={"Authorization": "Bearer " + self.bot})
        self.assertEqual((s, u["username"]), (200, "aw-bot"))
        self.assertEqual(self.fake.call("GET", "/user", token="glpat-notAtokenAtAll0000")[::2],
                         (401, {"message": "401 Unauthorized"}))
        self.assertEqual(self.fake.call("GET", "/user")[0], 401)

    def test_a_token_describes_its_scopes_and_gitlab_before_15_5_has_no_such_route(self):
        s, _, t = self.fake.call("GET", "/personal_access_tokens/self", token=self.bot)
        self.assertEqual((s, t["scopes"], t["active"], t["revoked"]),
                         (200, ["api", "write_repository"], True, False))
        self.assertEqual(set(t), {"id", "name", "revoked", "created_at", "description", "scopes",
                                  "user_id", "last_used_at", "active", "expires_at"})
        narrow = self.fake.user("reader", scopes=["read_api"])
        self.assertEqual(self.fake.call("GET", "/personal_access_tokens/self",
                                        token=narrow)[2]["scopes"], ["read_api"])
        self.assertEqual(self.fake.call("GET", "/personal_access_tokens/self")[0], 401)
        self.fake.control("POST", "faults", {"version": "15.4.0"})
        try:
            self.assertEqual(self.fake.call("GET", "/personal_access_tokens/self",
                                            token=self.bot)[::2], (404, {"error": "404 Not Found"}))
        finally:
            self.fake.control("POST", "faults", {"version": "17.5.0"})

    def test_project_by_encoded_path_or_id_and_404_for_outsiders(self):
        s, _, p = self.fake.call("GET", f"/projects/{ENC}", token=self.bot)
        self.assertEqual((s, p["path_with_namespace"], p["default_branch"]),
                         (200, PROJECT, "main"))
        self.assertTrue(p["http_url_to_repo"].endswith("/grp/sub/app.git"))
        self.assertEqual(self.fake.call("GET", f"/projects/{p['id']}", token=self.bot)[2]["id"],
                         p["id"])
        stranger = self.fake.user("stranger")
        self.assertEqual(self.fake.call("GET", f"/projects/{ENC}", token=stranger)[::2],
                         (404, {"message": "404 Project Not Found"}))

    def test_members_all_reports_the_inherited_level_and_404_for_non_members(self):
        uid = self.fake.call("GET", "/user", token=self.bot)[2]["id"]
        s, _, m = self.fake.call("GET", f"/projects/{ENC}/members/all/{uid}", token=self.bot)
        self.assertEqual((s, m["access_level"], m["username"]), (200, 30, "aw-bot"))
        self.fake.user("nobody")
        nid = self.fake.call("GET", "/users?username=nobody", token=self.bot)[2][0]["id"]
        self.assertEqual(self.fake.call("GET", f"/projects/{ENC}/members/all/{nid}",
                                        token=self.bot)[0], 404)

    def test_issue_notes_system_and_edits(self):
        i = self.issue(description="body")
        path = f"/projects/{ENC}/issues/{i['iid']}"
        self.fake.control("POST", f"projects/{PROJECT}/issues/{i['iid']}/notes",
                          {"username": "maint", "body": "added ~bug label", "system": True})
        s, _, n = self.fake.call("POST", path + "/notes", {"body": "hello"}, token=self.bot)
        self.assertEqual((s, n["body"], n["system"], n["noteable_type"], n["noteable_iid"]),
                         (201, "hello", False, "Issue", i["iid"]))
        s, _, e = self.fake.call("PUT", path + f"/notes/{n['id']}", {"body": "edited"},
                                 token=self.bot)
        self.assertEqual((s, e["body"]), (200, "edited"))
        s, _, notes = self.fake.call("GET", path + "/notes?sort=asc", token=self.bot)
        self.assertEqual([(x["system"], x["body"]) for x in notes],
                         [(True, "added ~bug label"), (False, "edited")])
        # Someone else's note is not ours to edit.
        self.assertEqual(self.fake.call("PUT", path + f"/notes/{notes[0]['id']}", {"body": "x"},
                                        token=self.bot)[0], 403)
        s, _, got = self.fake.call("GET", path, token=self.bot)
        self.assertEqual((got["title"], got["description"], got["author"]["username"],
                          got["user_notes_count"], got["references"]["full"]),
                         ("fix it", "body", "maint", 1, f"{PROJECT}#{i['iid']}"))
        self.assertEqual(self.fake.call("GET", f"/projects/{ENC}/issues/999", token=self.bot)[::2],
                         (404, {"message": "404 Not found"}))

    def test_label_events_say_who_added_a_label(self):
        i = self.issue()
        self.fake.control("POST", f"projects/{PROJECT}/issues/{i['iid']}/labels",
                          {"username": "maint", "add": ["awaywork"]})
        s, _, ev = self.fake.call("PUT", f"/projects/{ENC}/issues/{i['iid']}",
                                  {"add_labels": "awaywork:claimed"}, token=self.bot)
        self.assertEqual(ev["labels"], ["awaywork", "awaywork:claimed"])
        s, _, events = self.fake.call(
            "GET", f"/projects/{ENC}/issues/{i['iid']}/resource_label_events", token=self.bot)
        self.assertEqual([(e["user"]["username"], e["label"]["name"], e["action"])
                          for e in events],
                         [("maint", "awaywork", "add"), ("aw-bot", "awaywork:claimed", "add")])

    def test_assignment_is_a_system_note_by_who_assigned_and_a_note_is_deleted_by_its_author(self):
        i = self.issue()
        path = f"/projects/{ENC}/issues/{i['iid']}"
        self.fake.control("POST", f"projects/{PROJECT}/issues/{i['iid']}/assignees",
                          {"username": "maint", "assignees": ["aw-bot", "guest"]})
        self.fake.control("POST", f"projects/{PROJECT}/issues/{i['iid']}/assignees",
                          {"username": "guest", "assignees": ["aw-bot"]})
        s, _, got = self.fake.call("GET", path, token=self.bot)
        self.assertEqual([a["username"] for a in got["assignees"]], ["aw-bot"])
        s, _, notes = self.fake.call("GET", path + "/notes?sort=asc", token=self.bot)
        self.assertEqual([(n["system"], n["author"]["username"], n["body"]) for n in notes],
                         [(True, "maint", "assigned to @aw-bot and @guest"),
                          (True, "guest", "unassigned @guest")])
        s, _, mine = self.fake.call("POST", path + "/notes", {"body": "claim"}, token=self.bot)
        self.assertEqual(self.fake.call("DELETE", path + f"/notes/{notes[0]['id']}",
                                        token=self.bot)[0], 403)  # a system note
        self.assertEqual(self.fake.call("DELETE", path + f"/notes/{mine['id']}",
                                        token=self.bot)[0], 204)
        self.assertEqual(self.fake.call("DELETE", path + f"/notes/{mine['id']}",
                                        token=self.bot)[0], 404)

    def test_offset_pagination_headers_and_link(self):
        for n in range(25):
            self.issue(f"page {n}")
        s, h, first = self.fake.call("GET", f"/projects/{ENC}/issues?per_page=10&state=opened",
                                     token=self.bot)
        self.assertEqual((len(first), h["x-page"], h["x-next-page"], h["x-prev-page"]),
                         (10, "1", "2", ""))
        self.assertIn('rel="next"', h["link"])
        self.assertIn("state=opened", h["link"])
        seen, page = [], "1"
        while page:
            _, h, items = self.fake.call(
                "GET", f"/projects/{ENC}/issues?per_page=10&page={page}", token=self.bot)
            seen += [i["iid"] for i in items]
            page = h["x-next-page"]
        self.assertEqual(len(seen), int(h["x-total"]))
        self.assertEqual(len(set(seen)), len(seen))

    def test_weak_etag_answers_304(self):
        s, h, _ = self.fake.call("GET", f"/projects/{ENC}", token=self.bot)
        self.assertTrue(h["etag"].startswith('W/"'))
        s, _, body = self.fake.call("GET", f"/projects/{ENC}", token=self.bot,
                                    headers={"If-None-Match": h["etag"]})
        self.assertEqual((s, body), (304, None))

    def test_rate_limit_headers_429_and_5xx_faults(self):
        s, h, _ = self.fake.call("GET", "/user", token=self.bot)
        self.assertEqual(h["ratelimit-limit"], "2000")
        self.assertLess(int(h["ratelimit-remaining"]), 2000)
        self.fake.control("POST", "faults", {"rate_limited": 1, "retry_after": 7})
        s, h, body = self.fake.call("GET", "/user", token=self.bot)
        self.assertEqual((s, h["retry-after"], body), (429, "7", "Retry later\n"))
        self.assertEqual(self.fake.call("GET", "/user", token=self.bot)[0], 200)
        self.fake.control("POST", "faults", {"server_errors": 1, "status": 502, "on": "GET /user"})
        self.assertEqual(self.fake.call("GET", "/user", token=self.bot)[0], 502)
        self.assertEqual(self.fake.call("GET", "/user", token=self.bot)[0], 200)

    def test_draft_merge_request_from_draft_true_or_the_title_prefix(self):
        s, _, mr = self.fake.call("POST", f"/projects/{ENC}/merge_requests",
                                  {"source_branch": "feature", "target_branch": "main",
                                   "title": "a change", "draft": True,
                                   "description": "awaywork"}, token=self.bot)
        self.assertEqual((s, mr["title"], mr["draft"], mr["source_branch"], mr["reference"]),
                         (201, "Draft: a change", True, "feature", f"!{mr['iid']}"))
        s, _, again = self.fake.call("POST", f"/projects/{ENC}/merge_requests",
                                     {"source_branch": "feature", "target_branch": "main",
                                      "title": "Draft: again"}, token=self.bot)
        self.assertEqual(s, 409)
        self.assertIn(f"!{mr['iid']}", again["message"][0])
        s, _, missing = self.fake.call("POST", f"/projects/{ENC}/merge_requests",
                                       {"source_branch": "nope", "target_branch": "main",
                                        "title": "x"}, token=self.bot)
        self.assertEqual(s, 400)
        self.assertEqual(self.fake.call("POST", f"/projects/{ENC}/merge_requests",
                                        {"source_branch": "feature", "target_branch": "main",
                                         "title": "x"}, token=self.guest)[0], 403)

    def test_merge_request_discussions_diff_notes_replies_and_notes(self):
        subprocess.run(["git", "--git-dir", self.project_bare(), "branch", "-f", "mr-disc",
                        "main"], check=True)
        mr = self.fake.control("POST", f"projects/{PROJECT}/merge_requests",
                               {"username": "maint", "source": "mr-disc", "target": "main",
                                "title": "discussed"})
        base = f"/projects/{ENC}/merge_requests/{mr['iid']}"
        diff = self.fake.control("POST", f"projects/{PROJECT}/merge_requests/{mr['iid']}/"
                                 "discussions", {"username": "maint", "body": "here",
                                                 "path": "a.txt", "line": 1})
        self.assertEqual((diff["type"], diff["resolvable"], diff["resolved"],
                          diff["position"]["new_path"], diff["position"]["new_line"]),
                         ("DiffNote", True, False, "a.txt", 1))
        self.assertEqual(len(diff["discussion_id"]), 40)
        s, _, lone = self.fake.call("POST", base + "/discussions", {"body": "general"},
                                    token=self.bot)
        self.assertEqual((s, lone["individual_note"], lone["notes"][0]["type"]), (201, True, None))
        s, _, reply = self.fake.call("POST", base + f"/discussions/{diff['discussion_id']}/notes",
                                     {"body": "done"}, token=self.bot)
        self.assertEqual((s, reply["type"], reply["author"]["username"]),
                         (201, "DiffNote", "aw-bot"))
        s, _, note = self.fake.call("POST", base + "/notes", {"body": "progress"}, token=self.bot)
        self.assertEqual((s, note["noteable_type"]), (201, "MergeRequest"))
        s, _, edited = self.fake.call("PUT", base + f"/notes/{note['id']}", {"body": "later"},
                                      token=self.bot)
        self.assertEqual((s, edited["body"]), (200, "later"))
        s, h, listed = self.fake.call("GET", base + "/discussions?per_page=2", token=self.bot)
        self.assertEqual((s, len(listed), h["x-total"]), (200, 2, "3"))
        self.assertEqual([n["body"] for n in listed[0]["notes"]], ["here", "done"])
        self.assertFalse(listed[0]["individual_note"])
        self.assertEqual(self.fake.call("POST", base + "/discussions/" + "0" * 40 + "/notes",
                                        {"body": "x"}, token=self.bot)[0], 404)

    def test_pipelines_failed_jobs_and_a_jobs_trace_as_text(self):
        pl = self.fake.control("POST", f"projects/{PROJECT}/pipelines",
                               {"ref": "main", "status": "failed",
                                "jobs": [{"name": "build", "status": "success"},
                                         {"name": "lint", "status": "failed",
                                          "allow_failure": True},
                                         {"name": "test", "status": "failed",
                                          "trace": "\x1b[31mFAIL\x1b[0m test_x\n"}]})
        s, _, listed = self.fake.call("GET", f"/projects/{ENC}/pipelines?sha={pl['sha']}",
                                      token=self.bot)
        self.assertEqual((s, listed[0]["id"], listed[0]["status"]), (200, pl["id"], "failed"))
        s, _, jobs = self.fake.call("GET", f"/projects/{ENC}/pipelines/{pl['id']}/jobs"
                                    "?scope[]=failed", token=self.bot)
        self.assertEqual([(j["name"], j["allow_failure"], j["failure_reason"]) for j in jobs],
                         [("lint", True, "script_failure"), ("test", False, "script_failure")])
        s, h, trace = self.fake.request("GET", f"/api/v4/projects/{ENC}/jobs/{jobs[1]['id']}/trace",
                                        headers={"PRIVATE-TOKEN": self.bot})
        self.assertEqual((s, h["content-type"], trace), (200, "text/plain",
                                                          "\x1b[31mFAIL\x1b[0m test_x\n"))

    def test_pipelines_updated_after_oldest_change_first(self):
        # The watcher's pipelines poll (issue 29): only what changed after the time, by updated_at.
        first = self.fake.control("POST", f"projects/{PROJECT}/pipelines",
                                  {"ref": "main", "status": "success"})
        time.sleep(0.01)
        second = self.fake.control("POST", f"projects/{PROJECT}/pipelines",
                                   {"ref": "main", "status": "failed"})
        s, _, listed = self.fake.call(
            "GET", f"/projects/{ENC}/pipelines?order_by=updated_at&sort=asc&updated_after="
            + urllib.parse.quote(first["updated_at"]), token=self.bot)
        ids = [p["id"] for p in listed]
        self.assertEqual(s, 200)
        self.assertIn(second["id"], ids)
        self.assertNotIn(first["id"], ids)
        s, _, both = self.fake.call(
            "GET", f"/projects/{ENC}/pipelines?order_by=updated_at&sort=asc&per_page=100",
            token=self.bot)
        mine = [p["id"] for p in both if p["id"] in (first["id"], second["id"])]
        self.assertEqual(mine, [first["id"], second["id"]])

    def project_bare(self):
        return os.path.join(self.fake.dir, "state", "repos", PROJECT + ".git")

    def test_git_clone_and_push_with_the_token_as_oauth2_password(self):
        work = os.path.join(self.fake.dir, "clone")
        env = {"PATH": "/usr/bin:/bin", "HOME": self.fake.dir, "GIT_CONFIG_NOSYSTEM": "1",
               "GIT_TERMINAL_PROMPT": "0", "GIT_AUTHOR_NAME": "t", "GIT_COMMITTER_NAME": "t",
               "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_EMAIL": "t@example.invalid"}
        host = self.fake.git_url.split("://", 1)[1]

        def url(token):
            return f"http://oauth2:{token}@{host}/{PROJECT}.git"

        subprocess.run(["git", "clone", "-q", url(self.bot), work], check=True, env=env)
        subprocess.run(["git", "-C", work, "commit", "-q", "--allow-empty", "-m", "x"],
                       check=True, env=env)
        push = subprocess.run(["git", "-C", work, "push", "-q", url(self.guest), "HEAD:refs/heads/g"],
                              env=env, capture_output=True, text=True)
        self.assertNotEqual(push.returncode, 0)  # a Guest may read, not push
        self.assertIn("not allowed to push", push.stderr)
        subprocess.run(["git", "-C", work, "push", "-q", url(self.bot), "HEAD:refs/heads/aw/1"],
                       check=True, env=env)
        s, _, mr = self.fake.call("POST", f"/projects/{ENC}/merge_requests",
                                  {"source_branch": "aw/1", "target_branch": "main",
                                   "title": "Draft: pushed"}, token=self.bot)
        self.assertEqual((s, mr["draft"]), (201, True))
        bad = subprocess.run(["git", "ls-remote", url("glpat-wrongWRONGwrong00000")], env=env,
                             capture_output=True, text=True)
        self.assertNotEqual(bad.returncode, 0)


if __name__ == "__main__":
    unittest.main()
