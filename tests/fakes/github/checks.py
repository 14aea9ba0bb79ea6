"""Checks and Actions jobs of the fake GitHub (a FAKE, for tests only): check suites and check
runs with annotations, commit statuses and the combined status, the jobs of an Actions run and
their logs (GET .../actions/jobs/ID/logs answers 302 to a short-lived log URL, as GitHub does;
the log itself is served at /_logs/ without the API's token, as GitHub's blob storage is).
Shapes follow GitHub's REST description (check-run, check-suite, status, combined-commit-status,
job) key for key. A test makes them with POST /_fake/repos/O/R/check-runs and .../statuses/SHA."""

import hashlib
import re

from . import shapes
from .store import FakeError, invalid, iso, not_found

CONCLUSIONS = ("success", "failure", "neutral", "cancelled", "skipped", "timed_out",
               "action_required", "stale")
STATES = ("error", "failure", "pending", "success")
SHA = re.compile(r"^[0-9a-f]{40}$")


def _checks(r):
    """The repository's checks, made on first use (a state saved before they existed)."""
    return r.setdefault("checks", {"suites": [], "runs": [], "statuses": [], "jobs": []})


def _sha(st, r, ref):
    if SHA.match(ref):
        return ref
    sha = st.ref_sha(r, ref.removeprefix("refs/heads/").removeprefix("heads/"))
    if not sha:
        raise FakeError(422, f"No commit found for SHA: {ref}")
    return sha


def _app(urls):
    """The GitHub Actions app, as a check suite and run name it."""
    owner = shapes.user({"login": "github", "id": 9919, "type": "Organization"}, None, urls)
    return {"id": 15368, "slug": "github-actions", "node_id": "MDM6QXBwMTUzNjg=",
            "owner": owner,
            "name": "GitHub Actions", "description": "Automate your workflow from idea to "
            "production", "external_url": "https://help.github.com/en/actions",
            "html_url": f"{urls.web}/apps/github-actions", "created_at": "2018-07-30T09:30:17Z",
            "updated_at": "2019-12-10T19:04:12Z",
            "permissions": {"checks": "write", "contents": "write", "metadata": "read"},
            "events": ["check_run", "check_suite", "push", "pull_request"]}


def suite_shape(r, s, st, urls):
    api = f"{urls.api}/repos/{r['full_name']}"
    runs = [x for x in _checks(r)["runs"] if x["suite"] == s["id"]]
    return {"id": s["id"], "node_id": shapes.node_id("CheckSuite", s["id"]),
            "head_branch": s.get("branch"), "head_sha": s["head_sha"], "status": s["status"],
            "conclusion": s["conclusion"], "url": f"{api}/check-suites/{s['id']}",
            "before": None, "after": s["head_sha"], "pull_requests": [], "app": _app(urls),
            "repository": shapes.repo(r, st, urls, r["owner"], full=False),
            "created_at": iso(s["created_at"]), "updated_at": iso(s["updated_at"]),
            "latest_check_runs_count": len(runs),
            "check_runs_url": f"{api}/check-suites/{s['id']}/check-runs",
            "head_commit": _head_commit(st, r, s["head_sha"]), "rerequestable": True,
            "runs_rerequestable": True}


def _head_commit(st, r, sha):
    info = st.commit_info(r, sha)
    return {"id": sha, "tree_id": info["tree"], "message": info["message"],
            "timestamp": info["committer"][2],
            "author": {"name": info["author"][0], "email": info["author"][1]},
            "committer": {"name": info["committer"][0], "email": info["committer"][1]}}


def run_shape(r, x, st, urls):
    api = f"{urls.api}/repos/{r['full_name']}"
    web = f"{urls.web}/{r['full_name']}"
    return {"id": x["id"], "head_sha": x["head_sha"],
            "node_id": shapes.node_id("CheckRun", x["id"]),
            "external_id": str(x["id"]), "url": f"{api}/check-runs/{x['id']}",
            "html_url": f"{web}/actions/runs/{x['workflow_run']}/job/{x['id']}",
            "details_url": f"{web}/actions/runs/{x['workflow_run']}/job/{x['id']}",
            "status": x["status"], "conclusion": x["conclusion"],
            "started_at": iso(x["started_at"]),
            "completed_at": iso(x["completed_at"]) if x["completed_at"] else None,
            "output": {"title": x.get("title"), "summary": x.get("summary"), "text": None,
                       "annotations_count": len(x["annotations"]),
                       "annotations_url": f"{api}/check-runs/{x['id']}/annotations"},
            "name": x["name"], "check_suite": {"id": x["suite"]}, "app": _app(urls),
            "pull_requests": []}


