"""Repository rulesets on the fake GitHub (a FAKE, for tests only; issue 26, required checks):
GET /repos/O/R/rules/branches/B answers the active rules that apply to branch B (GitHub's
repository-rule-detailed: each rule's `type`, `parameters` and the `ruleset_source_type`,
`ruleset_source` and `ruleset_id` of its ruleset), to anyone who may read the repository; the
branch need not exist, a branch no ruleset targets answers `[]`, and rulesets whose enforcement is
`evaluate` or `disabled` are not listed, as on GitHub. A test makes a ruleset with POST
/_fake/repos/O/R/rulesets (control.py) and removes it with DELETE .../rulesets/ID. The fake has no
organizations: every ruleset is the repository's own."""

import re

from .store import FakeError, invalid

DOC = "https://docs.github.com/rest/repos/rules#create-a-repository-ruleset"
ENFORCEMENTS = ("active", "evaluate", "disabled")
# The rule types GitHub's REST description lists for a branch ruleset.
TYPES = ("creation", "update", "deletion", "required_linear_history", "merge_queue",
         "required_deployments", "required_signatures", "pull_request", "required_status_checks",
         "non_fast_forward", "commit_message_pattern", "commit_author_email_pattern",
         "committer_email_pattern", "branch_name_pattern", "code_scanning", "copilot_code_review")


def _rulesets(r):
    """The repository's rulesets, made on first use (a state saved before they existed)."""
    return r.setdefault("rulesets", [])


def _pattern(p):
    """A ref name pattern (GitHub's fnmatch syntax) as a regex: `*` stays within one path segment,
    `**` crosses them, `?` is one character but `/`."""
    out, i = "", 0
    while i < len(p):
        if p.startswith("**", i):
            out, i = out + ".*", i + 2
        elif p[i] == "*":
            out, i = out + "[^/]*", i + 1
        elif p[i] == "?":
            out, i = out + "[^/]", i + 1
        else:
            out, i = out + re.escape(p[i]), i + 1
    return re.compile(out + r"\Z")


def _matches(r, patterns, ref):
    for p in patterns:
        if p == "~ALL":
            return True
        if p == "~DEFAULT_BRANCH":
            if ref == "refs/heads/" + r["default_branch"]:
                return True
        elif _pattern(p).match(ref):
            return True
    return False


def applies(r, ruleset, branch):
    """Whether an active ruleset targets the branch (its include matches, its exclude does not)."""
    if ruleset["enforcement"] != "active":
        return False
    ref = "refs/heads/" + branch
    return _matches(r, ruleset["include"], ref) and not _matches(r, ruleset["exclude"], ref)


def _rule(x):
    """A rule as a ruleset stores it: its type and, for required_status_checks, GitHub's
    parameters (each check's integration_id only when one was named)."""
    if not isinstance(x, dict) or x.get("type") not in TYPES:
        raise invalid("RepositoryRule", "type", doc=DOC)
    out = {"type": x["type"]}
    p = x.get("parameters")
    if x["type"] == "required_status_checks":
        if not isinstance(p, dict) or not isinstance(p.get("required_status_checks"), list):
            raise invalid("RepositoryRule", "required_status_checks", "missing_field", DOC)
        checks = []
        for c in p["required_status_checks"]:
            if not isinstance(c, dict) or not isinstance(c.get("context"), str) or \
                    not c["context"]:
                raise invalid("RepositoryRule", "context", "missing_field", DOC)
            check = {"context": c["context"]}
            if c.get("integration_id") is not None:
                check["integration_id"] = int(c["integration_id"])
            checks.append(check)
        out["parameters"] = {
            "do_not_enforce_on_create": bool(p.get("do_not_enforce_on_create", False)),
            "required_status_checks": checks,
            "strict_required_status_checks_policy":
                bool(p.get("strict_required_status_checks_policy", False))}
    elif isinstance(p, dict):
        out["parameters"] = dict(p)
    return out


def add_ruleset(st, r, b):
    """A branch ruleset as a repository's administrator makes it: {name?, enforcement? (active),
    include? (["~DEFAULT_BRANCH"]), exclude? ([]), rules: [{type, parameters?}]}."""
    enforcement = b.get("enforcement", "active")
    if enforcement not in ENFORCEMENTS:
        raise invalid("RepositoryRuleset", "enforcement", doc=DOC)
    include = b.get("include", ["~DEFAULT_BRANCH"])
    exclude = b.get("exclude", [])
    for field, v in (("include", include), ("exclude", exclude)):
        if not isinstance(v, list) or not all(isinstance(p, str) and p for p in v):
            raise invalid("RepositoryRuleset", "conditions.ref_name." + field, doc=DOC)
    rules = [_rule(x) for x in b.get("rules") or []]
    ruleset = {"id": st.new_id(), "name": str(b.get("name") or "ruleset"),
               "enforcement": enforcement, "include": list(include), "exclude": list(exclude),
               "rules": rules}
    _rulesets(r).append(ruleset)
    return ruleset


def remove_ruleset(r, ident):
    sets = _rulesets(r)
    kept = [x for x in sets if x["id"] != int(ident)]
    if len(kept) == len(sets):
        raise FakeError(404, "Not Found")
    r["rulesets"] = kept


def ruleset_shape(r, x):
    """What the control route answers: the ruleset as GitHub's repository-ruleset names it."""
    return {"id": x["id"], "name": x["name"], "target": "branch",
            "source_type": "Repository", "source": r["full_name"],
            "enforcement": x["enforcement"],
            "conditions": {"ref_name": {"include": x["include"], "exclude": x["exclude"]}},
            "rules": x["rules"]}


def branch_rules(r, branch):
    """GET .../rules/branches/B: every rule of every active ruleset that targets B, oldest ruleset
    first."""
    out = []
    for x in _rulesets(r):
        if not applies(r, x, branch):
            continue
        for rule in x["rules"]:
            out.append(dict(rule, ruleset_source_type="Repository",
                            ruleset_source=r["full_name"], ruleset_id=x["id"]))
    return out


def get_branch_rules(req, m):
    from .api import repo_of  # api.py imports this module for ROUTES
    r = repo_of(req, m)
    return 200, req.paginate(branch_rules(r, m["branch"]))


REPO = r"/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)"
ROUTES = [
    ("GET", REPO + r"/rules/branches/(?P<branch>.+)", get_branch_rules),
]
