"""The REST routes of the fake GitHub (a FAKE, for tests only). Each handler takes the Request
and the route's match and returns (status, body[, headers]); it raises FakeError for GitHub's
error answers. The server (server.py) adds auth, rate limits, ETags and the log around them."""

import json
import re
import subprocess

from . import artifacts, checks, reviews, rules, shapes
from .store import FakeError, invalid, not_found, parse_iso

PULLS_DOC = "https://docs.github.com/rest/pulls/pulls#create-a-pull-request"
LABELS_DOC = "https://docs.github.com/rest/issues/labels#create-a-label"


class Request:
    """What a handler sees: the state, the viewer's login (or None), the query, the JSON body,
    the Urls to render with, and paginate() for lists."""

    def __init__(self, st, login, query, body, urls, link_base, bucket):
        self.st, self.login, self.query, self.body, self.urls = st, login, query, body, urls
        self.link_base = link_base  # the list's URL without page (GitHub's /repositories/ID/..)
        self.bucket = bucket  # the token's rate-limit window
        self.headers = {}
        self.counted = True  # against the rate limit (a handler may say no, as /rate_limit)

    def arg(self, name, default=None):
        return self.query.get(name, default)

    def paginate(self, items):
        try:
            per_page = min(max(int(self.arg("per_page", 30)), 1), 100)
            page = max(int(self.arg("page", 1)), 1)
        except ValueError:
            per_page, page = 30, 1
        last = max((len(items) + per_page - 1) // per_page, 1)
        links = []

        def url(p):
            q = [(k, v) for k, v in self.query.items() if k != "page"] + [("page", str(p))]
            return self.link_base + "?" + "&".join(f"{k}={v}" for k, v in q)

        if page < last:
            links += [f'<{url(page + 1)}>; rel="next"', f'<{url(last)}>; rel="last"']
        if page > 1:
            links += [f'<{url(1)}>; rel="first"', f'<{url(min(page - 1, last))}>; rel="prev"']
        if links:
            self.headers["Link"] = ", ".join(links)
        return items[(page - 1) * per_page:page * per_page]

    def need(self, *fields):
        body = self.body if isinstance(self.body, dict) else None
        if body is None:
            raise FakeError(400, "Problems parsing JSON")
        for f in fields:
            if f not in body:
                raise invalid("Issue", f, "missing_field")
        return body


def repo_of(req, m, write=False):
    st = req.st
    r = st.repo(m["owner"], m["repo"])
    if not st.can_read(r, req.login):
        raise not_found()  # GitHub hides private repositories from strangers
    if write and req.login is None:
        raise FakeError(401, "Requires authentication")
    return r


def writable(req, m, triage=False):
    """The repository when the user may write there (or label and assign, with triage)."""
    r = repo_of(req, m, write=True)
    allowed = req.st.can_triage if triage else req.st.can_write
    if not allowed(r, req.login):
        raise FakeError(403, "Resource not accessible by personal access token")
    return r


def capped(resource, body):
    """GitHub's own limits: a title of 256 characters, a body of 65536."""
    for field, limit in (("title", 256), ("body", 65536)):
        if isinstance(body.get(field), str) and len(body[field]) > limit:
            raise FakeError(422, "Validation Failed", [
                {"resource": resource, "code": "custom", "field": field,
                 "message": f"{field} is too long (maximum is {limit} characters)"}])
    return body


def rate_limit(req, m):
    """GET /rate_limit: the token's core window; as on GitHub it is not counted."""
    req.counted = False
    b = req.bucket
    core = {"limit": b["limit"], "used": b["limit"] - b["remaining"], "remaining": b["remaining"],
            "reset": b["reset"]}
    search = {"limit": 30, "used": 0, "remaining": 30, "reset": int(req.st.now()) + 60}
    return 200, {"resources": {"core": core, "search": search, "graphql": core}, "rate": core}


# --- users and repositories ------------------------------------------------------------------
def get_user(req, m):
    if req.login is None:
        raise FakeError(401, "Requires authentication")
    if req.st.users[req.login].get("installation"):
        # An installation token (a workflow's github.token) is no user's: GitHub's answer as
        # recorded, the status in the body too.
        e = FakeError(403, "Resource not accessible by integration",
                      doc="https://docs.github.com/rest/users/users#get-the-authenticated-user")
        return 403, dict(e.body(), status="403")
    return 200, shapes.user_full(req.st.users[req.login], req.st, req.urls, private=True)


def get_users(req, m):
    return 200, shapes.user_full(req.st.user(m["login"]), req.st, req.urls)


def get_repo(req, m):
    return 200, shapes.repo(repo_of(req, m), req.st, req.urls, req.login)


def get_permission(req, m):
    r = repo_of(req, m)
    req.st.user(m["login"])
    return 200, shapes.permission(r, req.st, req.urls, m["login"])


def poll_interval(req):
    """GitHub's X-Poll-Interval (60 s); POST /_fake/faults {"poll_interval": N} changes it, 0
    leaves it out."""
    n = req.st.faults.get("poll_interval", 60)
    if n:
        req.headers["X-Poll-Interval"] = str(n)


# --- issues ----------------------------------------------------------------------------------
def list_issues(req, m):
    r = repo_of(req, m)
    state = req.arg("state", "open")
    items = [i for i in r["issues"].values() if state == "all" or i["state"] == state]
    if req.arg("labels"):
        want = {x.strip().lower() for x in req.arg("labels").split(",")}
        items = [i for i in items if want <= {n.lower() for n in i["labels"]}]
    if req.arg("since"):
        since = parse_iso(req.arg("since"))
        items = [i for i in items if i["updated_at"] >= since]
    for key, field in (("creator", "user"),):
        if req.arg(key):
            items = [i for i in items if i[field] == req.arg(key)]
    if req.arg("assignee") not in (None, "*"):
        items = [i for i in items if req.arg("assignee") in i["assignees"]]
    sort = {"created": "created_at", "updated": "updated_at"}.get(req.arg("sort"), "created_at")
    items.sort(key=lambda i: (i[sort], i["number"]), reverse=req.arg("direction") != "asc")
    poll_interval(req)
    return 200, [shapes.issue(r, i, req.st, req.urls) for i in req.paginate(items)]


def get_issue(req, m):
    r = repo_of(req, m)
    return 200, shapes.issue_single(r, req.st.issue(r, m["n"]), req.st, req.urls)


def create_issue(req, m):
    r = repo_of(req, m, write=True)
    b = capped("Issue", req.need("title"))
    triage = req.st.can_triage(r, req.login)  # GitHub drops the others' labels and assignees
    i = req.st.add_issue(r, req.login, b["title"], b.get("body"),
                         (b.get("labels") or []) if triage else [],
                         (b.get("assignees") or []) if triage else [])
    req.headers["Location"] = f"{req.urls.api}/repos/{r['full_name']}/issues/{i['number']}"
    return 201, shapes.issue_single(r, i, req.st, req.urls)


def update_issue(req, m):
    r = repo_of(req, m, write=True)
    st, b = req.st, capped("Issue", req.need())
    i = st.issue(r, m["n"])
    if i["user"] != req.login and not st.can_triage(r, req.login):
        raise FakeError(403, "Must have admin rights to Repository.")
    if not st.can_triage(r, req.login):  # the author edits text and state only
        b = {k: v for k, v in b.items() if k in ("title", "body", "state", "state_reason")}
    for key in ("title", "body"):
        if key in b:
            i[key] = b[key]
    if "state" in b:
        st.set_state(r, i, req.login, b["state"], b.get("state_reason"))
    if "labels" in b:  # events only for what changes, as GitHub records them
        names = [n["name"] if isinstance(n, dict) else n for n in b["labels"]]
        wanted = {n.lower() for n in names}
        for name in [n for n in i["labels"] if n.lower() not in wanted]:
            st.remove_label(r, i, req.login, name)
        st.add_labels(r, i, req.login, names)
    if "assignees" in b:
        st.assign(r, i, req.login, [a for a in i["assignees"] if a not in b["assignees"]], True)
        st.assign(r, i, req.login, b["assignees"])
    i["updated_at"] = st.now()
    return 200, shapes.issue_single(r, i, st, req.urls)


# --- comments and reactions ------------------------------------------------------------------
def list_comments(req, m):
    """An issue's comments, or with no issue number the repository's (`sort`, `direction`)."""
    r = repo_of(req, m)
    if m.get("n"):
        items = req.st.comments_of(r, req.st.issue(r, m["n"]))
    else:
        items = list(r["comments"].values())
    if req.arg("since"):
        since = parse_iso(req.arg("since"))
        items = [c for c in items if c["updated_at"] >= since]
    key = "updated_at" if req.arg("sort") == "updated" else "created_at"
    items.sort(key=lambda c: (c[key], c["id"]), reverse=req.arg("direction") == "desc")
    return 200, [shapes.comment(r, c, req.st, req.urls) for c in req.paginate(items)]


def create_comment(req, m):
    r = repo_of(req, m, write=True)
    b = capped("IssueComment", req.need("body"))
    c = req.st.add_comment(r, req.st.issue(r, m["n"]), req.login, b["body"])
    req.headers["Location"] = f"{req.urls.api}/repos/{r['full_name']}/issues/comments/{c['id']}"
    return 201, shapes.comment(r, c, req.st, req.urls)


def get_comment(req, m):
    r = repo_of(req, m)
    return 200, shapes.comment(r, req.st.comment(r, m["id"]), req.st, req.urls)


def own_comment(req, m):
    r = repo_of(req, m, write=True)
    c = req.st.comment(r, m["id"])
    if c["user"] != req.login and not req.st.can_write(r, req.login):
        raise FakeError(403, "Must have admin rights to Repository.")
    return r, c


def update_comment(req, m):
    r, c = own_comment(req, m)
    c["body"] = capped("IssueComment", req.need("body"))["body"]
    c["updated_at"] = req.st.now()
    return 200, shapes.comment(r, c, req.st, req.urls)


def delete_comment(req, m):
    r, c = own_comment(req, m)
    del r["comments"][c["id"]]
    return 204, None


def list_reactions(req, m):
    r = repo_of(req, m)
    c = req.st.comment(r, m["id"])
    items = [x for x in r["reactions"] if x["comment"] == c["id"]]
    return 200, [shapes.reaction(x, req.st, req.urls) for x in req.paginate(items)]


def create_reaction(req, m):
    r = repo_of(req, m, write=True)
    c = req.st.comment(r, m["id"])
    content = req.need("content")["content"]
    if content not in shapes.REACTIONS:
        raise invalid("Reaction", "content")
    for x in r["reactions"]:
        if x["comment"] == c["id"] and x["user"] == req.login and x["content"] == content:
            return 200, shapes.reaction(x, req.st, req.urls)
    x = {"id": req.st.new_id(), "comment": c["id"], "user": req.login, "content": content,
         "created_at": req.st.now()}
    r["reactions"].append(x)
    return 201, shapes.reaction(x, req.st, req.urls)


# --- labels, assignees, events ---------------------------------------------------------------
def list_labels(req, m):
    r = repo_of(req, m)
    items = sorted(r["labels"].values(), key=lambda lab: lab["name"].lower())
    return 200, [shapes.label(r, lab, req.urls) for lab in req.paginate(items)]


def create_label(req, m):
    r = writable(req, m)
    b = req.need("name")
    color = b.get("color", "ededed")
    if not re.fullmatch(r"[0-9a-fA-F]{6}", color):
        raise invalid("Label", "color", doc=LABELS_DOC)
    if req.st.label(r, b["name"], create=False):
        raise invalid("Label", "name", "already_exists", doc=LABELS_DOC)
    lab = req.st.label(r, b["name"], color, b.get("description"))
    return 201, shapes.label(r, lab, req.urls)


def issue_labels(req, m):
    r = repo_of(req, m)
    i = req.st.issue(r, m["n"])
    return 200, [shapes.label(r, req.st.label(r, n), req.urls) for n in i["labels"]]


def add_issue_labels(req, m):
    r = writable(req, m, triage=True)
    b = req.body
    names = b.get("labels") if isinstance(b, dict) else b
    if not isinstance(names, list):
        raise invalid("Label", "labels")
    i = req.st.issue(r, m["n"])
    req.st.add_labels(r, i, req.login, [n["name"] if isinstance(n, dict) else n for n in names])
    return 200, [shapes.label(r, req.st.label(r, n), req.urls) for n in i["labels"]]


def remove_issue_label(req, m):
    r = writable(req, m, triage=True)
    i = req.st.issue(r, m["n"])
    req.st.remove_label(r, i, req.login, m["name"])
    return 200, [shapes.label(r, req.st.label(r, n), req.urls) for n in i["labels"]]


def assignees(req, m, remove):
    r = writable(req, m, triage=True)
    i = req.st.issue(r, m["n"])
    req.st.assign(r, i, req.login, req.need("assignees")["assignees"], remove)
    return (200 if remove else 201), shapes.issue_single(r, i, req.st, req.urls)


def issue_events(req, m):
    r = repo_of(req, m)
    i = req.st.issue(r, m["n"])
    items = [e for e in r["events"] if e["issue"] == i["number"]]
    poll_interval(req)
    return 200, [shapes.event(r, e, req.st, req.urls) for e in req.paginate(items)]


def repo_events(req, m):
    r = repo_of(req, m)
    items = sorted(r["events"], key=lambda e: e["id"], reverse=True)
    poll_interval(req)
    return 200, [shapes.event(r, e, req.st, req.urls, True) for e in req.paginate(items)]


# --- pull requests, refs, workflows ----------------------------------------------------------
def fork_of(st, r, owner, named=None):
    """OWNER's fork of R (the one named "owner/name" when the body names head_repo), or None."""
    for f in st.repos.values():
        if f["owner"] == owner and f.get("parent") == r["full_name"] and \
                (named is None or f["name"] == named):
            return f
    return None


def create_pull(req, m):
    st, b = req.st, req.need("head", "base")
    owner, _, head = b["head"].rpartition(":")
    r = repo_of(req, m, write=True)
    owner = owner or r["owner"]
    # From a fork anyone who may read the base repository opens one (GitHub asks for push on
    # the fork, not on the base); from a branch of the repository itself, write access.
    head_repo = r if owner == r["owner"] else fork_of(st, r, owner, b.get("head_repo"))
    if head_repo is r:
        r = writable(req, m)
    elif head_repo is not None and not st.can_write(head_repo, req.login):
        raise FakeError(403, "Resource not accessible by personal access token")
    if r["pr_refused"]:
        raise FakeError(422, "Validation Failed", [{"resource": "PullRequest", "code": "custom",
                        "message": "pull request refused by the FAKE GitHub (pr_refused)"}],
                        PULLS_DOC)
    if head_repo is None or not st.ref_sha(head_repo, head):
        raise FakeError(422, "Validation Failed",
                        [{"resource": "PullRequest", "field": "head", "code": "invalid"}],
                        PULLS_DOC)
    if not st.ref_sha(r, b["base"]):
        raise FakeError(422, "Validation Failed",
                        [{"resource": "PullRequest", "field": "base", "code": "invalid"}],
                        PULLS_DOC)
    for i in r["issues"].values():
        if i["pull"] and i["state"] == "open" and i["pull"]["head"] == head and \
                i["pull"]["head_owner"] == owner:
            raise FakeError(422, "Validation Failed", [
                {"resource": "PullRequest", "code": "custom",
                 "message": f"A pull request already exists for {owner}:{head}."}], PULLS_DOC)
    if st.ref_sha(head_repo, head) == st.ref_sha(r, b["base"]):
        raise FakeError(422, "Validation Failed", [
            {"resource": "PullRequest", "code": "custom",
             "message": f"No commits between {b['base']} and {head}"}], PULLS_DOC)
    if b.get("draft") and not r["drafts_allowed"]:
        raise FakeError(422, "Draft pull requests are not supported in this repository.",
                        doc=PULLS_DOC)
    if "title" not in b:
        raise invalid("PullRequest", "title", "missing_field", PULLS_DOC)
    capped("PullRequest", b)
    i = st.add_issue(r, req.login, b["title"], b.get("body"))
    i["pull"] = {"id": st.new_id(), "head": head, "head_owner": owner, "base": b["base"],
                 "draft": bool(b.get("draft")), "head_repo": head_repo["full_name"],
                 "requested": []}
    req.headers["Location"] = f"{req.urls.api}/repos/{r['full_name']}/pulls/{i['number']}"
    return 201, shapes.pull(r, i, st, req.urls, req.login)


def list_pulls(req, m):
    r = repo_of(req, m)
    state = req.arg("state", "open")
    items = [i for i in r["issues"].values()
             if i["pull"] and (state == "all" or i["state"] == state)]
    if req.arg("head"):
        owner, _, ref = req.arg("head").rpartition(":")
        items = [i for i in items if i["pull"]["head"] == ref
                 and (not owner or i["pull"]["head_owner"] == owner)]
    if req.arg("base"):
        items = [i for i in items if i["pull"]["base"] == req.arg("base")]
    items.sort(key=lambda i: i["number"], reverse=req.arg("direction") != "asc")
    return 200, [shapes.pull(r, i, req.st, req.urls, req.login, full=False)
                 for i in req.paginate(items)]


def get_pull(req, m):
    r = repo_of(req, m)
    i = req.st.issue(r, m["n"])
    if not i["pull"]:
        raise not_found()
    return 200, shapes.pull(r, i, req.st, req.urls, req.login)


def update_pull(req, m):
    r = writable(req, m)
    st, b = req.st, capped("PullRequest", req.need())
    i = st.issue(r, m["n"])
    if not i["pull"]:
        raise not_found()
    for key in ("title", "body"):
        if key in b:
            i[key] = b[key]
    if "base" in b:
        if not st.ref_sha(r, b["base"]):
            raise FakeError(422, "Validation Failed", [
                {"resource": "PullRequest", "field": "base", "code": "invalid"}], PULLS_DOC)
        i["pull"]["base"] = b["base"]
    if "state" in b:
        st.set_state(r, i, req.login, b["state"])
    i["updated_at"] = st.now()
    return 200, shapes.pull(r, i, st, req.urls, req.login)


def get_ref(req, m):
    r = repo_of(req, m)
    sha = req.st.ref_sha(r, m["branch"])
    if not sha:
        raise not_found()
    return 200, shapes.git_ref(r, m["branch"], sha, req.urls)


def get_branch(req, m):
    r = repo_of(req, m)
    sha = req.st.ref_sha(r, m["branch"])
    if not sha:
        raise FakeError(404, "Branch not found")
    return 200, shapes.branch(r, m["branch"], sha, req.st, req.urls)


PROTECTION_DOC = "https://docs.github.com/rest/branches/branch-protection"


def protected_branch(req, m):
    """(repository, branch, its protection or None). GitHub answers a branch's protection to
    its administrators only (404 to others); a branch without protection is 404 "Branch not
    protected"."""
    r = repo_of(req, m)
    if req.st.role(r, req.login) != "admin":
        raise not_found()
    if not req.st.ref_sha(r, m["branch"]):
        raise FakeError(404, "Branch not found", doc=PROTECTION_DOC + "#get-branch-protection")
    return r, m["branch"], shapes.branch_protection(r, m["branch"])


def get_protection(req, m):
    r, name, p = protected_branch(req, m)
    if p is None:
        raise FakeError(404, "Branch not protected", doc=PROTECTION_DOC + "#get-branch-protection")
    url = f"{req.urls.api}/repos/{r['full_name']}/branches/{name}/protection"
    off = {"enabled": False}
    return 200, {"url": url,
                 "required_status_checks": shapes.required_status_checks(r, name, p, req.urls),
                 "enforce_admins": {"url": url + "/enforce_admins",
                                    "enabled": p["enforcement_level"] == "everyone"},
                 "required_linear_history": off, "allow_force_pushes": off,
                 "allow_deletions": off, "block_creations": off,
                 "required_conversation_resolution": off, "lock_branch": off,
                 "allow_fork_syncing": off}


def get_required_checks(req, m):
    r, name, p = protected_branch(req, m)
    if p is None:
        raise FakeError(404, "Branch not protected",
                        doc=PROTECTION_DOC + "#get-status-checks-protection")
    return 200, shapes.required_status_checks(r, name, p, req.urls)


def issue_timeline(req, m):
    r = repo_of(req, m)
    i = req.st.issue(r, m["n"])
    return 200, req.paginate(shapes.timeline(r, i, req.st, req.urls))


DISPATCH_DOC = ("https://docs.github.com/rest/actions/workflows"
                "#create-a-workflow-dispatch-event")


def workflow_file(req, r, wf, ref):
    """The workflow's text at ref, as GitHub finds it: .github/workflows/WF (404 when absent)."""
    bare = req.st.bare_path(r["full_name"])
    out = subprocess.run(["git", "show", f"{ref}:.github/workflows/{wf}"], cwd=bare,
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise not_found()
    return out.stdout


def declared_inputs(text):
    """The input names a workflow's `on: workflow_dispatch: inputs:` declares, read by indentation
    (the block forms workflows are written in; a flow-form `workflow_dispatch: {...}` declares
    none here). GitHub refuses a dispatch naming any other input."""
    lines = text.splitlines()
    names, trigger, block = set(), None, None
    for line in lines:
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        indent = len(line) - len(line.lstrip())
        key = re.match(r"\s*([A-Za-z_][A-Za-z0-9_-]*)\s*:", line)
        if trigger is not None and indent <= trigger:
            trigger, block = None, None
        if block is not None and indent <= block:
            block = None
        if trigger is None:
            if key and key.group(1) == "workflow_dispatch":
                trigger = indent
            continue
        if block is None:
            if key and key.group(1) == "inputs" and line.rstrip().endswith(":"):
                block, child = indent, None
            continue
        if key and (child is None or indent == child):
            child = indent
            names.add(key.group(1))
    return names


def dispatch(req, m):
    r = writable(req, m)
    b = req.need("ref")
    ref = b["ref"].removeprefix("refs/heads/")
    if not req.st.ref_sha(r, ref):
        raise FakeError(422, f"No ref found for: {b['ref']}", doc=DISPATCH_DOC)
    text = workflow_file(req, r, m["wf"], ref)
    if "workflow_dispatch" not in text:
        raise FakeError(422, "Workflow does not have 'workflow_dispatch' trigger",
                        doc=DISPATCH_DOC)
    inputs = b.get("inputs") or {}
    if not isinstance(inputs, dict) or len(inputs) > 25:
        raise FakeError(422, "you may only define up to 25 `inputs` for a `workflow_dispatch` "
                        "event", doc=DISPATCH_DOC)
    unexpected = sorted(set(inputs) - declared_inputs(text))
    if unexpected:
        raise FakeError(422, "Unexpected inputs provided: " + json.dumps(unexpected),
                        doc=DISPATCH_DOC)
    run = {"id": req.st.new_id(), "workflow": m["wf"], "ref": ref, "inputs": inputs,
           "actor": req.login, "number": len(r["runs"]) + 1, "created_at": req.st.now(),
           "updated_at": req.st.now(), "status": "queued", "conclusion": None}
    r["runs"].append(run)
    if not b.get("return_run_details"):
        return 204, None
    api = f"{req.urls.api}/repos/{r['full_name']}/actions/runs/{run['id']}"
    return 200, {"workflow_run_id": run["id"], "run_url": api,
                 "html_url": f"{req.urls.web}/{r['full_name']}/actions/runs/{run['id']}"}


def runs_of(req, m, workflow=None):
    r = repo_of(req, m)
    items = sorted(r["runs"], key=lambda x: x["id"], reverse=True)
    if workflow:
        items = [x for x in items if x["workflow"] == workflow]
    if req.arg("event") and req.arg("event") != "workflow_dispatch":
        items = []  # the fake's runs are all dispatched
    status = req.arg("status")
    if status:
        items = [x for x in items if status in (x["status"], x["conclusion"])]
    if req.arg("branch"):
        items = [x for x in items if x["ref"] == req.arg("branch")]
    page = req.paginate(items)
    return 200, {"total_count": len(items),
                 "workflow_runs": [shapes.run(r, x, req.st, req.urls, req.login)
                                   for x in page]}


def list_runs(req, m):
    return runs_of(req, m)


def list_workflow_runs(req, m):
    return runs_of(req, m, m["wf"])


def get_run(req, m):
    r = repo_of(req, m)
    for x in r["runs"]:
        if x["id"] == int(m["id"]):
            return 200, shapes.run(r, x, req.st, req.urls, req.login)
    raise not_found()


REPO = r"/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)"
ROUTES = [
    ("GET", r"/rate_limit", rate_limit),
    ("GET", r"/user", get_user),
    ("GET", r"/users/(?P<login>[^/]+)", get_users),
    ("GET", REPO, get_repo),
    ("GET", REPO + r"/collaborators/(?P<login>[^/]+)/permission", get_permission),
    ("GET", REPO + r"/issues", list_issues),
    ("POST", REPO + r"/issues", create_issue),
    ("GET", REPO + r"/issues/events", repo_events),
    ("GET", REPO + r"/issues/comments", list_comments),
    ("GET", REPO + r"/issues/comments/(?P<id>\d+)", get_comment),
    ("PATCH", REPO + r"/issues/comments/(?P<id>\d+)", update_comment),
    ("DELETE", REPO + r"/issues/comments/(?P<id>\d+)", delete_comment),
    ("GET", REPO + r"/issues/comments/(?P<id>\d+)/reactions", list_reactions),
    ("POST", REPO + r"/issues/comments/(?P<id>\d+)/reactions", create_reaction),
    ("GET", REPO + r"/issues/(?P<n>\d+)", get_issue),
    ("PATCH", REPO + r"/issues/(?P<n>\d+)", update_issue),
    ("GET", REPO + r"/issues/(?P<n>\d+)/comments", list_comments),
    ("POST", REPO + r"/issues/(?P<n>\d+)/comments", create_comment),
    ("GET", REPO + r"/issues/(?P<n>\d+)/labels", issue_labels),
    ("POST", REPO + r"/issues/(?P<n>\d+)/labels", add_issue_labels),
    ("DELETE", REPO + r"/issues/(?P<n>\d+)/labels/(?P<name>[^/]+)", remove_issue_label),
    ("POST", REPO + r"/issues/(?P<n>\d+)/assignees", lambda q, m: assignees(q, m, False)),
    ("DELETE", REPO + r"/issues/(?P<n>\d+)/assignees", lambda q, m: assignees(q, m, True)),
    ("GET", REPO + r"/issues/(?P<n>\d+)/events", issue_events),
    ("GET", REPO + r"/issues/(?P<n>\d+)/timeline", issue_timeline),
    ("GET", REPO + r"/labels", list_labels),
    ("POST", REPO + r"/labels", create_label),
    ("GET", REPO + r"/pulls", list_pulls),
    ("POST", REPO + r"/pulls", create_pull),
    ("GET", REPO + r"/pulls/(?P<n>\d+)", get_pull),
    ("PATCH", REPO + r"/pulls/(?P<n>\d+)", update_pull),
    ("GET", REPO + r"/git/ref/heads/(?P<branch>.+)", get_ref),
    # Before GET .../branches/B, whose B would swallow them.
    ("GET", REPO + r"/branches/(?P<branch>.+)/protection/required_status_checks",
     get_required_checks),
    ("GET", REPO + r"/branches/(?P<branch>.+)/protection", get_protection),
    ("GET", REPO + r"/branches/(?P<branch>.+)", get_branch),
    ("POST", REPO + r"/actions/workflows/(?P<wf>[^/]+)/dispatches", dispatch),
    ("GET", REPO + r"/actions/runs", list_runs),
    ("GET", REPO + r"/actions/runs/(?P<id>\d+)", get_run),
    ("GET", REPO + r"/actions/workflows/(?P<wf>[^/]+)/runs", list_workflow_runs),
]
ROUTES += reviews.ROUTES  # reviews, review comments and their threads, requested reviewers
ROUTES += checks.ROUTES  # check suites and runs, statuses, Actions jobs and their logs
ROUTES += artifacts.ROUTES  # the artifacts of Actions runs
ROUTES += rules.ROUTES  # the active rules of a branch's rulesets
COMPILED = [(method, re.compile(pattern + "$"), fn) for method, pattern, fn in ROUTES]


def route(method, path):
    """(handler, match) for a request, or raises 404 as GitHub does for an unknown route."""
    for mth, rx, fn in COMPILED:
        m = rx.match(path)
        if m and mth == method:
            return fn, m.groupdict()
    raise not_found()
