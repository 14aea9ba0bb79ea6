"""The test control routes of the fake GitHub under /_fake/ (a FAKE, for tests only): no auth,
not counted, not in the API log. A test sets the world up with them (users, repositories,
collaborators, issues and comments by anyone) and reads back what awaywork did (log, stats)."""

import re

from . import api, artifacts, checks, reviews, rules, shapes
from .store import ROLES, FakeError, invalid

REPO = r"/_fake/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)"


def as_user(st, r, b):
    """The author a setup call names ("user"), created as a User when new; the owner else."""
    return st.add_user(b.get("user") or r["owner"])["login"]


def users(st, b, m, urls):
    login = b.get("login")
    if not login or b.get("type", "User") not in ("User", "Bot"):
        raise invalid("User", "login")
    # An installation (a GitHub App's token, as a workflow's github.token) is always a Bot.
    installation = bool(b.get("installation"))
    u = st.add_user(login, "Bot" if installation else b.get("type", "User"), b.get("token"),
                    installation)
    return 201, {"login": u["login"], "id": u["id"], "type": u["type"], "token": u["token"],
                 "installation": u.get("installation", False)}


def repos(st, b, m, urls):
    if not b.get("owner") or not b.get("name"):
        raise invalid("Repository", "name", "missing_field")
    r = st.add_repo(b["owner"], b["name"], b.get("source"), b.get("default_branch"),
                    b.get("private", False), b.get("fork_of"))
    return 201, shapes.repo(r, st, urls, r["owner"])


def collaborator(st, b, m, urls):
    r = st.repo(m["owner"], m["repo"])
    role = b.get("permission", "write")
    if role not in ROLES:
        raise invalid("Collaborator", "permission")
    st.add_user(m["login"])
    r["collaborators"][m["login"]] = role
    return 200, shapes.permission(r, st, urls, m["login"])


def repo_settings(st, b, m, urls):
    r = st.repo(m["owner"], m["repo"])
    for key in ("drafts_allowed", "pr_refused", "private"):
        if key in b:
            r[key] = bool(b[key])
    if "push_refused" in b:
        st.set_push_refused(r, b["push_refused"])
    return 200, shapes.repo(r, st, urls, r["owner"])


def issue(st, b, m, urls):
    r = st.repo(m["owner"], m["repo"])
    i = st.add_issue(r, as_user(st, r, b), b.get("title", "an issue"), b.get("body"),
                     b.get("labels") or [], b.get("assignees") or [])
    return 201, shapes.issue_single(r, i, st, urls)


def comment(st, b, m, urls):
    r = st.repo(m["owner"], m["repo"])
    c = st.add_comment(r, st.issue(r, m["n"]), as_user(st, r, b), b.get("body", ""))
    return 201, shapes.comment(r, c, st, urls)


def edit_comment(st, b, m, urls):
    r = st.repo(m["owner"], m["repo"])
    c = st.comment(r, m["id"])
    c["body"], c["updated_at"] = b.get("body", c["body"]), st.now()
    return 200, shapes.comment(r, c, st, urls)


def labels(st, b, m, urls):
    r = st.repo(m["owner"], m["repo"])
    i = st.issue(r, m["n"])
    st.add_labels(r, i, as_user(st, r, b), b.get("labels") or [])
    return 200, [shapes.label(r, st.label(r, n), urls) for n in i["labels"]]


def run_state(st, b, m, urls):
    """A dispatched run moves on, as its jobs would on GitHub: status and conclusion."""
    r = st.repo(m["owner"], m["repo"])
    for x in r["runs"]:
        if x["id"] == int(m["id"]):
            status = b.get("status", x["status"])
            if status not in ("queued", "in_progress", "completed", "waiting", "requested",
                              "pending"):
                raise invalid("WorkflowRun", "status")
            x["status"], x["updated_at"] = status, st.now()
            x["conclusion"] = b.get("conclusion") if status == "completed" else None
            return 200, shapes.run(r, x, st, urls, r["owner"])
    raise FakeError(404, "Not Found")


def run_artifact(st, b, m, urls):
    """An artifact a dispatched run's job uploaded (actions/upload-artifact): {name}; only the
    run's own jobs can do this on GitHub (with the run's runtime token)."""
    r = st.repo(m["owner"], m["repo"])
    return 201, artifacts.add_artifact(st, r, int(m["id"]), b.get("name"), urls)


