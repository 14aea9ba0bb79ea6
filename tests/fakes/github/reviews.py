"""Pull request reviews on the fake GitHub (a FAKE, for tests only): reviews with their states,
review comments anchored to a line of the pull request's diff (path, line, position, the diff
hunk GitHub cuts up to that line), replies in a thread (in_reply_to_id names the thread's first
comment, as on GitHub), requested reviewers, and the pull request's files (GET .../pulls/N/files). The state lives on the repository (`reviews`,
`review_comments`) and on the pull (`requested`); api.py adds ROUTES to its own."""

import re

from . import shapes
from .store import FakeError, git, invalid, not_found

REVIEWS_DOC = "https://docs.github.com/rest/pulls/reviews#create-a-review-for-a-pull-request"
COMMENTS_DOC = ("https://docs.github.com/rest/pulls/comments"
                "#create-a-review-comment-for-a-pull-request")
REVIEWERS_DOC = ("https://docs.github.com/rest/pulls/review-requests"
                 "#request-reviewers-for-a-pull-request")
EVENTS = {"APPROVE": "APPROVED", "REQUEST_CHANGES": "CHANGES_REQUESTED",
          "COMMENT": "COMMENTED"}
HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")


# --- state -----------------------------------------------------------------------------------
def pull_of(st, r, n):
    i = st.issue(r, n)
    if not i["pull"]:
        raise not_found()
    return i


def head_sha(st, r, i):
    p = i["pull"]
    return st.ref_sha(st.repos[p.get("head_repo", r["full_name"])], p["head"])


def sync_fork_head(st, r, i):
    """A fork's pull request's head reaches the base repository as refs/pull/N/head, as GitHub
    keeps it (current with the fork's branch, read-only). Nothing for a branch of the repository
    itself or a deleted head."""
    p = i["pull"]
    head = head_sha(st, r, i)
    if head and p.get("head_repo", r["full_name"]) != r["full_name"]:
        git("fetch", "-q", st.bare_path(p["head_repo"]), f"+{head}:refs/pull/{i['number']}/head",
            cwd=st.bare_path(r["full_name"]))
    return head


def sync_fork_heads(st, r):
    """sync_fork_head for every pull request of R: before R's git is served."""
    for i in list(r["issues"].values()):
        if i.get("pull") and i["pull"].get("head_repo", r["full_name"]) in st.repos:
            sync_fork_head(st, r, i)


def diff_range(st, r, i):
    """(bare, base, head) of the pull request's diff: the base branch's merge base with the
    head, in the base repository."""
    p = i["pull"]
    bare = st.bare_path(r["full_name"])
    head = sync_fork_head(st, r, i)  # the fork's commits, as GitHub's refs/pull/N/head
    return bare, git("merge-base", st.ref_sha(r, p["base"]), head, cwd=bare), head


def file_diff(st, r, i, path):
    """The pull request's diff of one file (base's merge base to head), as the lines GitHub
    counts positions in: from the first hunk header on."""
    bare, base, head = diff_range(st, r, i)
    out = git("diff", "--no-color", "--no-ext-diff", "-U3", base, head, "--", path, cwd=bare)
    lines = out.split("\n")
    for k, line in enumerate(lines):
        if line.startswith("@@"):
            return lines[k:]
    return []


STATUS = {"A": "added", "D": "removed", "M": "modified", "R": "renamed", "C": "copied",
          "T": "changed"}


def pull_files(st, r, i):
    """The pull request's files as GitHub lists them (GET .../pulls/N/files): each changed path
    with its status, lines added and removed (0 for a binary file), a rename's old name, the
    patch; names read NUL-separated, so a name may hold any byte git allows (a line break)."""
    bare, base, head = diff_range(st, r, i)
    flags = ["--no-color", "--no-ext-diff", "-M", "-z"]
    words = git("diff", *flags, "--name-status", base, head, cwd=bare).split("\0")
    out, k = [], 0
    while k < len(words) and words[k]:
        code = words[k][0]
        if code in "RC":
            f = {"status": STATUS[code], "previous_filename": words[k + 1],
                 "filename": words[k + 2]}
            k += 3
        else:
            f = {"status": STATUS.get(code, "changed"), "filename": words[k + 1]}
            k += 2
        out.append(f)
    nums = git("diff", *flags, "--numstat", base, head, cwd=bare).split("\0")
    counts, k = {}, 0
    while k < len(nums) and nums[k]:
        add, dele, name = nums[k].split("\t", 2)
        if name == "":  # a rename: the old name, then the new one, follow
            name, k = nums[k + 2], k + 3
        else:
            k += 1
        counts[name] = (0 if add == "-" else int(add), 0 if dele == "-" else int(dele))
    for f in out:
        f["additions"], f["deletions"] = counts.get(f["filename"], (0, 0))
        f["changes"] = f["additions"] + f["deletions"]
        f["sha"] = git("rev-parse", f"{head}:{f['filename']}", cwd=bare, check=False) or \
            "0" * 40
        f["patch"] = "\n".join(file_diff(st, r, i, f["filename"]))
    return out, head


