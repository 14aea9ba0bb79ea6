"""The fake GitHub behaves as GitHub does where awaywork depends on it: Link paging, ETag and 304
(not counted), rate limits counting down, secondary limits and 5xx faults, errors in GitHub's
shape, collaborator roles, comment edits, events, pull request validation, reactions, GHES paths
and the request log. Run: python3 -m unittest tests/fakes/fake_github_test.py"""

import json
import shutil
import tempfile
import os
import sys
import time
import unittest
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from github_testlib import Fake, git, source_repo  # noqa: E402


class FakeGithubTest(unittest.TestCase):
    def setUp(self):
        self.fake = Fake()
        self.src = source_repo(self.fake.dir)
        self.token = self.fake.user("alice")
        self.fake.repo("alice", "r", self.src)

    def tearDown(self):
        self.fake.stop()

    def issues(self, n):
        for k in range(n):
            self.fake.control("POST", "repos/alice/r/issues", {"title": f"issue {k + 1}"})

    def links(self, headers):
        out = {}
        for part in filter(None, (headers.get("link") or "").split(",")):
            url, rel = part.split(";")
            out[rel.strip()[5:-1]] = url.strip()[1:-1]
        return out

    def test_lists_paginate_by_link_headers_that_name_the_repository_by_id(self):
        self.issues(7)
        rid = self.fake.call("GET", "/repos/alice/r", token=self.token)[2]["id"]
        status, h, page = self.fake.call("GET", "/repos/alice/r/issues?per_page=3",
                                         token=self.token)
        self.assertEqual(status, 200)
        links = self.links(h)
        self.assertEqual(set(links), {"next", "last"})
        self.assertIn(f"/repositories/{rid}/issues?per_page=3&page=2", links["next"])
        numbers, pages = [i["number"] for i in page], 1
        while "next" in links:
            path = urllib.parse.urlsplit(links["next"])
            status, h, page = self.fake.call("GET", path.path + "?" + path.query, token=self.token)
            self.assertEqual(status, 200)
            numbers += [i["number"] for i in page]
            links, pages = self.links(h), pages + 1
        self.assertEqual(numbers, [7, 6, 5, 4, 3, 2, 1])
        self.assertEqual(pages, 3)
        self.assertEqual(set(links), {"first", "prev"})
        self.assertEqual(h.get("x-poll-interval"), "60")

    def test_a_fields_fault_answers_wrongly_typed_fields_on_its_route_only(self):
        self.issues(2)
        self.fake.control("POST", "faults", {"fields": {"number": "1", "labels": [{"name": 7}]},
                                             "fields_on": "GET /repos/alice/r/issues"})
        status, _, page = self.fake.call("GET", "/repos/alice/r/issues", token=self.token)
        self.assertEqual(status, 200)
        self.assertEqual([(i["number"], i["labels"]) for i in page], [("1", [{"name": 7}])] * 2)
        _, _, repo = self.fake.call("GET", "/repos/alice/r", token=self.token)
        self.assertNotIn("labels", repo)
        self.fake.control("POST", "faults", {"fields": {}})
        _, _, page = self.fake.call("GET", "/repos/alice/r/issues", token=self.token)
        self.assertEqual(sorted(i["number"] for i in page), [1, 2])

    def test_the_poll_interval_can_be_set_or_left_out(self):
        self.issues(1)
        self.fake.control("POST", "faults", {"poll_interval": 30})
        _, h, _ = self.fake.call("GET", "/repos/alice/r/issues", token=self.token)
        self.assertEqual(h.get("x-poll-interval"), "30")
        self.fake.control("POST", "faults", {"poll_interval": 0})
        _, h, _ = self.fake.call("GET", "/repos/alice/r/issues/1/events", token=self.token)
        self.assertIsNone(h.get("x-poll-interval"))
        self.fake.control("POST", "faults", {"poll_interval": 60})

    def test_a_304_for_a_matching_etag_is_not_counted_against_the_limit(self):
        self.issues(1)
        _, h, _ = self.fake.call("GET", "/repos/alice/r/issues", token=self.token)
        etag, left = h["etag"], int(h["x-ratelimit-remaining"])
        status, h2, body = self.fake.call("GET", "/repos/alice/r/issues", token=self.token,
                                          headers={"If-None-Match": etag})
        self.assertEqual((status, body), (304, None))
        self.assertEqual(int(h2["x-ratelimit-remaining"]), left)
        self.fake.control("POST", "repos/alice/r/issues/1/comments", {"body": "new"})
        status, h3, _ = self.fake.call("GET", "/repos/alice/r/issues", token=self.token,
                                       headers={"If-None-Match": etag})
        self.assertEqual(status, 200)  # the comment count changed: a new ETag
        self.assertNotEqual(h3["etag"], etag)
        self.assertEqual(int(h3["x-ratelimit-remaining"]), left - 1)
        stats = self.fake.control("GET", "stats")
        self.assertEqual(stats["not_modified"], 1)
        self.assertEqual(stats["counted"], stats["requests"] - 1)

    def test_the_primary_limit_counts_down_per_token_and_resets_with_the_clock(self):
        _, h, _ = self.fake.call("GET", "/user", token=self.token)
        _, h2, _ = self.fake.call("GET", "/user", token=self.token)
        self.assertEqual(int(h["x-ratelimit-limit"]), 5000)
        self.assertEqual(int(h2["x-ratelimit-remaining"]), int(h["x-ratelimit-remaining"]) - 1)
        self.assertEqual(int(h2["x-ratelimit-used"]), 2)
        _, _, limits = self.fake.call("GET", "/rate_limit", token=self.token)
        self.assertEqual(limits["rate"]["remaining"], int(h2["x-ratelimit-remaining"]))
        _, h3, _ = self.fake.call("GET", "/rate_limit", token=self.token)
        self.assertEqual(h3["x-ratelimit-remaining"], h2["x-ratelimit-remaining"])  # not counted
        bob = self.fake.user("bob")
        self.assertEqual(self.fake.call("GET", "/user", token=bob)[1]["x-ratelimit-remaining"],
                         "4999")  # a limit per token
        self.fake.control("POST", "faults", {"rate_remaining": 1})
        self.assertEqual(self.fake.call("GET", "/user", token=self.token)[0], 200)
        status, h, body = self.fake.call("GET", "/user", token=self.token)
        self.assertEqual(status, 403)
        self.assertEqual(h["x-ratelimit-remaining"], "0")
        self.assertRegex(body["message"], r"^API rate limit exceeded for user ID \d+\.")
        self.assertGreater(int(h["x-ratelimit-reset"]), 0)
        self.fake.control("POST", "clock", {"advance": 3601})
        self.fake.control("POST", "faults", {"rate_remaining": 5000})
        self.assertEqual(self.fake.call("GET", "/user", token=self.token)[0], 200)

    def test_secondary_limit_and_5xx_faults_answer_then_recover(self):
        self.fake.control("POST", "faults", {"secondary_limit": 2, "retry_after": 7})
        for _ in range(2):
            status, h, body = self.fake.call("GET", "/repos/alice/r", token=self.token)
            self.assertEqual((status, h["retry-after"]), (403, "7"))
            self.assertIn("secondary rate limit", body["message"])
        self.assertEqual(self.fake.call("GET", "/repos/alice/r", token=self.token)[0], 200)
        self.fake.control("POST", "faults", {"secondary_limit": 1, "secondary_status": 429})
        self.assertEqual(self.fake.call("GET", "/repos/alice/r", token=self.token)[0], 429)
        self.fake.control("POST", "faults", {"server_errors": 1, "status": 503})
        self.assertEqual(self.fake.call("GET", "/repos/alice/r", token=self.token)[0], 503)
        self.assertEqual(self.fake.call("GET", "/repos/alice/r", token=self.token)[0], 200)
        # Aimed at one route: other requests pass until it is met.
        self.fake.control("POST", "faults",
                          {"server_errors": 1, "status": 502, "on": "POST /repos/alice/r/issues"})
        self.assertEqual(self.fake.call("GET", "/repos/alice/r", token=self.token)[0], 200)
        self.assertEqual(self.fake.call("POST", "/repos/alice/r/issues", {"title": "x"},
                                        token=self.token)[0], 502)
        self.assertEqual(self.fake.call("POST", "/repos/alice/r/issues", {"title": "x"},
                                        token=self.token)[0], 201)

    def test_errors_come_in_githubs_shape(self):
        status, _, body = self.fake.call("GET", "/user", token="ghp_" + "x" * 36)
        self.assertEqual((status, body["message"]), (401, "Bad credentials"))
        self.assertIn("documentation_url", body)
        status, _, body = self.fake.call("POST", "/repos/alice/r/issues", {"title": "x"})
        self.assertEqual((status, body["message"]), (401, "Requires authentication"))
        status, _, body = self.fake.call("GET", "/repos/alice/nope", token=self.token)
        self.assertEqual((status, body["message"]), (404, "Not Found"))
        status, _, body = self.fake.call("POST", "/repos/alice/r/labels",
                                         {"name": "x", "color": "nothex"}, token=self.token)
        self.assertEqual((status, body["message"]), (422, "Validation Failed"))
        self.assertEqual(body["errors"], [{"resource": "Label", "code": "invalid",
                                           "field": "color"}])
        self.fake.repo("alice", "secret", private=True)
        stranger = self.fake.user("stranger")
        self.assertEqual(self.fake.call("GET", "/repos/alice/secret", token=stranger)[0], 404)
        self.assertEqual(self.fake.call("GET", "/repos/alice/secret")[0], 404)

    def test_a_workflow_dispatch_needs_the_file_its_trigger_and_the_ref_then_makes_a_run(self):
        fake, t = self.fake, self.token
        fake.repo("alice", "wf", source_repo(os.path.join(fake.dir, "wf"), workflow="aw.yml"))
        url = "/repos/alice/wf/actions/workflows/{}/dispatches"
        status, _, body = fake.call("POST", url.format("nope.yml"), {"ref": "main"}, token=t)
        self.assertEqual((status, body["message"]), (404, "Not Found"))
        status, _, body = fake.call("POST", url.format("aw.yml"), {"ref": "gone"}, token=t)
        self.assertEqual((status, body["message"]), (422, "No ref found for: gone"))
        reader = fake.user("reader")
        fake.control("PUT", "repos/alice/wf/collaborators/reader", {"permission": "read"})
        status, _, _ = fake.call("POST", url.format("aw.yml"), {"ref": "main"}, token=reader)
        self.assertEqual(status, 403)
        status, _, body = fake.call("POST", url.format("aw.yml"),
                                    {"ref": "main", "inputs": {"issue": "7"}}, token=t)
        self.assertEqual((status, body), (204, None))
        # An input the workflow does not declare is refused, as GitHub does.
        status, _, body = fake.call("POST", url.format("aw.yml"),
                                    {"ref": "main", "inputs": {"pull-request": "9"}}, token=t)
        self.assertEqual((status, body["message"]),
                         (422, 'Unexpected inputs provided: ["pull-request"]'))
        status, _, body = fake.call("POST", url.format("aw.yml"),
                                    {"ref": "main", "inputs": {"issue": "8"},
                                     "return_run_details": True}, token=t)
        self.assertEqual(status, 200)
        self.assertEqual(set(body), {"workflow_run_id", "run_url", "html_url"})
        rid = body["workflow_run_id"]
        self.assertTrue(body["run_url"].endswith(f"/repos/alice/wf/actions/runs/{rid}"))
        status, _, run = fake.call("GET", f"/repos/alice/wf/actions/runs/{rid}", token=t)
        self.assertEqual((status, run["status"], run["conclusion"], run["event"]),
                         (200, "queued", None, "workflow_dispatch"))
        fake.control("PATCH", f"repos/alice/wf/actions/runs/{rid}", {"status": "in_progress"})
        _, _, runs = fake.call("GET", "/repos/alice/wf/actions/runs?status=in_progress",
                               token=t)
        self.assertEqual([r["id"] for r in runs["workflow_runs"]], [rid])
        fake.control("PATCH", f"repos/alice/wf/actions/runs/{rid}",
                     {"status": "completed", "conclusion": "success"})
        _, _, runs = fake.call("GET", "/repos/alice/wf/actions/workflows/aw.yml/runs"
                               "?event=workflow_dispatch", token=t)
        self.assertEqual(runs["total_count"], 2)
        self.assertEqual([(r["status"], r["conclusion"]) for r in runs["workflow_runs"]],
                         [("completed", "success"), ("queued", None)])
        _, _, runs = fake.call("GET", "/repos/alice/wf/actions/runs?event=push", token=t)
        self.assertEqual(runs["total_count"], 0)
        self.assertEqual(fake.call("GET", "/repos/alice/wf/actions/runs/999999", token=t)[0], 404)

    def test_an_installation_tokens_get_user_is_refused_as_github_does(self):
        # A workflow's github.token (issue 26): no user's, so GET /user is 403 with GitHub's
        # message; the same token reads the repository.
        u = self.fake.control("POST", "users", {"login": "github-actions[bot]",
                                                "installation": True})
        self.assertEqual((u["type"], u["installation"]), ("Bot", True))
        self.assertTrue(u["token"].startswith("ghs_"))
        status, _, body = self.fake.call("GET", "/user", token=u["token"])
        self.assertEqual(status, 403)
        self.assertEqual(body, {"message": "Resource not accessible by integration",
                                "documentation_url": "https://docs.github.com/rest/users/users"
                                                     "#get-the-authenticated-user",
                                "status": "403"})
        self.assertEqual(self.fake.call("GET", "/repos/alice/r", token=u["token"])[0], 200)
        self.assertEqual(self.fake.call("GET", "/user", token=self.token)[2]["login"], "alice")

    def test_a_runs_artifacts_are_listed_by_exact_name_with_their_run(self):
        fake, t = self.fake, self.token
        fake.repo("alice", "wf", source_repo(os.path.join(fake.dir, "wf"), workflow="aw.yml"))
        runs = []
        for issue in ("1", "2"):
            status, _, body = fake.call("POST", "/repos/alice/wf/actions/workflows/aw.yml/"
                                        "dispatches", {"ref": "main", "inputs": {"issue": issue},
                                                       "return_run_details": True}, token=t)
            self.assertEqual(status, 200)
            runs.append(body["workflow_run_id"])
        fake.control("POST", f"repos/alice/wf/actions/runs/{runs[0]}/artifacts",
                     {"name": "awaywork-unit-u1"})
        fake.control("POST", f"repos/alice/wf/actions/runs/{runs[1]}/artifacts",
                     {"name": "awaywork-unit-u1x"})
        status, _, _ = fake.call("POST", f"/_fake/repos/alice/wf/actions/runs/{runs[0]}/artifacts",
                                 {"name": "awaywork-unit-u1"}, control=True)
        self.assertEqual(status, 409)
        status, _, body = fake.call("GET", "/repos/alice/wf/actions/artifacts?name=awaywork-unit-u1",
                                    token=t)
        self.assertEqual(status, 200)
        self.assertEqual(body["total_count"], 1)
        a = body["artifacts"][0]
        self.assertEqual((a["name"], a["workflow_run"]["id"], a["expired"]),
                         ("awaywork-unit-u1", runs[0], False))
        self.assertEqual(a["workflow_run"]["head_branch"], "main")
        _, _, body = fake.call("GET", "/repos/alice/wf/actions/artifacts", token=t)
        self.assertEqual([x["workflow_run"]["id"] for x in body["artifacts"]], [runs[1], runs[0]])
        _, _, body = fake.call("GET", f"/repos/alice/wf/actions/runs/{runs[1]}/artifacts",
                               token=t)
        self.assertEqual([x["name"] for x in body["artifacts"]], ["awaywork-unit-u1x"])

    def test_collaborator_permission_maps_roles_as_github_does(self):
        expect = {"admin": "admin", "maintain": "write", "write": "write", "triage": "read",
                  "read": "read"}
        for role, permission in expect.items():
            self.fake.control("PUT", f"repos/alice/r/collaborators/u-{role}",
                              {"permission": role})
            _, _, body = self.fake.call("GET", f"/repos/alice/r/collaborators/u-{role}/permission",
                                        token=self.token)
            self.assertEqual((body["permission"], body["role_name"]), (permission, role))
            self.assertEqual(body["user"]["login"], f"u-{role}")
        self.fake.user("nobody")
        body = self.fake.call("GET", "/repos/alice/r/collaborators/nobody/permission",
                              token=self.token)[2]
        self.assertEqual(body["permission"], "read")  # public: anyone reads
        self.fake.control("PATCH", "repos/alice/r", {"private": True})
        body = self.fake.call("GET", "/repos/alice/r/collaborators/nobody/permission",
                              token=self.token)[2]
        self.assertEqual((body["permission"], body["role_name"]), ("none", "none"))
        self.assertEqual(self.fake.call("GET", "/repos/alice/r/collaborators/ghost/permission",
                                        token=self.token)[0], 404)

    def test_labels_need_triage_and_readers_only_comment_and_open_issues(self):
        self.issues(1)
        reader = self.fake.user("reader")
        self.fake.control("PUT", "repos/alice/r/collaborators/tri", {"permission": "triage"})
        tri = self.fake.user("tri")
        path = "/repos/alice/r/issues/1/labels"
        self.assertEqual(self.fake.call("POST", path, {"labels": ["x"]}, token=reader)[0], 403)
        self.assertEqual(self.fake.call("POST", path, {"labels": ["x"]}, token=tri)[0], 200)
        self.assertEqual(self.fake.call("POST", "/repos/alice/r/labels", {"name": "y"},
                                        token=tri)[0], 403)  # creating labels needs write
        self.assertEqual(self.fake.call("POST", "/repos/alice/r/issues/1/comments",
                                        {"body": "hi"}, token=reader)[0], 201)
        status, _, issue = self.fake.call("POST", "/repos/alice/r/issues",
                                          {"title": "mine", "labels": ["x"]}, token=reader)
        self.assertEqual((status, issue["labels"]), (201, []))  # GitHub drops them

    def test_titles_and_bodies_are_capped_at_githubs_limits(self):
        self.issues(1)
        status, _, body = self.fake.call("POST", "/repos/alice/r/issues/1/comments",
                                         {"body": "x" * 65537}, token=self.token)
        self.assertEqual((status, body["errors"][0]["field"]), (422, "body"))
        self.assertEqual(self.fake.call("POST", "/repos/alice/r/issues/1/comments",
                                        {"body": "x" * 65536}, token=self.token)[0], 201)
        self.assertEqual(self.fake.call("POST", "/repos/alice/r/issues", {"title": "t" * 257},
                                        token=self.token)[0], 422)

    def test_a_comment_edit_moves_updated_at_and_keeps_created_at(self):
        self.issues(1)
        _, _, c = self.fake.call("POST", "/repos/alice/r/issues/1/comments", {"body": "one"},
                                 token=self.token)
        self.fake.control("POST", "clock", {"advance": 120})
        _, _, e = self.fake.call("PATCH", f"/repos/alice/r/issues/comments/{c['id']}",
                                 {"body": "two"}, token=self.token)
        self.assertEqual((e["body"], e["created_at"]), ("two", c["created_at"]))
        self.assertGreater(e["updated_at"], c["updated_at"])
        since = self.fake.call("GET", f"/repos/alice/r/issues/1/comments?since={e['updated_at']}",
                               token=self.token)[2]
        self.assertEqual([x["id"] for x in since], [c["id"]])
        everywhere = self.fake.call("GET", "/repos/alice/r/issues/comments?sort=updated",
                                    token=self.token)[2]
        self.assertEqual([x["body"] for x in everywhere], ["two"])
        self.assertEqual(self.fake.call("DELETE", f"/repos/alice/r/issues/comments/{c['id']}",
                                        token=self.token)[0], 204)
        self.assertEqual(self.fake.call("GET", "/repos/alice/r/issues/1/comments",
                                        token=self.token)[2], [])

    def test_events_name_who_labeled_and_assigned(self):
        self.issues(1)
        bob = self.fake.user("bob")
        self.fake.control("PUT", "repos/alice/r/collaborators/bob", {"permission": "triage"})
        self.fake.control("PUT", "repos/alice/r/collaborators/carol", {"permission": "write"})
        carol = self.fake.user("carol")
        self.fake.call("POST", "/repos/alice/r/issues/1/labels", {"labels": ["awaywork"]},
                       token=carol)
        self.fake.call("POST", "/repos/alice/r/issues/1/assignees", {"assignees": ["bob"]},
                       token=carol)
        self.fake.call("DELETE", "/repos/alice/r/issues/1/labels/awaywork", token=carol)
        self.fake.call("PATCH", "/repos/alice/r/issues/1", {"state": "closed", "labels": []},
                       token=self.token)  # no label left to remove: no event
        _, h, events = self.fake.call("GET", "/repos/alice/r/issues/1/events", token=bob)
        got = [(e["event"], e["actor"]["login"], (e.get("label") or {}).get("name"),
                (e.get("assignee") or {}).get("login")) for e in events]
        self.assertEqual(got, [("labeled", "carol", "awaywork", None),
                               ("assigned", "carol", None, "bob"),
                               ("unlabeled", "carol", "awaywork", None),
                               ("closed", "alice", None, None)])
        repo_events = self.fake.call("GET", "/repos/alice/r/issues/events", token=bob)[2]
        self.assertEqual(repo_events[0]["event"], "closed")
        self.assertEqual(repo_events[0]["issue"]["number"], 1)

    def test_pull_requests_need_an_existing_head_and_honour_draft_settings(self):
        def pr(**body):
            return self.fake.call("POST", "/repos/alice/r/pulls",
                                  dict({"title": "t", "base": "main"}, **body), token=self.token)
        status, _, body = pr(head="missing")
        self.assertEqual((status, body["errors"][0]["field"]), (422, "head"))
        self.assertIn("No commits between", pr(head="main")[2]["errors"][0]["message"])
        self.fake.control("PATCH", "repos/alice/r", {"drafts_allowed": False})
        status, _, body = pr(head="feature", draft=True)
        self.assertEqual((status, body["message"]),
                         (422, "Draft pull requests are not supported in this repository."))
        self.fake.control("PATCH", "repos/alice/r", {"drafts_allowed": True, "pr_refused": True})
        self.assertEqual(pr(head="feature", draft=True)[0], 422)
        self.fake.control("PATCH", "repos/alice/r", {"pr_refused": False})
        status, h, body = pr(head="alice:feature", draft=True)
        self.assertEqual((status, body["draft"], body["head"]["ref"]), (201, True, "feature"))
        self.assertEqual(body["head"]["sha"],
                         git("rev-parse", "feature", cwd=self.src).stdout.strip())
        self.assertTrue(h["location"].endswith(f"/repos/alice/r/pulls/{body['number']}"))
        self.assertIn("already exists", pr(head="feature")[2]["errors"][0]["message"])
        _, _, edited = self.fake.call("PATCH", f"/repos/alice/r/pulls/{body['number']}",
                                      {"body": "edited"}, token=self.token)
        self.assertEqual((edited["body"], edited["draft"]), ("edited", True))
        listed = self.fake.call("GET", "/repos/alice/r/pulls?head=alice:feature",
                                token=self.token)[2]
        self.assertEqual([p["number"] for p in listed], [body["number"]])
        issues = self.fake.call("GET", "/repos/alice/r/issues", token=self.token)[2]
        self.assertIn("pull_request", issues[0])

    def test_a_reaction_is_created_once_per_user_and_content(self):
        self.issues(1)
        c = self.fake.control("POST", "repos/alice/r/issues/1/comments", {"body": "x"})
        path = f"/repos/alice/r/issues/comments/{c['id']}/reactions"
        statuses = [self.fake.call("POST", path, {"content": c}, token=self.token)[0]
                    for c in ("eyes", "eyes", "nope")]
        self.assertEqual(statuses, [201, 200, 422])
        body = self.fake.call("GET", f"/repos/alice/r/issues/comments/{c['id']}",
                              token=self.token)[2]
        self.assertEqual((body["reactions"]["eyes"], body["reactions"]["total_count"]), (1, 1))

    def test_ghes_paths_serve_the_same_routes_with_prefixed_urls(self):
        self.issues(4)
        status, h, body = self.fake.call("GET", "/api/v3/repos/alice/r/issues?per_page=2",
                                         token=self.token)
        self.assertEqual(status, 200)
        self.assertIn("/api/v3/repos/alice/r/issues/4", body[0]["url"])
        self.assertIn("/api/v3/repositories/", self.links(h)["next"])
        repo = self.fake.call("GET", "/api/v3/repos/alice/r", token=self.token)[2]
        self.assertTrue(repo["clone_url"].endswith(f":{self.fake.port}/alice/r.git"))

    def test_a_bot_comments_as_a_bot(self):
        self.issues(1)
        bot = self.fake.control("POST", "users", {"login": "awaywork[bot]", "type": "Bot"})
        self.fake.control("PUT", "repos/alice/r/collaborators/awaywork[bot]",
                          {"permission": "write"})
        _, _, c = self.fake.call("POST", "/repos/alice/r/issues/1/comments", {"body": "hi"},
                                 token=bot["token"])
        self.assertEqual((c["user"]["login"], c["user"]["type"]), ("awaywork[bot]", "Bot"))
        perm = self.fake.call("GET", "/repos/alice/r/collaborators/awaywork%5Bbot%5D/permission",
                              token=self.token)[2]
        self.assertEqual(perm["permission"], "write")

    def test_concurrent_requests_are_all_answered_and_counted(self):
        import threading
        self.issues(1)
        statuses, lock = [], threading.Lock()

        def worker(k):
            for n in range(10):
                status = self.fake.call("POST", "/repos/alice/r/issues/1/comments",
                                        {"body": f"{k}-{n}"}, token=self.token)[0]
                with lock:
                    statuses.append(status)

        threads = [threading.Thread(target=worker, args=(k,)) for k in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(statuses, [201] * 80)
        comments = self.fake.call("GET", "/repos/alice/r/issues/1/comments?per_page=100",
                                  token=self.token)[2]
        self.assertEqual(len({c["id"] for c in comments}), 80)
        stats = self.fake.control("GET", "stats")
        self.assertEqual((stats["writes"], stats["counted"]), (80, 81))
        _, h, _ = self.fake.call("GET", "/user", token=self.token)
        self.assertEqual(h["x-ratelimit-remaining"], str(5000 - 82))

    def test_the_log_names_every_request_and_whether_it_wrote(self):
        self.fake.call("GET", "/repos/alice/r", token=self.token)
        self.fake.call("POST", "/repos/alice/r/issues", {"title": "x"}, token=self.token)
        log = self.fake.control("GET", "log")
        got = [(e["kind"], e["method"], e["path"], e["login"], e["status"], e["write"])
               for e in log]
        self.assertEqual(got, [("api", "GET", "/repos/alice/r", "alice", 200, False),
                               ("api", "POST", "/repos/alice/r/issues", "alice", 201, True)])
        self.assertEqual(log[0]["user_agent"], "awaywork-fake-test")
        self.assertEqual(self.fake.control("GET", "stats")["writes"], 1)


class FakeGithubPullReviewsTest(unittest.TestCase):
    """Pull requests under review: reviews and their states, review comments anchored to the
    diff and their threads, requested reviewers, and a pull request from a fork."""

    def setUp(self):
        self.fake = Fake()
        self.src = source_repo(self.fake.dir, branches=())
        with open(os.path.join(self.src, "lib.py"), "w") as f:
            f.write("".join(f"line {k}\n" for k in range(1, 21)))
        git("add", ".", cwd=self.src)
        git("commit", "-qm", "lib", cwd=self.src)
        git("checkout", "-qb", "work", cwd=self.src)
        with open(os.path.join(self.src, "lib.py"), "w") as f:
            f.write("".join(f"line {k}\n" if k != 10 else "line ten\n" for k in range(1, 21)))
        git("commit", "-qam", "ten", cwd=self.src)
        git("checkout", "-q", "main", cwd=self.src)
        self.alice = self.fake.user("alice")
        self.bob = self.fake.user("bob")
        self.fake.repo("alice", "r", self.src)
        self.fake.control("PUT", "repos/alice/r/collaborators/bob", {"permission": "write"})
        _, _, self.pr = self.fake.call("POST", "/repos/alice/r/pulls",
                                       {"title": "t", "head": "work", "base": "main"},
                                       token=self.alice)
        self.n = self.pr["number"]

    def tearDown(self):
        self.fake.stop()

    def review(self, token, **body):
        return self.fake.call("POST", f"/repos/alice/r/pulls/{self.n}/reviews", body,
                              token=token)

    def test_a_review_requests_changes_with_comments_anchored_to_the_diff(self):
        status, _, v = self.review(self.bob, event="REQUEST_CHANGES", body="not yet",
                                   comments=[{"path": "lib.py", "line": 10, "body": "why?"}])
        self.assertEqual((status, v["state"], v["user"]["login"]), (200, "CHANGES_REQUESTED",
                                                                     "bob"))
        self.assertEqual(v["commit_id"], self.pr["head"]["sha"])
        self.assertIn("submitted_at", v)
        _, _, listed = self.fake.call("GET", f"/repos/alice/r/pulls/{self.n}/comments",
                                      token=self.alice)
        self.assertEqual(len(listed), 1)
        c = listed[0]
        self.assertEqual((c["path"], c["line"], c["side"], c["pull_request_review_id"]),
                         ("lib.py", 10, "RIGHT", v["id"]))
        self.assertNotIn("in_reply_to_id", c)
        self.assertTrue(c["diff_hunk"].startswith("@@ -7,7 +7,7 @@"), c["diff_hunk"])
        self.assertTrue(c["diff_hunk"].endswith("+line ten"), c["diff_hunk"])
        self.assertEqual(c["position"], 5)  # the hunk header is line 0 of the file's diff
        status, _, bad = self.review(self.bob, event="COMMENT", body="x",
                                     comments=[{"path": "lib.py", "line": 1, "body": "far"}])
        self.assertEqual((status, bad["errors"][0]["field"]),
                         (422, "pull_request_review_thread.line"))
        self.assertEqual(self.review(self.bob, event="APPROVE")[2]["state"], "APPROVED")
        self.assertEqual(self.review(self.bob, event="COMMENT", body="hm")[2]["state"],
                         "COMMENTED")
        status, _, own = self.review(self.alice, event="REQUEST_CHANGES", body="me")
        self.assertEqual((status, own["errors"]),
                         (422, ["Review Can not request changes on your own pull request"]))
        _, _, states = self.fake.call("GET", f"/repos/alice/r/pulls/{self.n}/reviews",
                                      token=self.alice)
        self.assertEqual([x["state"] for x in states],
                         ["CHANGES_REQUESTED", "APPROVED", "COMMENTED"])

    def test_a_reply_joins_the_thread_of_its_first_comment(self):
        self.review(self.bob, event="COMMENT", body="b",
                    comments=[{"path": "lib.py", "line": 10, "body": "first"}])
        first = self.fake.call("GET", "/repos/alice/r/pulls/comments", token=self.alice)[2][0]
        base = f"/repos/alice/r/pulls/{self.n}/comments"
        status, h, reply = self.fake.call("POST", f"{base}/{first['id']}/replies",
                                          {"body": "done"}, token=self.alice)
        self.assertEqual((status, reply["in_reply_to_id"], reply["path"], reply["line"]),
                         (201, first["id"], "lib.py", 10))
        self.assertEqual(reply["diff_hunk"], first["diff_hunk"])
        self.assertTrue(h["location"].endswith(f"/pulls/comments/{reply['id']}"))
        # A reply to the reply still names the thread's first comment, as on GitHub.
        _, _, again = self.fake.call("POST", base, {"body": "more", "in_reply_to": reply["id"]},
                                     token=self.bob)
        self.assertEqual(again["in_reply_to_id"], first["id"])
        self.assertEqual(self.fake.call("POST", f"{base}/999999/replies", {"body": "x"},
                                        token=self.alice)[0], 404)
        self.fake.control("PATCH", f"repos/alice/r/pulls/comments/{first['id']}",
                          {"body": "edited"})
        _, _, edited = self.fake.call("GET", f"/repos/alice/r/pulls/comments/{first['id']}",
                                      token=self.alice)
        self.assertEqual(edited["body"], "edited")
        pull = self.fake.call("GET", f"/repos/alice/r/pulls/{self.n}", token=self.alice)[2]
        self.assertEqual(pull["review_comments"], 3)

    def test_reviewers_are_requested_from_collaborators_and_a_review_answers_the_request(self):
        path = f"/repos/alice/r/pulls/{self.n}/requested_reviewers"
        status, _, pull = self.fake.call("POST", path, {"reviewers": ["bob"]}, token=self.alice)
        self.assertEqual((status, [u["login"] for u in pull["requested_reviewers"]]),
                         (201, ["bob"]))
        self.assertEqual(self.fake.call("GET", path, token=self.alice)[2]["users"][0]["login"],
                         "bob")
        self.fake.user("carol")
        status, _, err = self.fake.call("POST", path, {"reviewers": ["carol"]}, token=self.alice)
        self.assertEqual(status, 422)
        self.assertIn("only be requested from collaborators", err["message"])
        status, _, err = self.fake.call("POST", path, {"reviewers": ["alice"]}, token=self.alice)
        self.assertEqual((status, err["message"]),
                         (422, "Review cannot be requested from pull request author."))
        self.review(self.bob, event="REQUEST_CHANGES", body="no")
        self.assertEqual(self.fake.call("GET", path, token=self.alice)[2]["users"], [])
        self.fake.call("POST", path, {"reviewers": ["bob"]}, token=self.alice)  # re-requested
        self.assertEqual(len(self.fake.call("GET", path, token=self.alice)[2]["users"]), 1)
        self.assertEqual(self.fake.call("POST", path, {"reviewers": ["bob"]}, token=self.bob)[0],
                         201)  # write access may request too
        status, _, _ = self.fake.call("DELETE", path, {"reviewers": ["bob"]}, token=self.alice)
        self.assertEqual(status, 200)
        self.assertEqual(self.fake.call("GET", path, token=self.alice)[2]["users"], [])

    def test_a_pull_request_from_a_fork_names_the_forks_repository_as_its_head(self):
        mallory = self.fake.user("mallory")
        fork = self.fake.repo("mallory", "r", fork_of="alice/r")
        self.assertEqual((fork["fork"], fork["parent"]["full_name"], fork["source"]["full_name"]),
                         (True, "alice/r", "alice/r"))
        status, _, pr = self.fake.call("POST", "/repos/alice/r/pulls",
                                       {"title": "f", "head": "mallory:work", "base": "main"},
                                       token=mallory)  # no write access to alice/r needed
        self.assertEqual(status, 201)
        self.assertEqual((pr["head"]["repo"]["full_name"], pr["head"]["label"],
                          pr["base"]["repo"]["full_name"]),
                         ("mallory/r", "mallory:work", "alice/r"))
        self.assertTrue(pr["head"]["repo"]["fork"])
        self.assertEqual(self.fake.call("POST", "/repos/alice/r/pulls",
                                        {"title": "f", "head": "mallory:work", "base": "main"},
                                        token=self.bob)[0], 403)  # bob may not push to the fork
        status, _, v = self.fake.call("POST", f"/repos/alice/r/pulls/{pr['number']}/reviews",
                                      {"event": "COMMENT", "body": "b", "comments": [
                                          {"path": "lib.py", "line": 10, "body": "x"}]},
                                      token=self.bob)
        self.assertEqual((status, v["commit_id"]), (200, pr["head"]["sha"]))
        by_anyone = self.fake.control("POST", "repos/alice/r/pulls",
                                      {"user": "mallory", "head": "mallory:work", "base": "main",
                                       "title": "again"})
        self.assertEqual(by_anyone["user"]["login"], "mallory")


class FakeGithubChecksTest(unittest.TestCase):
    """Check runs with annotations, check suites, statuses and the combined status, Actions jobs
    and their logs (a 302 to the log, as GitHub does) on a commit (issue 26)."""

    def setUp(self):
        self.fake = Fake()
        self.alice = self.fake.user("alice")
        self.folder = tempfile.mkdtemp(prefix="fake-github-checks-")
        self.fake.repo("alice", "r", source_repo(self.folder))
        _, _, ref = self.fake.call("GET", "/repos/alice/r/git/ref/heads/feature",
                                   token=self.alice)
        self.sha = ref["object"]["sha"]

    def tearDown(self):
        self.fake.stop()
        shutil.rmtree(self.folder, ignore_errors=True)

    def test_a_failing_check_run_has_annotations_a_suite_a_job_and_a_redirected_log(self):
        made = self.fake.control("POST", "repos/alice/r/check-runs", {
            "head_sha": self.sha, "name": "build", "conclusion": "failure",
            "annotations": [{"path": "lib.py", "start_line": 3, "message": "E: boom"}],
            "log": "step 1\nerror: boom\n"})
        status, h, runs = self.fake.call("GET", f"/repos/alice/r/commits/{self.sha}/check-runs",
                                         token=self.alice)
        self.assertEqual((status, runs["total_count"]), (200, 1))
        run = runs["check_runs"][0]
        self.assertEqual((run["id"], run["name"], run["status"], run["conclusion"]),
                         (made["id"], "build", "completed", "failure"))
        self.assertEqual(run["output"]["annotations_count"], 1)
        etag = h["etag"]
        status, _, _ = self.fake.call("GET", f"/repos/alice/r/commits/{self.sha}/check-runs",
                                      token=self.alice, headers={"If-None-Match": etag})
        self.assertEqual(status, 304)
        _, _, notes = self.fake.call("GET", f"/repos/alice/r/check-runs/{run['id']}/annotations",
                                     token=self.alice)
        self.assertEqual((notes[0]["path"], notes[0]["start_line"], notes[0]["message"]),
                         ("lib.py", 3, "E: boom"))
        _, _, suites = self.fake.call("GET", "/repos/alice/r/commits/feature/check-suites",
                                      token=self.alice)
        self.assertEqual(suites["check_suites"][0]["id"], run["check_suite"]["id"])
        _, _, job = self.fake.call("GET", f"/repos/alice/r/actions/jobs/{run['id']}",
                                   token=self.alice)
        self.assertEqual((job["name"], job["conclusion"], job["head_sha"]),
                         ("build", "failure", self.sha))
        _, _, jobs = self.fake.call("GET", f"/repos/alice/r/actions/runs/{job['run_id']}/jobs",
                                    token=self.alice)
        self.assertEqual([j["id"] for j in jobs["jobs"]], [run["id"]])
        status, h, _ = self.fake.call("GET", f"/repos/alice/r/actions/jobs/{run['id']}/logs",
                                      token=self.alice)
        self.assertEqual(status, 302)
        where = urllib.parse.urlsplit(h["location"])
        conn = self.fake.connection()
        conn.request("GET", where.path + "?" + where.query)  # no token, as on GitHub
        resp = conn.getresponse()
        self.assertEqual((resp.status, resp.read()), (200, b"step 1\nerror: boom\n"))
        conn.close()
        conn = self.fake.connection()
        conn.request("GET", where.path + "?sig=forged")
        self.assertEqual(conn.getresponse().status, 403)
        conn.close()
        status, _, _ = self.fake.call("GET", f"/repos/alice/r/actions/jobs/{run['id']}/logs")
        self.assertEqual(status, 401)

    def test_statuses_combine_as_github_combines_them(self):
        _, _, combined = self.fake.call("GET", "/repos/alice/r/commits/feature/status",
                                        token=self.alice)
        self.assertEqual((combined["state"], combined["total_count"]), ("pending", 0))
        status, _, s = self.fake.call("POST", f"/repos/alice/r/statuses/{self.sha}",
                                      {"state": "success", "context": "ci/lint"},
                                      token=self.alice)
        self.assertEqual((status, s["state"], s["creator"]["login"]), (201, "success", "alice"))
        self.fake.control("POST", f"repos/alice/r/statuses/{self.sha}",
                          {"state": "error", "context": "ci/test", "user": "bot"})
        _, _, combined = self.fake.call("GET", f"/repos/alice/r/commits/{self.sha}/status",
                                        token=self.alice)
        self.assertEqual((combined["state"], combined["sha"]), ("failure", self.sha))
        self.assertEqual(sorted(x["context"] for x in combined["statuses"]),
                         ["ci/lint", "ci/test"])
        _, _, listed = self.fake.call("GET", f"/repos/alice/r/commits/{self.sha}/statuses",
                                      token=self.alice)
        self.assertEqual([x["state"] for x in listed], ["error", "success"])


class FakeGithubFilesTest(unittest.TestCase):
    def test_the_log_file_has_the_entries_and_the_snapshot_no_token(self):

        log = os.path.join(tempfile.mkdtemp(prefix="fake-github-log-"), "log.jsonl")
        fake = Fake(extra=("--log", log))
        try:
            token = fake.user("alice")
            fake.repo("alice", "r")
            fake.call("POST", "/repos/alice/r/issues", {"title": "x"}, token=token)
            with open(log) as f:
                entries = [json.loads(line) for line in f]
            self.assertEqual(entries, fake.control("GET", "log"))
            snapshot = os.path.join(fake.dir, "state", "state.json")
            for _ in range(100):  # the saver writes it within half a second; a guard, no timing
                if os.path.exists(snapshot) and "issues" in open(snapshot).read():
                    break
                time.sleep(0.1)
            with open(snapshot) as f:
                text = f.read()
            self.assertIn('"alice"', text)
            self.assertNotIn(token, text)
        finally:
            fake.stop()


if __name__ == "__main__":
    unittest.main()
