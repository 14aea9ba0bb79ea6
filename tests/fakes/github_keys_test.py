"""The fake GitHub's bodies have the keys of GitHub's recorded responses: for each endpoint the
fake serves, the recursive key set of its answer is compared with the recording of the same
endpoint in @octokit/fixtures, or, where no scenario records that endpoint, with the example in
GitHub's REST description (@octokit/openapi). Every difference must be listed below with why;
a listed difference that no longer occurs fails too, so the list stays true.
Run: python3 -m unittest tests/fakes/github_keys_test.py"""

import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from github_testlib import Fake, package_dir, source_repo  # noqa: E402

# (case, key path) -> why the fake differs from the recording of that endpoint.
NO_PULLS_RECORDED = ("the recording's list holds no pull request; GitHub adds pull_request and "
                     "draft to the items that are (checked against GitHub's REST description)")
RECORDED_DIFFERENCES = {
    ("get_repository", "organization"): "the fake has no organizations: every owner is a user",
    ("get_repository", "has_discussions"): "recorded in 2022, before GitHub added the key (its "
                                           "REST description requires it now)",
    ("list_issues", "[]draft"): NO_PULLS_RECORDED,
    ("list_issues", "[]pull_request"): NO_PULLS_RECORDED,
}
# (case, key path) -> why the fake differs from GitHub's REST description of the operation.
DESCRIBED_DIFFERENCES = {
}


def merged(items):
    """The union of a list's dict elements (first non-null value per key), None when none."""
    out = None
    for x in items:
        if isinstance(x, dict):
            out = out or {}
            for k, v in x.items():
                if out.get(k) is None:
                    out[k] = v
    return out


def diff(ref, got, path=""):
    """(keys of ref missing in got, keys of got not in ref), recursive; a null or empty side is
    not descended into (the reference recorded none of that object)."""
    if isinstance(ref, list) and isinstance(got, list):
        r, g = merged(ref), merged(got)
        return diff(r, g, path + "[]") if r is not None and g is not None else ([], [])
    if not (isinstance(ref, dict) and isinstance(got, dict)):
        return [], []
    missing = [path + k for k in ref if k not in got]
    extra = [path + k for k in got if k not in ref]
    for k in ref:
        if k in got:
            m, e = diff(ref[k], got[k], path + k + ".")
            missing, extra = missing + m, extra + e
    return missing, extra