def annotation_shape(r, x, a, urls):
    blob = f"{urls.web}/{r['full_name']}/blob/{x['head_sha']}/{a.get('path', '')}"
    return {"path": a.get("path", ".github"), "start_line": a.get("start_line", 1),
            "end_line": a.get("end_line", a.get("start_line", 1)),
            "start_column": a.get("start_column"), "end_column": a.get("end_column"),
            "annotation_level": a.get("annotation_level", "failure"),
            "title": a.get("title", ""), "message": a.get("message", ""),
            "raw_details": a.get("raw_details"), "blob_href": blob}


def job_shape(r, x, st, urls):
    api = f"{urls.api}/repos/{r['full_name']}"
    web = f"{urls.web}/{r['full_name']}"
    done = x["status"] == "completed"
    return {"id": x["id"], "run_id": x["workflow_run"],
            "run_url": f"{api}/actions/runs/{x['workflow_run']}",
            "run_attempt": 1, "node_id": shapes.node_id("CheckRun", x["id"]),
            "head_sha": x["head_sha"], "url": f"{api}/actions/jobs/{x['id']}",
            "html_url": f"{web}/actions/runs/{x['workflow_run']}/job/{x['id']}",
            "status": x["status"], "conclusion": x["conclusion"],
            "created_at": iso(x["started_at"]), "started_at": iso(x["started_at"]),
            "completed_at": iso(x["completed_at"]) if done else None, "name": x["name"],
            "steps": [{"name": "Run the checks", "status": x["status"],
                       "conclusion": x["conclusion"], "number": 1,
                       "started_at": iso(x["started_at"]),
                       "completed_at": iso(x["completed_at"]) if done else None}],
            "check_run_url": f"{api}/check-runs/{x['id']}", "labels": ["ubuntu-latest"],
            "runner_id": 1, "runner_name": "GitHub Actions 1", "runner_group_id": 2,
            "runner_group_name": "GitHub Actions", "workflow_name": x.get("workflow", "CI"),
            "head_branch": x.get("branch")}


def status_shape(r, s, st, urls):
    return {"url": f"{urls.api}/repos/{r['full_name']}/statuses/{s['sha']}",
            "avatar_url": f"{urls.web}/avatars/u/{st.users[s['creator']]['id']}?v=4",
            "id": s["id"], "node_id": shapes.node_id("StatusContext", s["id"]),
            "state": s["state"], "description": s.get("description"),
            "target_url": s.get("target_url"), "context": s["context"],
            "created_at": iso(s["created_at"]), "updated_at": iso(s["created_at"]),
            "creator": shapes.user_of(s["creator"], st, urls)}


# --- made by a test (/_fake/) ------------------------------------------------------------------
def add_check_run(st, r, b):
    """A check run of GitHub Actions on a commit (head_sha, or the tip of branch): name, status
    (default completed), conclusion, annotations [{path, start_line, message, ...}] and log (the
    job's log text). It is the job of a workflow run in its own check suite; as on GitHub the
    check run's id is the job's."""
    c = _checks(r)
    ref = b.get("head_sha") or b.get("branch")
    if not ref or not b.get("name"):
        raise invalid("CheckRun", "head_sha" if not ref else "name", "missing_field")
    sha = _sha(st, r, ref)
    status = b.get("status", "completed")
    if status not in ("queued", "in_progress", "completed"):
        raise invalid("CheckRun", "status")
    conclusion = b.get("conclusion") if status == "completed" else None
    if status == "completed" and conclusion not in CONCLUSIONS:
        raise invalid("CheckRun", "conclusion")
    now = st.now()
    suite = {"id": st.new_id(), "head_sha": sha, "branch": b.get("branch"), "status": status,
             "conclusion": conclusion, "created_at": now, "updated_at": now}
    c["suites"].append(suite)
    run = {"id": st.new_id(), "workflow": b.get("workflow", "ci.yml"), "ref": b.get("branch") or
           r["default_branch"], "inputs": {}, "actor": r["owner"], "number": len(r["runs"]) + 1,
           "created_at": now, "updated_at": now, "status": status, "conclusion": conclusion,
           "event": "pull_request"}
    x = {"id": st.new_id(), "suite": suite["id"], "workflow_run": run["id"], "head_sha": sha,
         "name": b["name"], "status": status, "conclusion": conclusion, "started_at": now,
         "completed_at": now if status == "completed" else None, "title": b.get("title"),
         "summary": b.get("summary"), "annotations": list(b.get("annotations") or []),
         "log": b.get("log", ""), "branch": b.get("branch"), "workflow": run["workflow"]}
    c["runs"].append(x)
    return x


