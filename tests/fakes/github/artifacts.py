"""The artifacts of the fake GitHub's Actions runs (a FAKE, for tests only), shaped after
GitHub's REST description (GET /repos/O/R/actions/artifacts and .../actions/runs/ID/artifacts,
both with an exact `name` filter). On GitHub only a run's own jobs upload its artifacts (with the
run's runtime token); here a test does it through /_fake/ as the run's agent job would."""

from . import shapes
from .store import FakeError, invalid, iso, not_found

RETENTION = 90 * 86400  # GitHub's default; the reusable workflow asks for less


def _run(r, ident):
    for x in r["runs"]:
        if x["id"] == ident:
            return x
    raise not_found()


def add_artifact(st, r, run_id, name, urls):
    """An artifact NAME of the run RUN_ID; GitHub refuses a second of one name in a run."""
    x = _run(r, run_id)
    if not name or not isinstance(name, str):
        raise invalid("Artifact", "name")
    kept = x.setdefault("artifacts", [])
    if any(a["name"] == name for a in kept):
        raise FakeError(409, "an artifact with this name already exists on the workflow run")
    a = {"id": st.new_id(), "name": name, "created_at": st.now()}
    kept.append(a)
    return shape(r, x, a, st, urls)


def shape(r, x, a, st, urls):
    api = f"{urls.api}/repos/{r['full_name']}/actions/artifacts/{a['id']}"
    return {"id": a["id"], "node_id": shapes.node_id("Artifact", a["id"]), "name": a["name"],
            "size_in_bytes": 1024, "url": api, "archive_download_url": api + "/zip",
            "expired": False, "created_at": iso(a["created_at"]),
            "updated_at": iso(a["created_at"]), "expires_at": iso(a["created_at"] + RETENTION),
            "workflow_run": {"id": x["id"], "repository_id": r["id"],
                             "head_repository_id": r["id"], "head_branch": x["ref"],
                             "head_sha": st.ref_sha(r, x["ref"])}}


def _list(req, m, runs):
    from .api import repo_of  # api imports this module for its routes
    r = repo_of(req, m)
    items = [(x, a) for x in runs(r) for a in x.get("artifacts", [])
             if req.arg("name") in (None, a["name"])]
    items.sort(key=lambda xa: xa[1]["id"], reverse=True)  # newest first, as GitHub
    page = req.paginate(items)
    return 200, {"total_count": len(items),
                 "artifacts": [shape(r, x, a, req.st, req.urls) for x, a in page]}


def repo_artifacts(req, m):
    return _list(req, m, lambda r: r["runs"])


def run_artifacts(req, m):
    return _list(req, m, lambda r: [_run(r, int(m["id"]))])


REPO = r"/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)"
ROUTES = [
    ("GET", REPO + r"/actions/artifacts", repo_artifacts),
    ("GET", REPO + r"/actions/runs/(?P<id>\d+)/artifacts", run_artifacts),
]