def anchor(st, r, i, path, line):
    """(position, diff_hunk) of the head side's LINE of PATH in the pull request's diff; a 422
    in GitHub's words when the line is not in it."""
    diff = file_diff(st, r, i, path)
    hunk_start, new = None, None
    for pos, text in enumerate(diff):
        m = HUNK.match(text)
        if m:
            hunk_start, new = pos, int(m.group(1))
            continue
        if new is None or text.startswith("\\"):
            continue
        if not text.startswith("-"):
            if new == line:
                return pos, "\n".join(diff[hunk_start:pos + 1])
            new += 1
    raise FakeError(422, "Validation Failed", [
        {"resource": "PullRequestReviewComment", "code": "custom",
         "field": "pull_request_review_thread.line", "message": "could not be resolved"}],
        COMMENTS_DOC)


def add_review(st, r, i, login, event, body, comments=()):
    """A submitted review (or PENDING without an event) and its inline comments."""
    if event is not None and event not in EVENTS:
        raise invalid("PullRequestReview", "event", doc=REVIEWS_DOC)
    state = EVENTS.get(event, "PENDING")
    if login == i["user"] and state in ("APPROVED", "CHANGES_REQUESTED"):
        verb = "approve" if state == "APPROVED" else "request changes on"
        raise FakeError(422, "Unprocessable Entity",
                        [f"Review Can not {verb} your own pull request"], REVIEWS_DOC)
    if state == "CHANGES_REQUESTED" and not body:
        raise FakeError(422, "Unprocessable Entity",
                        ["Review body is required when requesting changes"], REVIEWS_DOC)
    review = {"id": st.new_id(), "pull": i["number"], "user": login, "body": body or "",
              "state": state, "commit_id": head_sha(st, r, i),
              "submitted_at": None if state == "PENDING" else st.now()}
    made = [comment_at(st, r, i, login, c.get("body", ""), c.get("path"), c.get("line"),
                       review["id"]) for c in comments]
    r.setdefault("reviews", []).append(review)
    for c in made:
        r.setdefault("review_comments", {})[c["id"]] = c
    if state != "PENDING":
        requested = i["pull"].setdefault("requested", [])
        if login in requested:  # a review answers the request, as on GitHub
            requested.remove(login)
    i["updated_at"] = st.now()
    return review


def comment_at(st, r, i, login, body, path, line, review_id):
    if not isinstance(path, str) or not isinstance(line, int) or isinstance(line, bool):
        raise invalid("PullRequestReviewComment", "path" if not isinstance(path, str) else "line",
                      "missing_field", COMMENTS_DOC)
    position, hunk = anchor(st, r, i, path, line)
    sha = head_sha(st, r, i)
    now = st.now()
    return {"id": st.new_id(), "pull": i["number"], "review": review_id, "user": login,
            "body": body, "path": path, "line": line, "position": position, "diff_hunk": hunk,
            "commit_id": sha, "original_commit_id": sha, "in_reply_to": None,
            "created_at": now, "updated_at": now}


def review_comment(st, r, cid):
    c = r.get("review_comments", {}).get(int(cid))
    if not c:
        raise not_found()
    return c


def add_single_comment(st, r, i, login, body, path, line):
    """One inline comment outside a review: GitHub wraps it in a COMMENTED review of its own."""
    review = {"id": st.new_id(), "pull": i["number"], "user": login, "body": "",
              "state": "COMMENTED", "commit_id": head_sha(st, r, i), "submitted_at": st.now()}
    c = comment_at(st, r, i, login, body, path, line, review["id"])
    r.setdefault("reviews", []).append(review)
    r.setdefault("review_comments", {})[c["id"]] = c
    i["updated_at"] = st.now()
    return c