def runs(st, b, m, urls):
    """The dispatched runs as recorded, inputs included (the API does not show them)."""
    return 200, [dict(x) for x in st.repo(m["owner"], m["repo"])["runs"]]


def pull(st, b, m, urls):
    """A pull request opened by anyone ("user"), from a branch of the repository or, with
    "head": "OWNER:BRANCH", of OWNER's fork; no permission asked."""
    r = st.repo(m["owner"], m["repo"])
    login = as_user(st, r, b)
    owner, _, head = b.get("head", "").rpartition(":")
    owner = owner or r["owner"]
    head_repo = r if owner == r["owner"] else api.fork_of(st, r, owner)
    if head_repo is None or not st.ref_sha(head_repo, head) or \
            not st.ref_sha(r, b.get("base")):
        raise invalid("PullRequest", "head")
    i = st.add_issue(r, login, b.get("title", "a pull request"), b.get("body"))
    i["pull"] = {"id": st.new_id(), "head": head, "head_owner": owner, "base": b["base"],
                 "draft": bool(b.get("draft")), "head_repo": head_repo["full_name"],
                 "requested": []}
    return 201, shapes.pull(r, i, st, urls, login)


def review(st, b, m, urls):
    """A review by anyone ("user"): event APPROVE, REQUEST_CHANGES or COMMENT (none: PENDING),
    body, comments [{path, line, body}]."""
    r = st.repo(m["owner"], m["repo"])
    i = reviews.pull_of(st, r, m["n"])
    v = reviews.add_review(st, r, i, as_user(st, r, b), b.get("event"), b.get("body"),
                           b.get("comments") or [])
    return 201, shapes.review(r, v, st, urls)


def review_comment(st, b, m, urls):
    """A review comment by anyone ("user"): {path, line, body} or {in_reply_to, body}."""
    r = st.repo(m["owner"], m["repo"])
    i = reviews.pull_of(st, r, m["n"])
    login = as_user(st, r, b)
    if b.get("in_reply_to") is not None:
        c = reviews.add_reply(st, r, i, login, b.get("body", ""), b["in_reply_to"])
    else:
        c = reviews.add_single_comment(st, r, i, login, b.get("body", ""), b.get("path"),
                                       b.get("line"))
    return 201, shapes.review_comment(r, c, st, urls)


def edit_review_comment(st, b, m, urls):
    r = st.repo(m["owner"], m["repo"])
    c = reviews.review_comment(st, r, m["id"])
    c["body"], c["updated_at"] = b.get("body", c["body"]), st.now()
    return 200, shapes.review_comment(r, c, st, urls)


def check_run(st, b, m, urls):
    """A check run of GitHub Actions (checks.add_check_run): {head_sha or branch, name,
    conclusion, annotations, log}."""
    r = st.repo(m["owner"], m["repo"])
    return 201, checks.run_shape(r, checks.add_check_run(st, r, b), st, urls)


def status(st, b, m, urls):
    """A commit status by anyone ("user"): {state, context, description, target_url}."""
    r = st.repo(m["owner"], m["repo"])
    s = checks.add_status(st, r, m["sha"], as_user(st, r, b), b)
    return 201, checks.status_shape(r, s, st, urls)


def faults(st, b, m, urls):
    for key in ("secondary_limit", "retry_after", "secondary_status", "server_errors", "status",
                "poll_interval"):
        if key in b:
            st.faults[key] = int(b[key])
    if "server_errors" in b:  # only the requests whose "METHOD /path" starts so ("" = any)
        st.faults["on"] = str(b.get("on", ""))
    if "fields" in b:  # answers whose "METHOD /path" starts with fields_on get these fields
        st.faults["fields"] = dict(b["fields"] or {})
        st.faults["fields_on"] = str(b.get("fields_on", ""))
    if "rate_remaining" in b:
        st.rate_remaining = int(b["rate_remaining"])
        for bucket in st.rate.values():
            bucket["remaining"] = st.rate_remaining
    return 200, dict(st.faults, rate_remaining=st.rate_remaining)