def add_status(st, r, sha, login, b):
    if b.get("state") not in STATES:
        raise invalid("Status", "state")
    s = {"id": st.new_id(), "sha": _sha(st, r, sha), "state": b["state"],
         "context": b.get("context") or "default", "description": b.get("description"),
         "target_url": b.get("target_url"), "creator": login, "created_at": st.now()}
    _checks(r)["statuses"].append(s)
    return s


# --- the API ---------------------------------------------------------------------------------
def _run(r, ident):
    for x in _checks(r)["runs"]:
        if x["id"] == int(ident):
            return x
    raise not_found()


def commit_check_runs(req, m):
    from .api import repo_of
    r = repo_of(req, m)
    sha = _sha(req.st, r, m["ref"])
    items = [x for x in _checks(r)["runs"] if x["head_sha"] == sha]
    if req.arg("check_name"):
        items = [x for x in items if x["name"] == req.arg("check_name")]
    if req.arg("status"):
        items = [x for x in items if x["status"] == req.arg("status")]
    if req.arg("filter", "latest") == "latest":  # the newest run of each name
        newest = {}
        for x in items:
            newest[x["name"]] = x
        items = list(newest.values())
    items.sort(key=lambda x: x["id"], reverse=True)
    page = req.paginate(items)
    return 200, {"total_count": len(items),
                 "check_runs": [run_shape(r, x, req.st, req.urls) for x in page]}


def commit_check_suites(req, m):
    from .api import repo_of
    r = repo_of(req, m)
    sha = _sha(req.st, r, m["ref"])
    items = [s for s in _checks(r)["suites"] if s["head_sha"] == sha]
    page = req.paginate(items)
    return 200, {"total_count": len(items),
                 "check_suites": [suite_shape(r, s, req.st, req.urls) for s in page]}


def get_check_run(req, m):
    from .api import repo_of
    r = repo_of(req, m)
    return 200, run_shape(r, _run(r, m["id"]), req.st, req.urls)


def check_run_annotations(req, m):
    from .api import repo_of
    r = repo_of(req, m)
    x = _run(r, m["id"])
    return 200, [annotation_shape(r, x, a, req.urls) for a in req.paginate(x["annotations"])]


def get_check_suite(req, m):
    from .api import repo_of
    r = repo_of(req, m)
    for s in _checks(r)["suites"]:
        if s["id"] == int(m["id"]):
            return 200, suite_shape(r, s, req.st, req.urls)
    raise not_found()


def commit_statuses(req, m):
    from .api import repo_of
    r = repo_of(req, m)
    sha = _sha(req.st, r, m["ref"])
    items = sorted((s for s in _checks(r)["statuses"] if s["sha"] == sha),
                   key=lambda s: s["id"], reverse=True)
    return 200, [status_shape(r, s, req.st, req.urls) for s in req.paginate(items)]


