"""Debian's python3-gitlab (python-gitlab), unchanged, against the fake GitLab: it lists issues
and notes across pages (following the fake's Link headers), reads a nested project by path,
creates a note and a draft merge request, reports the fake's 401 and 404 as its own errors, and
reads its token's scopes (GET /personal_access_tokens/self, a 404 before GitLab 15.5).
A missing python3-gitlab skips (under CI=true it fails)."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from github_testlib import require  # noqa: E402
from gitlab_testlib import Fake, source_repo  # noqa: E402

try:
    import gitlab  # python3-gitlab (Debian); our fake's package is gitlab_fake, not this
except ImportError:
    gitlab = None

PROJECT = "grp/sub/app"


class PythonGitlabAgainstTheFake(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        require(gitlab is not None and hasattr(gitlab, "Gitlab"),
                "python3-gitlab is not installed (apt-get install python3-gitlab)")
        cls.fake = Fake()
        cls.token = cls.fake.user("alice")
        cls.fake.project(PROJECT, source_repo(cls.fake.dir))
        cls.fake.member("grp", "alice", 40)
        for n in range(1, 46):
            cls.fake.control("POST", f"projects/{PROJECT}/issues", {"title": f"issue {n}"})
        for n in range(1, 26):
            cls.fake.control("POST", f"projects/{PROJECT}/issues/1/notes",
                             {"body": f"note {n}", "system": n % 5 == 0})
        root = cls.fake.api_url[: -len("/api/v4")]
        cls.gl = gitlab.Gitlab(root, private_token=cls.token, per_page=20)

    @classmethod
    def tearDownClass(cls):
        if hasattr(cls, "fake"):
            cls.fake.stop()

    def test_reads_the_current_user_and_a_nested_project(self):
        self.gl.auth()
        self.assertEqual(self.gl.user.username, "alice")
        p = self.gl.projects.get(PROJECT)
        self.assertEqual((p.path_with_namespace, p.default_branch), (PROJECT, "main"))

    def test_reads_its_tokens_scopes_and_a_gitlab_before_15_5_is_its_404(self):
        # python-gitlab 3.12 has no manager for GET /personal_access_tokens/self (awaywork
        # doctor's scope check): its own HTTP layer asks, as it does for any path.
        t = self.gl.http_get("/personal_access_tokens/self")
        self.assertEqual((t["scopes"], t["active"]), (["api", "write_repository"], True))
        self.fake.control("POST", "faults", {"version": "15.4.0"})
        try:
            with self.assertRaises(gitlab.exceptions.GitlabHttpError) as e:
                self.gl.http_get("/personal_access_tokens/self")
            self.assertEqual(e.exception.response_code, 404)
        finally:
            self.fake.control("POST", "faults", {"version": "17.5.0"})

    def test_lists_issues_and_notes_across_pages(self):
        p = self.gl.projects.get(PROJECT, lazy=True)
        issues = p.issues.list(get_all=True, state="opened")
        self.assertEqual(sorted(i.iid for i in issues), list(range(1, 46)))
        lazy = p.issues.list(iterator=True)
        self.assertEqual(lazy.total_pages, 3)
        self.assertEqual(len(list(lazy)), 45)
        notes = p.issues.get(1).notes.list(get_all=True, sort="asc")
        self.assertEqual(len(notes), 25)
        self.assertEqual(sum(1 for n in notes if n.system), 5)

    def test_creates_a_note_and_a_draft_merge_request(self):
        p = self.gl.projects.get(PROJECT)
        note = p.issues.get(2).notes.create({"body": "from python-gitlab"})
        self.assertEqual((note.body, note.author["username"]), ("from python-gitlab", "alice"))
        mr = p.mergerequests.create({"source_branch": "feature", "target_branch": "main",
                                     "title": "Draft: from python-gitlab"})
        self.assertTrue(mr.draft)
        self.assertEqual(p.mergerequests.get(mr.iid).source_branch, "feature")

    def test_errors_become_python_gitlabs_exceptions(self):
        bad = gitlab.Gitlab(self.gl.url, private_token="glpat-wrongWRONGwrong00000")
        with self.assertRaises(gitlab.exceptions.GitlabAuthenticationError):
            bad.auth()
        with self.assertRaises(gitlab.exceptions.GitlabGetError) as e:
            self.gl.projects.get("grp/nope")
        self.assertEqual(e.exception.response_code, 404)


if __name__ == "__main__":
    unittest.main()