def protection(st, b, m, urls):
    """Protects a branch requiring status checks, as a repository's administrator would (PUT
    .../branches/B/protection): checks [{context, app_id}] (app_id null: any source) and the
    legacy contexts [names]; strict; enforcement_level (non_admins, or everyone)."""
    r = st.repo(m["owner"], m["repo"])
    if not st.ref_sha(r, m["branch"]):
        raise FakeError(404, "Branch not found")
    checks = [{"context": c["context"], "app_id": c.get("app_id")}
              for c in b.get("checks") or [] if isinstance(c, dict) and c.get("context")]
    named = {c["context"] for c in checks}
    checks += [{"context": c, "app_id": None} for c in b.get("contexts") or []
               if isinstance(c, str) and c not in named]
    level = b.get("enforcement_level", "non_admins")
    if level not in ("non_admins", "everyone"):
        raise invalid("BranchProtection", "enforcement_level")
    r.setdefault("protection", {})[m["branch"]] = {
        "checks": checks, "strict": bool(b.get("strict", False)), "enforcement_level": level}
    return 200, shapes.required_status_checks(r, m["branch"], r["protection"][m["branch"]], urls)


def unprotect(st, b, m, urls):
    r = st.repo(m["owner"], m["repo"])
    r.setdefault("protection", {}).pop(m["branch"], None)
    return 204, None


def ruleset(st, b, m, urls):
    """A branch ruleset, as a repository's administrator makes one (rules.add_ruleset): {name?,
    enforcement? (active|evaluate|disabled), include? [ref patterns, ~DEFAULT_BRANCH, ~ALL],
    exclude?, rules: [{type, parameters?}]}; a required_status_checks rule's parameters:
    {required_status_checks: [{context, integration_id?}],
    strict_required_status_checks_policy?}."""
    r = st.repo(m["owner"], m["repo"])
    return 201, rules.ruleset_shape(r, rules.add_ruleset(st, r, b))


def drop_ruleset(st, b, m, urls):
    rules.remove_ruleset(st.repo(m["owner"], m["repo"]), m["id"])
    return 204, None


def clock(st, b, m, urls):
    st.offset += float(b.get("advance", 0))
    return 200, {"now": st.now(), "offset": st.offset}


def stats(st, b, m, urls):
    return 200, dict(st.stats)


def log(st, b, m, urls):
    return 200, list(st.log)


ROUTES = [
    ("POST", r"/_fake/users", users),
    ("POST", r"/_fake/repos", repos),
    ("PUT", REPO + r"/collaborators/(?P<login>[^/]+)", collaborator),
    ("PATCH", REPO, repo_settings),
    ("POST", REPO + r"/issues", issue),
    ("POST", REPO + r"/issues/(?P<n>\d+)/comments", comment),
    ("PATCH", REPO + r"/issues/comments/(?P<id>\d+)", edit_comment),
    ("POST", REPO + r"/issues/(?P<n>\d+)/labels", labels),
    ("POST", REPO + r"/pulls", pull),
    ("POST", REPO + r"/pulls/(?P<n>\d+)/reviews", review),
    ("POST", REPO + r"/pulls/(?P<n>\d+)/comments", review_comment),
    ("PATCH", REPO + r"/pulls/comments/(?P<id>\d+)", edit_review_comment),
    ("GET", REPO + r"/actions/runs", runs),
    ("PATCH", REPO + r"/actions/runs/(?P<id>\d+)", run_state),
    ("POST", REPO + r"/actions/runs/(?P<id>\d+)/artifacts", run_artifact),
    ("POST", REPO + r"/check-runs", check_run),
    ("PUT", REPO + r"/branches/(?P<branch>.+)/protection", protection),
    ("DELETE", REPO + r"/branches/(?P<branch>.+)/protection", unprotect),
    ("POST", REPO + r"/rulesets", ruleset),
    ("DELETE", REPO + r"/rulesets/(?P<id>\d+)", drop_ruleset),
    ("POST", REPO + r"/statuses/(?P<sha>[^/]+)", status),
    ("POST", r"/_fake/faults", faults),
    ("POST", r"/_fake/clock", clock),
    ("GET", r"/_fake/stats", stats),
    ("GET", r"/_fake/log", log),
]
COMPILED = [(mth, re.compile(p + "$"), fn) for mth, p, fn in ROUTES]


def handle(st, method, path, body, urls):
    """(status, JSON body) of a control call; the state lock is held by the caller."""
    for mth, rx, fn in COMPILED:
        m = rx.match(path)
        if m and mth == method:
            try:
                return fn(st, body if isinstance(body, dict) else {}, m.groupdict(), urls)
            except FakeError as e:
                return e.status, e.body()
            except (RuntimeError, ValueError) as e:
                return 400, {"message": f"fake_github: {path}: {e}"}
    return 404, {"message": f"fake_github: no control route {method} {path}"}