def combined_status(req, m):
    """GitHub's rule: failure if any context's latest is error or failure, pending if any is
    pending (or none exists), else success."""
    from .api import repo_of
    r = repo_of(req, m)
    sha = _sha(req.st, r, m["ref"])
    latest = {}
    for s in sorted((s for s in _checks(r)["statuses"] if s["sha"] == sha),
                    key=lambda s: s["id"]):
        latest[s["context"]] = s
    states = [s["state"] for s in latest.values()]
    state = ("failure" if {"error", "failure"} & set(states)
             else "pending" if "pending" in states or not states else "success")
    items = sorted(latest.values(), key=lambda s: s["id"], reverse=True)
    api = f"{req.urls.api}/repos/{r['full_name']}"
    # Its statuses are GitHub's simple-commit-status: no creator.
    simple = [{k: v for k, v in status_shape(r, s, req.st, req.urls).items() if k != "creator"}
              for s in req.paginate(items)]
    return 200, {"state": state, "statuses": simple,
                 "sha": sha, "total_count": len(items),
                 "repository": shapes.repo(r, req.st, req.urls, req.login, full=False),
                 "commit_url": f"{api}/commits/{sha}", "url": f"{api}/commits/{sha}/status"}


def create_status(req, m):
    from .api import writable
    r = writable(req, m)
    b = req.need("state")
    return 201, status_shape(r, add_status(req.st, r, m["sha"], req.login, b), req.st, req.urls)


def run_jobs(req, m):
    from .api import repo_of
    r = repo_of(req, m)
    items = [x for x in _checks(r)["runs"] if x["workflow_run"] == int(m["id"])]
    page = req.paginate(items)
    return 200, {"total_count": len(items),
                 "jobs": [job_shape(r, x, req.st, req.urls) for x in page]}


def get_job(req, m):
    from .api import repo_of
    r = repo_of(req, m)
    return 200, job_shape(r, _run(r, m["id"]), req.st, req.urls)


def log_signature(st, r, x):
    return hashlib.sha256(f"{st.root}:{r['full_name']}:{x['id']}".encode()).hexdigest()[:40]


def job_logs(req, m):
    """302 to the log, as GitHub does (its Location is a signed blob URL, good for a minute,
    asked without the API's token)."""
    from .api import repo_of
    r = repo_of(req, m)
    if req.login is None:
        raise FakeError(401, "Requires authentication")  # GitHub: logs need read access signed in
    x = _run(r, m["id"])
    sig = log_signature(req.st, r, x)
    req.headers["Location"] = (f"{req.urls.web}/_logs/{r['full_name']}/jobs/{x['id']}"
                               f"?sv=2021-12-02&se=1&sig={sig}")
    return 302, None


LOG_PATH = re.compile(r"^/_logs/(?P<owner>[^/]+)/(?P<repo>[^/]+)/jobs/(?P<id>\d+)$")


def log_text(st, path, query):
    """The log a job_logs Location names: (status, text); 403 for a wrong signature."""
    m = LOG_PATH.match(path)
    r = m and st.repos.get(f"{m['owner']}/{m['repo']}")
    if not r:
        return 404, "BlobNotFound"
    for x in _checks(r)["runs"]:
        if x["id"] == int(m["id"]):
            if query.get("sig") != log_signature(st, r, x):
                return 403, "AuthenticationFailed"
            return 200, x["log"]
    return 404, "BlobNotFound"


REPO = r"/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)"
ROUTES = [
    ("GET", REPO + r"/commits/(?P<ref>.+)/check-runs", commit_check_runs),
    ("GET", REPO + r"/commits/(?P<ref>.+)/check-suites", commit_check_suites),
    ("GET", REPO + r"/commits/(?P<ref>.+)/statuses", commit_statuses),
    ("GET", REPO + r"/commits/(?P<ref>.+)/status", combined_status),
    ("POST", REPO + r"/statuses/(?P<sha>[0-9a-f]{40})", create_status),
    ("GET", REPO + r"/check-runs/(?P<id>\d+)", get_check_run),
    ("GET", REPO + r"/check-runs/(?P<id>\d+)/annotations", check_run_annotations),
    ("GET", REPO + r"/check-suites/(?P<id>\d+)", get_check_suite),
    ("GET", REPO + r"/actions/runs/(?P<id>\d+)/jobs", run_jobs),
    ("GET", REPO + r"/actions/jobs/(?P<id>\d+)", get_job),
    ("GET", REPO + r"/actions/jobs/(?P<id>\d+)/logs", job_logs),
]
