"""Issue 26: a branch's repository rulesets on the fake GitHub, as awaywork reads their required
status checks. Debian's `gh api`, unchanged, reads GET .../rules/branches/B as the fake serves
it: `[]` where no ruleset applies (the branch need not exist), else each rule of each active
ruleset that targets the branch, with GitHub's `ruleset_source_type`, `ruleset_source` and
`ruleset_id`; a `required_status_checks` rule's parameters name each context and, when one was
named, its integration_id. Rulesets in `evaluate` or `disabled` are not listed, include and
exclude patterns decide which branches a ruleset targets, anyone who may read the repository
reads them (a private repository's stranger gets 404), and the answer has the keys of GitHub's
REST description (repository-rule-detailed)."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from github_testlib import (Fake, clean_env, make_ca, package_dir, require,  # noqa: E402
                            source_repo)

GH = shutil.which("gh") or "/usr/bin/gh"
RULES = "/repos/octo/web/rules/branches/"


def required(rule_contexts, strict=False):
    return {"type": "required_status_checks",
            "parameters": {"required_status_checks": rule_contexts,
                           "strict_required_status_checks_policy": strict}}


class BranchRules(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cadir = tempfile.mkdtemp(prefix="fake-github-ca-")
        cls.ca, cert, key = make_ca(cls.cadir)
        cls.fake = Fake(tls=(cert, key), ca=cls.ca)
        cls.owner = cls.fake.user("octo")
        cls.reader = cls.fake.user("reader")
        cls.stranger = cls.fake.user("stranger")
        cls.fake.repo("octo", "web", source_repo(cls.fake.dir))  # main and feature
        cls.fake.control("PUT", "repos/octo/web/collaborators/reader", {"permission": "read"})

    @classmethod
    def tearDownClass(cls):
        cls.fake.stop()
        shutil.rmtree(cls.cadir, ignore_errors=True)

    def get(self, path, token=None):
        return self.fake.call("GET", path, token=token or self.reader)

    def ruleset(self, **body):
        made = self.fake.control("POST", "repos/octo/web/rulesets", body)
        self.addCleanup(self.fake.control, "DELETE", f"repos/octo/web/rulesets/{made['id']}")
        return made

    def test_no_ruleset_answers_an_empty_list_even_for_a_branch_that_does_not_exist(self):
        for branch in ("main", "no-such-branch"):
            status, _, body = self.get(RULES + branch)
            self.assertEqual((status, body), (200, []), branch)

    def test_gh_api_reads_an_active_rulesets_required_checks_unchanged(self):
        require(os.access(GH, os.X_OK), "gh is not installed (scripts/deps: deps.d/forge.txt)")
        made = self.ruleset(name="ci", include=["~DEFAULT_BRANCH"],
                            rules=[{"type": "deletion"},
                                   required([{"context": "build", "integration_id": 15368},
                                             {"context": "ci/ext"}], strict=True)])
        self.assertEqual((made["enforcement"], made["target"], made["source"]),
                         ("active", "branch", "octo/web"))
        home = tempfile.mkdtemp(prefix="gh-home-", dir=self.fake.dir)
        env = clean_env(HOME=home, GH_CONFIG_DIR=os.path.join(home, "gh"),
                        GH_HOST=f"localhost:{self.fake.port}", GH_ENTERPRISE_TOKEN=self.reader,
                        GH_NO_UPDATE_NOTIFIER="1", GH_PROMPT_DISABLED="1", NO_COLOR="1",
                        SSL_CERT_FILE=self.ca)
        r = subprocess.run([GH, "api", "--paginate", RULES.lstrip("/") + "main?per_page=100"],
                           env=env, capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        rules = json.loads(r.stdout)
        self.assertEqual([x["type"] for x in rules], ["deletion", "required_status_checks"])
        for x in rules:
            self.assertEqual((x["ruleset_source_type"], x["ruleset_source"], x["ruleset_id"]),
                             ("Repository", "octo/web", made["id"]))
        p = rules[1]["parameters"]
        # integration_id only where the ruleset names an app: any source may satisfy ci/ext.
        self.assertEqual(p["required_status_checks"],
                         [{"context": "build", "integration_id": 15368}, {"context": "ci/ext"}])
        self.assertTrue(p["strict_required_status_checks_policy"])
        self.assertNotIn("parameters", rules[0])
        # The default branch only: another branch has no rule.
        status, _, other = self.get(RULES + "feature")
        self.assertEqual((status, other), (200, []))

    def test_only_active_rulesets_targeting_the_branch_are_listed(self):
        self.ruleset(name="trying", enforcement="evaluate", include=["~ALL"],
                     rules=[required([{"context": "evaluated"}])])
        self.ruleset(name="off", enforcement="disabled", include=["~ALL"],
                     rules=[required([{"context": "disabled"}])])
        self.ruleset(name="releases", include=["refs/heads/release/*"],
                     rules=[required([{"context": "release-build"}])])
        self.ruleset(name="all but feature", include=["~ALL"], exclude=["refs/heads/feature"],
                     rules=[required([{"context": "lint"}])])

        def contexts(branch):
            status, _, rules = self.get(RULES + branch)
            self.assertEqual(status, 200, rules)
            return [c["context"] for x in rules if x["type"] == "required_status_checks"
                    for c in x["parameters"]["required_status_checks"]]

        self.assertEqual(contexts("main"), ["lint"])
        self.assertEqual(contexts("feature"), [])
        # Branches that do not exist (yet): the rules that would apply to them.
        self.assertEqual(contexts("release/1.x"), ["release-build", "lint"])
        # `*` stays within one path segment, as in GitHub's fnmatch patterns.
        self.assertEqual(contexts("release/1.x/hotfix"), ["lint"])

    def test_a_private_repository_hides_its_rules_from_a_stranger(self):
        self.fake.repo("octo", "secret", source_repo(tempfile.mkdtemp(dir=self.fake.dir)),
                       private=True)
        self.fake.control("POST", "repos/octo/secret/rulesets",
                          {"rules": [required([{"context": "build"}])]})
        status, _, _ = self.get("/repos/octo/secret/rules/branches/main", token=self.stranger)
        self.assertEqual(status, 404)
        status, _, rules = self.get("/repos/octo/secret/rules/branches/main", token=self.owner)
        self.assertEqual(status, 200, rules)
        self.assertEqual(rules[0]["parameters"]["required_status_checks"], [{"context": "build"}])

    def test_a_bad_ruleset_is_refused(self):
        for body in ({"enforcement": "sometimes"}, {"rules": [{"type": "no_such_rule"}]},
                     {"rules": [{"type": "required_status_checks"}]},
                     {"rules": [required([{"integration_id": 1}])]}):
            status, _, out = self.fake.call("POST", "/_fake/repos/octo/web/rulesets", body,
                                            control=True)
            self.assertEqual(status, 422, (body, out))
        status, _, _ = self.fake.call("DELETE", "/_fake/repos/octo/web/rulesets/999999",
                                      control=True)
        self.assertEqual(status, 404)

    def test_the_answer_follows_githubs_rest_description(self):
        package_dir("@octokit/openapi")  # skips (or fails under CI=true) without it
        from github_keys_test import References
        self.ruleset(rules=[{"type": "non_fast_forward"},
                            required([{"context": "build", "integration_id": 15368}])])
        status, _, rules = self.get(RULES + "main")
        self.assertEqual(status, 200, rules)
        refs = References()
        _, schema = refs.schema("/repos/{owner}/{repo}/rules/branches/{branch}", "get")
        self.assertEqual(refs.check(schema, rules), ([], []))


if __name__ == "__main__":
    unittest.main()