class References:
    def __init__(self):
        self.fixtures = os.path.join(package_dir("@octokit/fixtures"), "scenarios",
                                     "api.github.com")
        with open(os.path.join(package_dir("@octokit/openapi"), "generated",
                               "api.github.com.json")) as f:
            self.openapi = json.load(f)

    def fixture(self, scenario, index):
        with open(os.path.join(self.fixtures, scenario, "normalized-fixture.json")) as f:
            rec = json.load(f)[index]
        return f"@octokit/fixtures {scenario}[{index}] {rec['method'].upper()} {rec['path']}", rec

    def schema(self, path, method, status="200"):
        resp = self.openapi["paths"][path][method]["responses"][status]
        if "$ref" in resp:
            resp = self.openapi["components"]["responses"][resp["$ref"].rsplit("/", 1)[1]]
        op = resp["content"]
        return (f"@octokit/openapi {method.upper()} {path} {status}",
                op["application/json"]["schema"])

    def resolve(self, schema):
        while "$ref" in schema:
            schema = self.openapi["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
        return schema

    def check(self, schema, value, path=""):
        """(required keys missing, keys the schema does not define) of value, recursively."""
        schema = self.resolve(schema)
        if value is None:
            return [], []
        variants = schema.get("anyOf") or schema.get("oneOf")
        if variants:  # the variant the value fits best (events are a union of event types)
            results = [self.check(v, value, path) for v in variants]
            return min(results, key=lambda r: len(r[0]) + len(r[1]))
        if "allOf" in schema:
            merged_schema = {"type": "object", "properties": {}, "required": []}
            for part in schema["allOf"]:
                part = self.resolve(part)
                merged_schema["properties"].update(part.get("properties", {}))
                merged_schema["required"] += part.get("required", [])
            schema = merged_schema
        if isinstance(value, list):
            missing, extra = [], []
            for item in value[:3]:
                m, e = self.check(schema.get("items", {}), item, path + "[]")
                missing, extra = missing + [k for k in m if k not in missing], \
                    extra + [k for k in e if k not in extra]
            return missing, extra
        if not isinstance(value, dict) or "properties" not in schema:
            return [], []
        props = schema["properties"]
        missing = [path + k for k in schema.get("required", []) if k not in value]
        extra = [path + k for k in value if k not in props]
        for k, v in value.items():
            if k in props:
                m, e = self.check(props[k], v, path + k + ".")
                missing, extra = missing + m, extra + e
        return missing, extra


class KeysMatchTheRecordings(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.refs = References()
        cls.fake = Fake()
        f = cls.fake
        cls.token = f.user("alice")
        f.repo("alice", "r", source_repo(f.dir, workflow="ci.yml"))
        f.control("PUT", "repos/alice/r/collaborators/bob", {"permission": "write"})
        t = cls.token
        bob = f.user("bob")
        f.call("POST", "/repos/alice/r/issues", {"title": "one", "body": "b",
                                                 "assignees": ["bob"]}, token=t)
        cls.got = {}
        cls.got["create_issue"] = f.call("POST", "/repos/alice/r/issues",
                                         {"title": "two", "body": "b"}, token=t)
        cls.got["add_labels"] = f.call("POST", "/repos/alice/r/issues/1/labels",
                                       {"labels": ["Foo", "bAr"]}, token=t)
        c = f.call("POST", "/repos/alice/r/issues/1/comments", {"body": "c"}, token=t)
        cls.got["create_comment"] = c
        cid = c[2]["id"]
        cls.got["create_reaction"] = f.call("POST", f"/repos/alice/r/issues/comments/{cid}"
                                            "/reactions", {"content": "eyes"}, token=t)
        cls.got["create_pull"] = f.call("POST", "/repos/alice/r/pulls",
                                        {"title": "p", "head": "feature", "base": "main",
                                         "draft": True}, token=t)
        cls.got["update_pull"] = f.call("PATCH", "/repos/alice/r/pulls/3", {"body": "new"},
                                        token=t)
        cls.got["create_label"] = f.call("POST", "/repos/alice/r/labels",
                                         {"name": "x", "color": "00ff00"}, token=t)
        f.call("POST", "/repos/alice/r/actions/workflows/ci.yml/dispatches", {"ref": "main"},
               token=t)
        run_id = f.call("GET", "/repos/alice/r/actions/runs", token=t)[2]["workflow_runs"][0]["id"]
        # A review with an inline comment on feature.txt (the pull request's one added line),
        # a reply in its thread, and bob requested as a reviewer.
        cls.got["create_review"] = f.call("POST", "/repos/alice/r/pulls/3/reviews", {
            "event": "COMMENT", "body": "r", "comments": [
                {"path": "feature.txt", "line": 1, "body": "c"}]}, token=bob)
        rc = f.call("GET", "/repos/alice/r/pulls/3/comments", token=t)[2][0]["id"]
        cls.got["create_reply"] = f.call("POST", f"/repos/alice/r/pulls/3/comments/{rc}/replies",
                                         {"body": "done"}, token=t)
        cls.got["request_reviewers"] = f.call("POST", "/repos/alice/r/pulls/3/requested_reviewers",
                                              {"reviewers": ["bob"]}, token=t)
        # A failing check run of GitHub Actions with an annotation and a log, and two statuses
        # (issue 26: the checks of a pull request's head commit).
        head = f.call("GET", "/repos/alice/r/git/ref/heads/feature", token=t)[2]["object"]["sha"]
        check = f.control("POST", "repos/alice/r/check-runs", {
            "head_sha": head, "name": "build", "conclusion": "failure", "log": "boom\n",
            "annotations": [{"path": "feature.txt", "start_line": 1, "message": "m"}]})
        cls.got["create_status"] = f.call("POST", f"/repos/alice/r/statuses/{head}",
                                          {"state": "failure", "context": "ci/x"}, token=t)
        job_run = f.call("GET", f"/repos/alice/r/actions/jobs/{check['id']}", token=t)[2]["run_id"]
        cls.got["label_422"] = f.call("POST", "/repos/alice/r/labels",
                                      {"name": "y", "color": "invalid"}, token=t)
        for name, path in [
                ("get_repository", "/repos/alice/r"), ("list_issues", "/repos/alice/r/issues"),
                ("get_issue", "/repos/alice/r/issues/1"), ("list_labels", "/repos/alice/r/labels"),
                ("list_comments", "/repos/alice/r/issues/1/comments"),
                ("list_comments_for_repo", "/repos/alice/r/issues/comments"),
                ("get_comment", f"/repos/alice/r/issues/comments/{cid}"),
                ("list_events", "/repos/alice/r/issues/1/events"),
                ("list_events_for_repo", "/repos/alice/r/issues/events"),
                ("get_permission", "/repos/alice/r/collaborators/bob/permission"),
                ("get_pull", "/repos/alice/r/pulls/3"), ("list_pulls", "/repos/alice/r/pulls"),
                ("get_ref", "/repos/alice/r/git/ref/heads/main"),
                ("get_branch", "/repos/alice/r/branches/main"), ("get_user", "/user"),
                ("get_user_by_login", "/users/bob"), ("list_runs", "/repos/alice/r/actions/runs"),
                ("list_workflow_runs", "/repos/alice/r/actions/workflows/ci.yml/runs"),
                ("get_run", f"/repos/alice/r/actions/runs/{run_id}"),
                ("rate_limit", "/rate_limit"), ("not_found", "/repos/alice/nope"),
                ("list_reviews", "/repos/alice/r/pulls/3/reviews"),
                ("list_review_comments", "/repos/alice/r/pulls/3/comments"),
                ("list_review_comments_for_repo", "/repos/alice/r/pulls/comments"),
                ("get_requested_reviewers", "/repos/alice/r/pulls/3/requested_reviewers"),
                ("list_pull_files", "/repos/alice/r/pulls/3/files"),
                ("list_check_runs", f"/repos/alice/r/commits/{head}/check-runs"),
                ("list_check_suites", f"/repos/alice/r/commits/{head}/check-suites"),
                ("get_check_run", f"/repos/alice/r/check-runs/{check['id']}"),
                ("list_annotations", f"/repos/alice/r/check-runs/{check['id']}/annotations"),
                ("get_check_suite",
                 f"/repos/alice/r/check-suites/{check['check_suite']['id']}"),
                ("list_statuses", f"/repos/alice/r/commits/{head}/statuses"),
                ("combined_status", f"/repos/alice/r/commits/{head}/status"),
                ("get_job", f"/repos/alice/r/actions/jobs/{check['id']}"),
                ("list_jobs", f"/repos/alice/r/actions/runs/{job_run}/jobs")]:
            cls.got[name] = f.call("GET", path, token=t)
        cls.got["bad_credentials"] = f.call("GET", "/user", token="ghp_" + "0" * 36)

    @classmethod
    def tearDownClass(cls):
        cls.fake.stop()

    def recorded(self):
        """The endpoints @octokit/fixtures records: (case, scenario, index)."""
        return [("get_repository", "get-repository", 0), ("list_issues", "paginate-issues", 0),
                ("create_issue", "add-labels-to-issue", 0),
                ("add_labels", "add-labels-to-issue", 1), ("list_labels", "labels", 0),
                ("create_label", "labels", 1), ("label_422", "errors", 0),
                ("not_found", "branch-protection", 0), ("get_ref", "git-refs", 0)]

    def described(self):
        """Every case, by its operation in GitHub's REST description: (case, path, method,
        status)."""
        R = "/repos/{owner}/{repo}"
        return [
            ("get_repository", R, "get", "200"), ("list_issues", R + "/issues", "get", "200"),
            ("create_issue", R + "/issues", "post", "201"),
            ("get_issue", R + "/issues/{issue_number}", "get", "200"),
            ("add_labels", R + "/issues/{issue_number}/labels", "post", "200"),
            ("list_labels", R + "/labels", "get", "200"),
            ("create_label", R + "/labels", "post", "201"),
            ("create_comment", R + "/issues/{issue_number}/comments", "post", "201"),
            ("list_comments", R + "/issues/{issue_number}/comments", "get", "200"),
            ("get_comment", R + "/issues/comments/{comment_id}", "get", "200"),
            ("list_comments_for_repo", R + "/issues/comments", "get", "200"),
            ("update_pull", R + "/pulls/{pull_number}", "patch", "200"),
            ("create_reaction", R + "/issues/comments/{comment_id}/reactions", "post", "201"),
            ("list_events", R + "/issues/{issue_number}/events", "get", "200"),
            ("list_events_for_repo", R + "/issues/events", "get", "200"),
            ("get_permission", R + "/collaborators/{username}/permission", "get", "200"),
            ("create_pull", R + "/pulls", "post", "201"),
            ("get_pull", R + "/pulls/{pull_number}", "get", "200"),
            ("list_pulls", R + "/pulls", "get", "200"),
            ("get_ref", R + "/git/ref/{ref}", "get", "200"),
            ("get_branch", R + "/branches/{branch}", "get", "200"),
            ("get_user", "/user", "get", "200"), ("get_user_by_login", "/users/{username}",
                                                  "get", "200"),
            ("list_runs", R + "/actions/runs", "get", "200"),
            ("list_workflow_runs", R + "/actions/workflows/{workflow_id}/runs", "get", "200"),
            ("get_run", R + "/actions/runs/{run_id}", "get", "200"),
            ("rate_limit", "/rate_limit", "get", "200"), ("not_found", R, "get", "404"),
            ("bad_credentials", "/user", "get", "401"),
            ("label_422", R + "/labels", "post", "422"),
            ("create_review", R + "/pulls/{pull_number}/reviews", "post", "200"),
            ("list_reviews", R + "/pulls/{pull_number}/reviews", "get", "200"),
            ("list_review_comments", R + "/pulls/{pull_number}/comments", "get", "200"),
            ("list_review_comments_for_repo", R + "/pulls/comments", "get", "200"),
            ("create_reply", R + "/pulls/{pull_number}/comments/{comment_id}/replies", "post",
             "201"),
            ("request_reviewers", R + "/pulls/{pull_number}/requested_reviewers", "post",
             "201"),
            ("get_requested_reviewers", R + "/pulls/{pull_number}/requested_reviewers", "get",
             "200"),
            ("list_pull_files", R + "/pulls/{pull_number}/files", "get", "200"),
            ("list_check_runs", R + "/commits/{ref}/check-runs", "get", "200"),
            ("list_check_suites", R + "/commits/{ref}/check-suites", "get", "200"),
            ("get_check_run", R + "/check-runs/{check_run_id}", "get", "200"),
            ("list_annotations", R + "/check-runs/{check_run_id}/annotations", "get", "200"),
            ("get_check_suite", R + "/check-suites/{check_suite_id}", "get", "200"),
            ("create_status", R + "/statuses/{sha}", "post", "201"),
            ("list_statuses", R + "/commits/{ref}/statuses", "get", "200"),
            ("combined_status", R + "/commits/{ref}/status", "get", "200"),
            ("get_job", R + "/actions/jobs/{job_id}", "get", "200"),
            ("list_jobs", R + "/actions/runs/{run_id}/jobs", "get", "200"),
        ]

    def explain(self, found, allowed):
        """Fails on a difference not in `allowed` and on an allowed one no longer found."""
        unexplained = [f"{c}: {kind} {k}  (against {src})" for c, kind, k, src in found
                       if (c, k) not in allowed]
        seen = {(c, k) for c, _, k, _ in found}
        stale = [f"{c}: {k}" for c, k in allowed if (c, k) not in seen]
        self.assertEqual(unexplained, [], "differences not explained:\n" + "\n".join(unexplained))
        self.assertEqual(stale, [], "explained differences that no longer occur")

    def test_fake_github_keys_match_octokit_fixtures(self):
        found = []
        for case, scenario, index in self.recorded():
            source, rec = self.refs.fixture(scenario, index)
            status, _, got = self.got[case]
            self.assertEqual(status, rec["status"], f"{case}: status against {source}")
            missing, extra = diff(rec["response"], got)
            found += [(case, "absent", k, source) for k in missing]
            found += [(case, "extra", k, source) for k in extra]
        self.explain(found, RECORDED_DIFFERENCES)

    def test_fake_github_keys_follow_githubs_rest_description(self):
        found = []
        for case, path, method, status in self.described():
            source, schema = self.refs.schema(path, method, status)
            got_status, _, got = self.got[case]
            self.assertEqual(str(got_status), status, f"{case}: status against {source}")
            missing, extra = self.refs.check(schema, got)
            found += [(case, "required but absent", k, source) for k in missing]
            found += [(case, "not in the schema", k, source) for k in extra]
        self.explain(found, DESCRIBED_DIFFERENCES)

    def test_fake_github_headers_match_octokit_fixtures(self):
        _, rec = self.refs.fixture("paginate-issues", 0)
        f = self.fake
        _, headers, _ = f.call("GET", "/repos/alice/r/issues?per_page=1", token=self.token)
        ignored = {"connection": "nock's recording closes every connection; the fake keeps alive",
                   "date": None}
        missing = sorted(h for h in rec["headers"] if h not in headers and h not in ignored)
        self.assertEqual(missing, [])


if __name__ == "__main__":
    unittest.main()