def add_reply(st, r, i, login, body, to):
    """A reply in the thread of comment TO: same anchor, in_reply_to_id the thread's first."""
    parent = review_comment(st, r, to)
    if parent["pull"] != i["number"]:
        raise not_found()
    root = review_comment(st, r, parent["in_reply_to"]) if parent["in_reply_to"] else parent
    review = {"id": st.new_id(), "pull": i["number"], "user": login, "body": "",
              "state": "COMMENTED", "commit_id": head_sha(st, r, i), "submitted_at": st.now()}
    now = st.now()
    c = dict(root, id=st.new_id(), review=review["id"], user=login, body=body,
             in_reply_to=root["id"], created_at=now, updated_at=now)
    r.setdefault("reviews", []).append(review)
    r["review_comments"][c["id"]] = c
    i["updated_at"] = now
    return c


def request_reviewers(st, r, i, logins, remove=False, actor=None):
    """Requests (or removes) review; with actor, the issue's events record it as GitHub's do
    (review_requested, review_request_removed: the timeline and GET .../issues/N/events)."""
    requested = i["pull"].setdefault("requested", [])
    for login in logins:
        if remove:
            if login in requested:
                requested.remove(login)
                if actor:
                    st.event(r, i, actor, "review_request_removed", reviewer=login)
            continue
        if login == i["user"]:
            raise FakeError(422, "Review cannot be requested from pull request author.",
                            doc=REVIEWERS_DOC)
        if login not in st.users or st.role(r, login) is None:
            raise FakeError(422, "Reviews may only be requested from collaborators. One or more "
                            "of the users or teams you specified is not a collaborator of the "
                            f"{r['full_name']} repository.", doc=REVIEWERS_DOC)
        if login not in requested:
            requested.append(login)
            if actor:
                st.event(r, i, actor, "review_requested", reviewer=login)
    i["updated_at"] = st.now()


# --- REST routes -----------------------------------------------------------------------------
def _api():
    from . import api  # api.py imports this module for its ROUTES
    return api


def _pull(req, m, write=False):
    api = _api()
    r = api.repo_of(req, m, write=write)
    return r, pull_of(req.st, r, m["n"])


def list_reviews(req, m):
    r, i = _pull(req, m)
    items = [v for v in r.get("reviews", []) if v["pull"] == i["number"]
             and (v["state"] != "PENDING" or v["user"] == req.login)]
    return 200, [shapes.review(r, v, req.st, req.urls) for v in req.paginate(items)]


def get_review(req, m):
    r, i = _pull(req, m)
    for v in r.get("reviews", []):
        if v["id"] == int(m["id"]) and v["pull"] == i["number"]:
            return 200, shapes.review(r, v, req.st, req.urls)
    raise not_found()


def create_review(req, m):
    r, i = _pull(req, m, write=True)
    b = req.need()
    comments = b.get("comments") or []
    if not isinstance(comments, list) or not all(isinstance(c, dict) for c in comments):
        raise invalid("PullRequestReview", "comments", doc=REVIEWS_DOC)
    v = add_review(req.st, r, i, req.login, b.get("event"), b.get("body"), comments)
    return 200, shapes.review(r, v, req.st, req.urls)


def review_comments_of(req, r, n=None, review=None):
    items = [c for c in r.get("review_comments", {}).values()
             if (n is None or c["pull"] == int(n)) and (review is None or c["review"] == review)]
    if req.arg("since"):
        from .store import parse_iso
        since = parse_iso(req.arg("since"))
        items = [c for c in items if c["updated_at"] >= since]
    key = "updated_at" if req.arg("sort") == "updated" else "created_at"
    items.sort(key=lambda c: (c[key], c["id"]), reverse=req.arg("direction") == "desc")
    return 200, [shapes.review_comment(r, c, req.st, req.urls) for c in req.paginate(items)]


def list_review_comments(req, m):
    r, i = _pull(req, m)
    return review_comments_of(req, r, i["number"])


def list_repo_review_comments(req, m):
    return review_comments_of(req, _api().repo_of(req, m))


def list_comments_of_review(req, m):
    r, i = _pull(req, m)
    if not any(v["id"] == int(m["id"]) for v in r.get("reviews", [])):
        raise not_found()
    return review_comments_of(req, r, i["number"], int(m["id"]))


def get_review_comment(req, m):
    r = _api().repo_of(req, m)
    return 200, shapes.review_comment(r, review_comment(req.st, r, m["id"]), req.st, req.urls)


def update_review_comment(req, m):
    r = _api().repo_of(req, m, write=True)
    c = review_comment(req.st, r, m["id"])
    if c["user"] != req.login and not req.st.can_write(r, req.login):
        raise FakeError(403, "Must have admin rights to Repository.")
    c["body"] = _api().capped("PullRequestReviewComment", req.need("body"))["body"]
    c["updated_at"] = req.st.now()
    return 200, shapes.review_comment(r, c, req.st, req.urls)


def create_review_comment(req, m):
    r, i = _pull(req, m, write=True)
    b = _api().capped("PullRequestReviewComment", req.need("body"))
    if b.get("in_reply_to") is not None:
        c = add_reply(req.st, r, i, req.login, b["body"], b["in_reply_to"])
    else:
        if "commit_id" not in b:
            raise invalid("PullRequestReviewComment", "commit_id", "missing_field",
                          COMMENTS_DOC)
        c = add_single_comment(req.st, r, i, req.login, b["body"], b.get("path"),
                               b.get("line"))
    req.headers["Location"] = f"{req.urls.api}/repos/{r['full_name']}/pulls/comments/{c['id']}"
    return 201, shapes.review_comment(r, c, req.st, req.urls)


def create_reply(req, m):
    r, i = _pull(req, m, write=True)
    b = _api().capped("PullRequestReviewComment", req.need("body"))
    c = add_reply(req.st, r, i, req.login, b["body"], m["id"])
    req.headers["Location"] = f"{req.urls.api}/repos/{r['full_name']}/pulls/comments/{c['id']}"
    return 201, shapes.review_comment(r, c, req.st, req.urls)


def list_files(req, m):
    r, i = _pull(req, m)
    files, head = pull_files(req.st, r, i)
    return 200, [shapes.pull_file(r, f, head, req.urls) for f in req.paginate(files[:3000])]


def get_requested(req, m):
    r, i = _pull(req, m)
    return 200, {"users": [shapes.user_of(u, req.st, req.urls)
                           for u in i["pull"].get("requested", [])], "teams": []}


def change_requested(req, m, remove):
    api = _api()
    r = api.writable(req, m, triage=True)
    i = pull_of(req.st, r, m["n"])
    logins = req.need("reviewers")["reviewers"]
    if not isinstance(logins, list) or not all(isinstance(x, str) for x in logins):
        raise invalid("PullRequest", "reviewers", doc=REVIEWERS_DOC)
    request_reviewers(req.st, r, i, logins, remove, actor=req.login)
    return (200 if remove else 201), shapes.pull(r, i, req.st, req.urls, req.login, full=False)


PULL = r"/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)/pulls"
ROUTES = [
    ("GET", PULL + r"/comments", list_repo_review_comments),
    ("GET", PULL + r"/comments/(?P<id>\d+)", get_review_comment),
    ("PATCH", PULL + r"/comments/(?P<id>\d+)", update_review_comment),
    ("GET", PULL + r"/(?P<n>\d+)/reviews", list_reviews),
    ("POST", PULL + r"/(?P<n>\d+)/reviews", create_review),
    ("GET", PULL + r"/(?P<n>\d+)/reviews/(?P<id>\d+)", get_review),
    ("GET", PULL + r"/(?P<n>\d+)/reviews/(?P<id>\d+)/comments", list_comments_of_review),
    ("GET", PULL + r"/(?P<n>\d+)/comments", list_review_comments),
    ("POST", PULL + r"/(?P<n>\d+)/comments", create_review_comment),
    ("POST", PULL + r"/(?P<n>\d+)/comments/(?P<id>\d+)/replies", create_reply),
    ("GET", PULL + r"/(?P<n>\d+)/files", list_files),
    ("GET", PULL + r"/(?P<n>\d+)/requested_reviewers", get_requested),
    ("POST", PULL + r"/(?P<n>\d+)/requested_reviewers",
     lambda q, m: change_requested(q, m, False)),
    ("DELETE", PULL + r"/(?P<n>\d+)/requested_reviewers",
     lambda q, m: change_requested(q, m, True)),
]
