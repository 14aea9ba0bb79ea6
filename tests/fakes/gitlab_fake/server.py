"""The fake GitLab's HTTP side (a FAKE, for tests only): one threaded HTTP/1.1 keep-alive server
for the REST API under /api/v4, git smart HTTP at /GROUP/.../PROJECT.git and the /_fake/ control
routes. Around every API call it does what GitLab does and awaywork depends on: PRIVATE-TOKEN or
Bearer auth, RateLimit-* headers counting down per user per minute, 429 with Retry-After (plain
"Retry later", as GitLab's Rack::Attack answers), offset pagination (x-page, x-next-page, ...,
Link), weak ETags and 304, GitLab's {"message": ...} / {"error": ...} bodies, a log of it all
(each entry naming the connection it came on, and stats counting connections: keep-alive is
seen)."""

import base64
import hashlib
import json
import os
import re
import socket
import sys
import traceback
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import fakeserver  # noqa: E402  (tests/fakes/fakeserver.py: the shared plumbing)
from github import githttp  # noqa: E402  (git http-backend as a CGI, streamed)

from . import shapes  # noqa: E402
from .store import (LEVELS, DEVELOPER, GUEST, MAINTAINER, REPORTER, FakeError,  # noqa: E402
                    not_found)

GIT_PATH = re.compile(r"^/(?P<owner>.+)/(?P<repo>[^/]+?)\.git"
                      r"(?P<rest>/(?:info/refs|git-upload-pack|git-receive-pack|HEAD|objects/.*))$")
PROJECT = re.compile(r"^/projects/(?P<id>[^/]+)(?P<rest>/.*)?$")


def page_of(items, query):
    """GitLab's offset pagination: page (1), per_page (20, at most 100)."""
    try:
        page = max(int(query.get("page") or 1), 1)
        per = min(max(int(query.get("per_page") or 20), 1), 100)
    except ValueError:
        raise FakeError(400, "page is invalid", "error")
    total = len(items)
    pages = max((total + per - 1) // per, 1)
    return items[(page - 1) * per:page * per], page, per, total, pages


class Handler(fakeserver.Handler):
    server_version = "nginx"  # what gitlab.com answers with

    def version_string(self):
        return self.server_version
    timeout = 120

    def setup(self):
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        super().setup()
        st = self.server.state
        with st.lock:  # one handler per accepted connection: its number, for the log
            st.stats["connections"] += 1
            self.connection_id = st.stats["connections"]

    def do_GET(self):
        self.dispatch()

    do_POST = do_PATCH = do_PUT = do_DELETE = do_HEAD = do_GET

    def urls(self):
        host = self.headers.get("host") or f"127.0.0.1:{self.server.server_address[1]}"
        return shapes.Urls(("https://" if self.server.args.tls else "http://") + host)

    def auth(self, git=False):
        """(user id or None, FakeError or None): PRIVATE-TOKEN, Bearer, or (git) Basic."""
        st = self.server.state
        token = self.headers.get("private-token")
        h = self.headers.get("authorization") or ""
        scheme, _, cred = h.partition(" ")
        if token is None and scheme.lower() == "bearer":
            token = cred.strip()
        elif token is None and git and scheme.lower() == "basic":
            try:
                token = base64.b64decode(cred.strip()).decode().partition(":")[2]
            except ValueError:
                token = ""
        if token is None:
            return None, (FakeError(401, "401 Unauthorized") if h else None)
        uid = st.tokens.get(token)
        return uid, (None if uid else FakeError(401, "401 Unauthorized"))

    def body(self):
        raw = b"".join(githttp.body_chunks(self))
        ctype = (self.headers.get("content-type") or "").lower()
        if not raw:
            return {}
        if "json" in ctype:
            try:
                out = json.loads(raw)
                return out if isinstance(out, dict) else {}
            except ValueError:
                raise FakeError(400, "The provided content-type 'application/json' is not "
                                     "supported.", "error")
        # python-gitlab and curl send forms too; GitLab's Grape reads both.
        return dict(urllib.parse.parse_qsl(raw.decode(), keep_blank_values=True))

    def send(self, status, data, headers):
        self.send_response(status)
        for k, v in headers.items():
            self.send_header(k, v)
        if status != 304:
            self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD" and status != 304:
            self.wfile.write(data)

    def record(self, kind, path, uid, status, write):
        st = self.server.state
        u = st.users.get(uid)
        entry = {"kind": kind, "method": self.command, "path": path,
                 "query": urllib.parse.urlsplit(self.path).query,
                 "username": u["username"] if u else None, "status": status, "write": write,
                 "time": st.now(), "user_agent": self.headers.get("user-agent"),
                 "auth": "private-token" if "private-token" in self.headers else
                 (self.headers.get("authorization") or " ").split(" ")[0].lower() or None,
                 "connection": self.connection_id}
        st.log.append(entry)
        if self.server.args.log:
            with open(self.server.args.log, "a") as f:
                f.write(json.dumps(entry) + "\n")

    def dispatch(self):
        url = urllib.parse.urlsplit(self.path)
        raw_path = url.path.rstrip("/") or "/"
        st = self.server.state
        if raw_path.startswith("/_fake/"):
            body = self.body()
            with st.lock:
                try:
                    status, out = control(st, self.command, urllib.parse.unquote(raw_path), body,
                                          self.urls())
                except FakeError as e:
                    status, out = e.status, e.body()
            return self.send(status, json.dumps(out).encode(),
                             {"Content-Type": "application/json"})
        gm = GIT_PATH.match(urllib.parse.unquote(raw_path))
        if gm:
            return self.git(gm, url.query)
        if raw_path == "/api/v4" or raw_path.startswith("/api/v4/"):
            return self.api(raw_path[len("/api/v4"):] or "/", url.query)
        for _ in githttp.body_chunks(self):
            pass
        self.send(404, b'{"error":"404 Not Found"}', {"Content-Type": "application/json"})

    # --- the REST API ------------------------------------------------------------------------
    def api(self, raw_path, query_string):
        st = self.server.state
        query = {}
        for k, v in urllib.parse.parse_qsl(query_string, keep_blank_values=True):
            if k.endswith("[]"):
                query.setdefault(k, []).append(v)
            else:
                query[k] = v
        headers = {"Content-Type": "application/json", "Cache-Control": "max-age=0, private, "
                   "must-revalidate", "Vary": "Origin", "X-Content-Type-Options": "nosniff",
                   "X-Frame-Options": "SAMEORIGIN", "X-Request-Id": os.urandom(13).hex().upper(),
                   "X-Runtime": "0.012345", "X-Gitlab-Meta": "{}"}
        write = self.command not in ("GET", "HEAD")
        data = b""
        status = 500
        try:
            body = self.body()
        except FakeError as e:
            body, status, data = None, e.status, json.dumps(e.body()).encode()
        with st.lock:
            st.stats["requests"] += 1
            uid, bad = self.auth()
            if body is not None:
                try:
                    status, out, more = self.answer(raw_path, query, body, uid, bad, headers)
                    headers.update(more)
                    if isinstance(out, bytes):
                        data = out
                    else:
                        data = b"" if out is None else json.dumps(out).encode()
                except FakeError as e:
                    status, data = e.status, json.dumps(e.body()).encode()
                except Exception as e:  # a bug of the fake: said, not a dropped connection
                    traceback.print_exc()
                    status, data = 500, json.dumps({"message": f"fake_gitlab: {e!r}"}).encode()
            if self.command in ("GET", "HEAD") and status == 200:
                headers["ETag"] = 'W/"%s"' % hashlib.md5(data).hexdigest()
                tags = [t.strip().removeprefix("W/")
                        for t in (self.headers.get("if-none-match") or "").split(",")]
                if headers["ETag"].removeprefix("W/") in tags:
                    status = 304
                    st.stats["not_modified"] += 1
            if write:
                st.stats["writes"] += 1
            self.record("api", raw_path, uid, status, write)
        self.send(status, data, headers)

    def rate(self, uid, headers):
        """RateLimit-* as gitlab.com sends them; a 429 when a fault or the minute's limit says."""
        st = self.server.state
        if uid is None:
            return
        u = st.users[uid]
        window = int(st.now()) // 60
        if u["rate"]["window"] != window:
            u["rate"] = {"window": window, "used": 0}
        u["rate"]["used"] += 1
        st.stats["counted"] += 1
        reset = (window + 1) * 60
        headers.update({"RateLimit-Name": "throttle_authenticated_api",
                        "RateLimit-Limit": str(st.limit),
                        "RateLimit-Observed": str(u["rate"]["used"]),
                        "RateLimit-Remaining": str(max(st.limit - u["rate"]["used"], 0)),
                        "RateLimit-Reset": str(reset),
                        "RateLimit-ResetTime": self.date_time_string(reset)})
        if st.faults["rate_limited"] > 0 or u["rate"]["used"] > st.limit:
            st.faults["rate_limited"] = max(st.faults["rate_limited"] - 1, 0)
            headers["Retry-After"] = str(st.faults["retry_after"])
            headers["Content-Type"] = "text/plain"
            raise _Plain(429, b"Retry later\n")

    def answer(self, raw_path, query, body, uid, bad, headers):
        st = self.server.state
        urls = self.urls()
        if bad:
            raise bad
        try:
            self.rate(uid, headers)
        except _Plain as p:
            return p.status, p.data, {}
        asked = f"{self.command} {raw_path}"
        if st.faults["server_errors"] > 0 and asked.startswith(st.faults["on"]):
            st.faults["server_errors"] -= 1
            return st.faults["status"], {"message": "500 Internal Server Error"}, {}
        if uid is None:
            raise FakeError(401, "401 Unauthorized")
        if raw_path == "/user" and self.command == "GET":
            return 200, shapes.user_full(st, uid, urls, current=True), {}
        if raw_path == "/personal_access_tokens/self" and self.command == "GET":
            if not st.version_at_least(15, 5):  # no such route yet: Grape's 404
                raise FakeError(404, "404 Not Found", "error")
            return 200, shapes.token_self(st, uid), {}
        if raw_path == "/users" and self.command == "GET":
            found = [u["id"] for u in st.users.values()
                     if not query.get("username") or u["username"] == query["username"]]
            return self.paged([shapes.user_basic(st, i, urls) for i in found], query, urls,
                              "/users")
        m = re.match(r"^/users/(\d+)$", raw_path)
        if m and self.command == "GET":
            if int(m[1]) not in st.users:
                raise not_found("User")
            return 200, shapes.user_full(st, int(m[1]), urls), {}
        m = PROJECT.match(raw_path)
        if not m:
            raise FakeError(404, "404 Not Found", "error")
        p = st.project_at(urllib.parse.unquote(m["id"]))
        if not p or not st.can_read(p, uid):
            raise not_found("Project")
        return self.project_route(p, m["rest"] or "", raw_path, query, body, uid, urls)

    def paged(self, items, query, urls, path):
        page, n, per, total, pages = page_of(items, query)
        base = f"{urls.api}{path}"

        def link(k):
            q = {key: v for key, v in query.items() if key not in ("page", "per_page")}
            return f"{base}?" + urllib.parse.urlencode({**q, "page": k, "per_page": per},
                                                       doseq=True)

        rels = []
        if n > 1:
            rels.append(f'<{link(n - 1)}>; rel="prev"')
        if n < pages:
            rels.append(f'<{link(n + 1)}>; rel="next"')
        rels += [f'<{link(1)}>; rel="first"', f'<{link(pages)}>; rel="last"']
        return 200, page, {"Link": ", ".join(rels), "X-Page": str(n), "X-Per-Page": str(per),
                           "X-Next-Page": str(n + 1) if n < pages else "",
                           "X-Prev-Page": str(n - 1) if n > 1 else "", "X-Total": str(total),
                           "X-Total-Pages": str(pages)}

    def keyset_paged(self, items, key, desc, shape, query, urls, path):
        """GitLab's keyset pagination: `items` in order, the page after the opaque `cursor`
        (the last item's sort key), only a Link rel="next" (no X-Page, X-Next-Page, X-Total);
        405 as GitLab answers where a list or an order has none (the `keyset` fault off)."""
        if not self.server.state.faults["keyset"] or \
                query.get("order_by", "created_at") not in ("id", "created_at", "updated_at"):
            raise FakeError(405, "Keyset pagination is not yet available for this type of "
                                 "request", "error")
        try:
            per = min(max(int(query.get("per_page") or 20), 1), 100)
            after = (json.loads(base64.urlsafe_b64decode(query["cursor"]))
                     if query.get("cursor") else None)
        except (ValueError, TypeError):
            raise FakeError(400, "cursor is invalid", "error")
        if after is not None:
            items = [i for i in items if (key(i) < after if desc else key(i) > after)]
        page = items[:per]
        headers = {"X-Per-Page": str(per)}
        if len(items) > per:
            q = {k: v for k, v in query.items() if k != "cursor"}
            q["cursor"] = base64.urlsafe_b64encode(json.dumps(key(page[-1])).encode()).decode()
            headers["Link"] = f'<{urls.api}{path}?{urllib.parse.urlencode(q, doseq=True)}>; ' \
                              'rel="next"'
        return 200, [shape(i) for i in page], headers

    def project_route(self, p, rest, raw_path, query, body, uid, urls):
        st = self.server.state
        c = self.command
        level = st.access(p, uid)
        me = st.users[uid]
        if rest == "" and c == "GET":
            return 200, shapes.project(st, p, urls), {}
        m = re.match(r"^/members/all/(\d+)$", rest)
        if m and c == "GET":
            lvl = st.access(p, int(m[1]))
            if not lvl:
                raise not_found()
            return 200, shapes.member(st, int(m[1]), lvl, urls), {}
        m = re.match(r"^/repository/branches/(?P<name>.+)$", rest)
        if m and c == "GET":  # the name URL-encoded ("awaywork%2Fu1")
            name = urllib.parse.unquote(m["name"])
            commit = st.branch_commit(p, name) if not name.startswith("-") else None
            if not commit:
                raise not_found("Branch")
            path = p["path_with_namespace"]
            return 200, {"name": name, "commit": {**commit,
                                                  "web_url": f"{urls.web}/{path}/-/commit/"
                                                             f"{commit['id']}"},
                         "merged": False, "protected": name == p["default_branch"],
                         "developers_can_push": False, "developers_can_merge": False,
                         "can_push": level >= DEVELOPER, "default": name == p["default_branch"],
                         "web_url": f"{urls.web}/{path}/-/tree/{name}"}, {}
        if rest == "/issues" and c == "GET":
            items = [i for i in p["issues"].values() if self.issue_matches(i, query)]
            desc = query.get("sort", "desc") == "desc"
            key = {"updated_at": "updated_at", "id": "iid"}.get(query.get("order_by"),
                                                                 "created_at")
            items.sort(key=lambda i: (i[key], i["iid"]), reverse=desc)
            # Recent GitLab keysets a project's issues (gitlab-org/gitlab!199887).
            if query.get("pagination") == "keyset":
                return self.keyset_paged(items, lambda i: [i[key], i["iid"]], desc,
                                         lambda i: shapes.issue(st, p, i, urls), query, urls,
                                         raw_path)
            return self.paged([shapes.issue(st, p, i, urls) for i in items], query, urls,
                              raw_path)
        if rest == "/issues" and c == "POST":
            if level < GUEST:
                raise FakeError(403, "403 Forbidden")
            if not body.get("title"):
                raise FakeError(400, "title is missing", "error")
            labels = [x for x in str(body.get("labels") or "").split(",") if x]
            i = st.add_issue(p, me, body["title"], body.get("description"), labels)
            return 201, shapes.issue(st, p, i, urls), {}
        m = re.match(r"^/issues/([^/]+)(/.*)?$", rest)
        if m:
            i = p["issues"].get(int(m[1])) if m[1].isdigit() else None
            if not i:
                raise not_found()
            return self.issue_route(p, i, m[2] or "", raw_path, query, body, uid, urls)
        if rest == "/merge_requests" and c == "GET":
            items = [x for x in p["mrs"].values()
                     if query.get("state", "all") in ("all", x["state"])
                     and query.get("source_branch", x["source_branch"]) == x["source_branch"]]
            items.sort(key=lambda x: x["iid"], reverse=True)
            return self.paged([shapes.merge_request(st, p, x, urls) for x in items], query, urls,
                              raw_path)
        if rest == "/merge_requests" and c == "POST":
            return self.create_mr(p, body, uid, urls)
        m = re.match(r"^/merge_requests/(\d+)(/.*)?$", rest)
        if m:
            x = p["mrs"].get(int(m[1]))
            if not x:
                raise not_found()
            if not m[2] and c == "GET":
                out = shapes.merge_request(st, p, x, urls)
                # The single GET alone carries head_pipeline, as GitLab's: the merge request's own
                # newest pipeline on its head, from its source branch or its merge request ref
                # (never another ref's on the same commit).
                refs = (x["source_branch"], f"refs/merge-requests/{x['iid']}/head")
                mine = [pl for pl in p["pipelines"]
                        if pl["sha"] == out["sha"] and pl["ref"] in refs]
                out["head_pipeline"] = (shapes.pipeline(st, p, max(mine, key=lambda pl: pl["id"]),
                                                        urls) if mine else None)
                return 200, out, {}
            if not m[2] and c == "PUT":
                return self.update_mr(p, x, body, uid, urls)
            return self.mr_route(p, x, m[2] or "", raw_path, query, body, uid, urls)
        if rest == "/pipelines" and c == "GET":  # newest first, as GitLab's default order
            from .store import iso
            after = _normal_iso(query["updated_after"]) if query.get("updated_after") else None
            items = [x for x in p["pipelines"]
                     if query.get("sha", x["sha"]) == x["sha"]
                     and query.get("ref", x["ref"]) == x["ref"]
                     and query.get("status", x["status"]) == x["status"]
                     and (after is None or iso(x["updated_at"]) > after)]
            # order_by: id (GitLab's default) or updated_at (the watcher's poll), then id; the
            # fake plays no other.
            by = query.get("order_by", "id")
            items.sort(key=lambda x: (x["updated_at"], x["id"]) if by == "updated_at" else x["id"],
                       reverse=query.get("sort", "desc") == "desc")
            return self.paged([shapes.pipeline(st, p, x, urls) for x in items], query, urls,
                              raw_path)
        m = re.match(r"^/pipelines/(\d+)/jobs$", rest)
        if m and c == "GET":
            pl = next((x for x in p["pipelines"] if x["id"] == int(m[1])), None)
            if not pl:
                raise not_found()
            scope = query.get("scope[]") or ([query["scope"]] if query.get("scope") else [])
            jobs = [j for j in pl["jobs"] if not scope or j["status"] in scope]
            return self.paged([shapes.job(st, p, pl, j, urls) for j in jobs], query, urls,
                              raw_path)
        m = re.match(r"^/jobs/(\d+)/trace$", rest)
        if m and c == "GET":  # the raw log, text/plain
            for pl in p["pipelines"]:
                for j in pl["jobs"]:
                    if j["id"] == int(m[1]):
                        return 200, j["trace"].encode(), {"Content-Type": "text/plain"}
            raise not_found()
        if rest == "/labels" and c == "GET":
            return self.paged(sorted(p["labels"].values(), key=lambda x: x["name"]), query, urls,
                              raw_path)
        raise FakeError(404, "404 Not Found", "error")

    @staticmethod
    def issue_matches(i, query):
        if query.get("state", "all") not in ("all", i["state"]):
            return False
        want = [x for x in (query.get("labels") or "").split(",") if x]
        if any(x not in i["labels"] for x in want):
            return False
        iids = query.get("iids[]")
        if iids and str(i["iid"]) not in iids:
            return False
        if query.get("updated_after"):
            from .store import iso
            if iso(i["updated_at"]) <= _normal_iso(query["updated_after"]):
                return False
        return True

    def issue_route(self, p, i, rest, raw_path, query, body, uid, urls):
        st = self.server.state
        c = self.command
        level = st.access(p, uid)
        me = st.users[uid]
        if rest == "" and c == "GET":
            return 200, shapes.issue(st, p, i, urls), {}
        if rest == "" and c == "PUT":
            if level < REPORTER:
                raise FakeError(403, "403 Forbidden")
            for name in _split(body.get("add_labels")):
                st.label(p, i, me, name, "add")
            for name in _split(body.get("remove_labels")):
                st.label(p, i, me, name, "remove")
            if "labels" in body:
                want = _split(body["labels"])
                for name in list(i["labels"]):
                    if name not in want:
                        st.label(p, i, me, name, "remove")
                for name in want:
                    st.label(p, i, me, name, "add")
            if body.get("state_event") in ("close", "reopen"):
                i["state"] = "closed" if body["state_event"] == "close" else "opened"
                i["closed_at"] = st.now() if i["state"] == "closed" else None
            i["updated_at"] = st.now()
            return 200, shapes.issue(st, p, i, urls), {}
        if rest == "/notes" or rest.startswith("/notes/"):
            return self.notes_route(p, i, rest, raw_path, query, body, uid, urls, "Issue")
        if rest == "/resource_label_events" and c == "GET":
            return self.paged([shapes.label_event(st, p, e, urls) for e in i["label_events"]],
                              query, urls, raw_path)
        raise FakeError(404, "404 Not Found", "error")

    def notes_route(self, p, i, rest, raw_path, query, body, uid, urls, noteable):
        """The notes of an issue or a merge request: list, create, read, edit, delete."""
        st = self.server.state
        c = self.command
        level = st.access(p, uid)
        me = st.users[uid]
        if rest == "/notes" and c == "GET":
            notes = list(i["notes"])
            key = "updated_at" if query.get("order_by") == "updated_at" else "created_at"
            notes.sort(key=lambda n: (n[key], n["id"]), reverse=query.get("sort", "desc") == "desc")
            return self.paged([shapes.note(st, p, n, urls) for n in notes], query, urls,
                              raw_path)
        if rest == "/notes" and c == "POST":
            if not body.get("body"):
                raise FakeError(400, "body is missing", "error")
            n = st.add_note(p, i, me, body["body"], noteable=noteable)
            return 201, shapes.note(st, p, n, urls), {}
        m = re.match(r"^/notes/(\d+)$", rest)
        if m:
            n = next((x for x in i["notes"] if x["id"] == int(m[1])), None)
            if not n:
                raise not_found("Note")
            if c == "GET":
                return 200, shapes.note(st, p, n, urls), {}
            if c == "PUT":
                if n["author"] != uid or n["system"]:
                    raise FakeError(403, "403 Forbidden")
                if not body.get("body"):
                    raise FakeError(400, "body is missing", "error")
                n["body"], n["updated_at"] = body["body"], st.now()
                i["updated_at"] = n["updated_at"]
                return 200, shapes.note(st, p, n, urls), {}
            if c == "DELETE":  # its author's, or a Maintainer's; never a system note
                if n["system"] or (n["author"] != uid and level < MAINTAINER):
                    raise FakeError(403, "403 Forbidden")
                i["notes"].remove(n)
                i["updated_at"] = st.now()
                return 204, None, {}
        raise FakeError(404, "404 Not Found", "error")

    def mr_route(self, p, x, rest, raw_path, query, body, uid, urls):
        """A merge request's notes and discussions (GitLab's discussions API): list them, start
        one (a `position` makes it a resolvable diff thread), reply in one."""
        st = self.server.state
        c = self.command
        me = st.users[uid]
        if rest == "/notes" or rest.startswith("/notes/"):
            return self.notes_route(p, x, rest, raw_path, query, body, uid, urls, "MergeRequest")
        if rest == "/discussions" and c == "GET":
            order, by = [], {}
            for n in x["notes"]:
                if n["discussion_id"] not in by:
                    order.append(n["discussion_id"])
                    by[n["discussion_id"]] = []
                by[n["discussion_id"]].append(n)
            return self.paged([shapes.discussion(st, p, by[d], urls) for d in order], query,
                              urls, raw_path)
        if rest == "/discussions" and c == "POST":
            if not body.get("body"):
                raise FakeError(400, "body is missing", "error")
            position = body.get("position")
            if position is not None and not isinstance(position, dict):
                raise FakeError(400, "position is invalid", "error")
            n = st.add_note(p, x, me, body["body"], noteable="MergeRequest",
                            position=_position(st, p, x, position))
            thread = [y for y in x["notes"] if y["discussion_id"] == n["discussion_id"]]
            return 201, shapes.discussion(st, p, thread, urls), {}
        if rest == "/reviewers" and c == "GET":
            if not st.version_at_least(15, 3):  # no such route yet: Grape's 404
                raise FakeError(404, "404 Not Found", "error")
            return 200, [shapes.reviewer(st, p, r, urls) for r in x["reviewers"]], {}
        m = re.match(r"^/discussions/([0-9a-f]+)/notes$", rest)
        if m and c == "POST":
            if not body.get("body"):
                raise FakeError(400, "body is missing", "error")
            n = st.add_note(p, x, me, body["body"], noteable="MergeRequest", discussion=m[1])
            return 201, shapes.note(st, p, n, urls), {}
        raise FakeError(404, "404 Not Found", "error")

    def update_mr(self, p, x, body, uid, urls):
        """PUT .../merge_requests/:iid: only reviewer_ids is played (a list, or GitLab's comma
        form from a form body; 0 or empty unassigns all): GitLab's rules in st.set_reviewers."""
        st = self.server.state
        if st.access(p, uid) < DEVELOPER:
            raise FakeError(403, "403 Forbidden")
        if "reviewer_ids" not in body:
            raise FakeError(400, "assignee_id, assignee_ids, confidential, ... at least one "
                                 "parameter must be provided", "error")
        raw = body["reviewer_ids"]
        if isinstance(raw, str):
            raw = [v for v in raw.split(",") if v]
        if not isinstance(raw, list):
            raw = [raw]
        try:
            ids = [int(v) for v in raw if v is not None and int(v) != 0]
        except (TypeError, ValueError):
            raise FakeError(400, "reviewer_ids is invalid", "error")
        st.set_reviewers(p, x, st.users[uid], ids)
        return 200, shapes.merge_request(st, p, x, urls), {}

    def create_mr(self, p, body, uid, urls):
        st = self.server.state
        if st.access(p, uid) < DEVELOPER:
            raise FakeError(403, "403 Forbidden")
        for key in ("source_branch", "target_branch", "title"):
            if not body.get(key):
                raise FakeError(400, f"{key} is missing", "error")
        title = body["title"]
        # GitLab 16+ takes draft: true and shows it as the "Draft: " title prefix.
        if str(body.get("draft", "")).lower() == "true" and not title.lower().startswith(
                ("draft:", "[draft]", "(draft)")):
            title = "Draft: " + title
        for key in ("source_branch", "target_branch"):
            if not st.has_branch(p, body[key]):
                raise FakeError(400, [f"{'Source' if key == 'source_branch' else 'Target'} "
                                      f"branch \"{body[key]}\" does not exist"])
        for x in p["mrs"].values():
            if x["state"] == "opened" and x["source_branch"] == body["source_branch"] and \
                    x["target_branch"] == body["target_branch"]:
                raise FakeError(409, ["Another open merge request already exists for this "
                                      f"source branch: !{x['iid']}"])
        x = st.add_mr(p, st.users[uid], body["source_branch"], body["target_branch"], title,
                      body.get("description"), _split(body.get("labels")))
        return 201, shapes.merge_request(st, p, x, urls), {}

    # --- git over HTTP -----------------------------------------------------------------------
    def git(self, gm, query):
        st = self.server.state
        with st.lock:
            uid, bad = self.auth(git=True)
            p = st.project_at(f"{gm['owner']}/{gm['repo']}")
            push = githttp.wants_push(gm["rest"], query)
            status, message = 0, ""
            if bad or (uid is None and (push or (p and not st.can_read(p, None)))):
                status, message = 401, "HTTP Basic: Access denied"
            elif p is None or not st.can_read(p, uid):
                status, message = 404, "The project you were looking for could not be found."
            elif push and st.access(p, uid) < DEVELOPER:
                status, message = 403, "You are not allowed to push code to this project."
            elif push and p["push_refused"] and gm["rest"] == "/git-receive-pack":
                status, message = 403, p["push_refused"]
            write = push and gm["rest"] == "/git-receive-pack"
            if status:
                self.record("git", gm.string, uid, status, write)
        if status:
            for _ in githttp.body_chunks(self):
                pass
            headers = {"Content-Type": "text/plain"}
            if status == 401:
                headers["WWW-Authenticate"] = 'Basic realm="GitLab"'
            return self.send(status, (message + "\n").encode(), headers)
        status = githttp.serve(self, st, {"owner": gm["owner"], "repo": gm["repo"],
                                          "rest": gm["rest"]}, st.users[uid]["username"]
                               if uid else None, query)
        with st.lock:
            self.record("git", gm.string, uid, status, write)


class _Plain(Exception):
    def __init__(self, status, data):
        super().__init__(status)
        self.status, self.data = status, data


def _position(st, p, m, position):
    """A diff note's position as GitLab keeps it: the paths, lines and the three shas."""
    if not position:
        return None
    head = st.branch_sha(p, m["source_branch"]) or m["sha"]
    base = st.branch_sha(p, m["target_branch"])
    new_line = position.get("new_line")
    old_line = position.get("old_line")
    return {"base_sha": position.get("base_sha") or base,
            "start_sha": position.get("start_sha") or base,
            "head_sha": position.get("head_sha") or head, "position_type": "text",
            "old_path": position.get("old_path") or position.get("new_path"),
            "new_path": position.get("new_path") or position.get("old_path"),
            "old_line": int(old_line) if old_line else None,
            "new_line": int(new_line) if new_line else None, "line_range": None}


def _split(v):
    if isinstance(v, list):
        return [str(x) for x in v if x]
    return [x.strip() for x in str(v or "").split(",") if x.strip()]


def _normal_iso(s):
    """An ISO 8601 time as the fake's own iso() writes it, for comparison."""
    import datetime
    try:
        t = datetime.datetime.fromisoformat(s.replace("Z", "+00:00"))
    except ValueError:
        raise FakeError(400, "updated_after is invalid", "error")
    if t.tzinfo is None:
        t = t.replace(tzinfo=datetime.timezone.utc)
    from .store import iso
    return iso(t.timestamp())


# --- /_fake/: the test's control routes (no auth, not counted, not logged) --------------------
def control(st, method, path, b, urls):
    if method == "POST" and path == "/_fake/users":
        if not b.get("username"):
            raise FakeError(400, "username is missing", "error")
        u = st.add_user(b["username"], b.get("bot", False), b.get("token"), b.get("scopes"))
        return 201, {"id": u["id"], "username": u["username"], "bot": u["bot"],
                     "token": u["token"], "scopes": u["scopes"]}
    if method == "POST" and path == "/_fake/projects":
        p = st.add_project(b.get("path", ""), b.get("source"), b.get("default_branch"),
                           b.get("visibility", "private"))
        return 201, shapes.project(st, p, urls)
    if method == "GET" and path == "/_fake/log":
        return 200, st.log
    if method == "GET" and path == "/_fake/stats":
        return 200, st.stats
    if method == "POST" and path == "/_fake/faults":
        for k in st.faults:
            if k in b:
                st.faults[k] = b[k]
        if "limit" in b:
            st.limit = int(b["limit"])
        if "version" in b:
            st.version = str(b["version"])
        return 200, {**st.faults, "limit": st.limit, "version": st.version}
    m = re.match(r"^/_fake/members/(?P<ns>.+)$", path)
    if method == "POST" and m:  # a group's or a project's member (groups' reach subprojects)
        u = st.add_user(b.get("username", ""), b.get("bot", False))
        if b.get("access_level") not in LEVELS:
            raise FakeError(400, "access_level does not have a valid value", "error")
        st.members.setdefault(m["ns"], {})[u["id"]] = b["access_level"]
        return 201, shapes.member(st, u["id"], b["access_level"], urls)
    m = re.match(r"^/_fake/projects/(?P<p>.+?)"
                 r"(?P<rest>/issues.*|/merge_requests.*|/pipelines|/settings)$", path)
    p = st.project_at(m["p"]) if m else None
    if not p:
        raise not_found("Project")
    rest = m["rest"]
    if rest == "/settings" and method == "PATCH":
        if "push_refused" in b:
            p["push_refused"] = b["push_refused"] or ""
        if "visibility" in b:
            p["visibility"] = b["visibility"]
        return 200, shapes.project(st, p, urls)
    if rest == "/merge_requests" and method == "GET":
        return 200, [shapes.merge_request(st, p, x, urls) for x in p["mrs"].values()]
    if rest == "/pipelines" and method == "POST":  # {ref, sha?, status, jobs: [...]}
        u = st.add_user(b.get("username") or "owner")
        pl = st.add_pipeline(p, u, b.get("ref") or p["default_branch"], b.get("sha"),
                             b.get("status", "failed"), b.get("jobs") or [])
        return 201, {**shapes.pipeline(st, p, pl, urls),
                     "jobs": [shapes.job(st, p, pl, j, urls) for j in pl["jobs"]]}
    if rest == "/merge_requests" and method == "POST":  # {username, source, target, title}
        u = st.add_user(b.get("username") or "owner")
        x = st.add_mr(p, u, b.get("source", ""), b.get("target") or p["default_branch"],
                      b.get("title", "a merge request"), b.get("description"), [])
        return 201, shapes.merge_request(st, p, x, urls)
    m = re.match(r"^/merge_requests/(\d+)$", rest)
    if m and method == "PATCH":  # {sha}: GitLab's answer lagging behind a push (pinned; null
        x = p["mrs"].get(int(m[1]))  # follows the branch again); {source_branch}: moved to
        if not x:                    # another branch (as GitLab's edit of the source branch)
            raise not_found()
        if "source_branch" in b:
            x["source_branch"] = b["source_branch"]
        if "sha" in b or "source_branch" not in b:
            x["pinned_sha"] = b.get("sha")
        return 200, shapes.merge_request(st, p, x, urls)
    m = re.match(r"^/merge_requests/(\d+)/discussions(?:/(?P<d>[0-9a-f]+)/notes)?$", rest)
    if m and method == "POST":
        # {username, body, path?, line?, system?}: a note by anyone, a diff thread when `path`
        # and `line` place it, a reply when the route names the discussion.
        x = p["mrs"].get(int(m[1]))
        if not x:
            raise not_found()
        u = st.add_user(b.get("username") or "owner")
        position = None
        if b.get("path"):
            position = _position(st, p, x, {"new_path": b["path"], "new_line": b.get("line")})
        n = st.add_note(p, x, u, b.get("body", ""), bool(b.get("system")), "MergeRequest",
                        m["d"], position)
        return 201, shapes.note(st, p, n, urls) | {"discussion_id": n["discussion_id"]}
    m = re.match(r"^/merge_requests/(\d+)/reviewers$", rest)
    if m and method == "POST":  # {username, state}: that reviewer submits a review
        x = p["mrs"].get(int(m[1]))
        if not x:
            raise not_found()
        u = st.add_user(b.get("username") or "owner")
        r = st.review_state(p, x, u, b.get("state") or "reviewed")
        return 201, shapes.reviewer(st, p, r, urls)
    if rest.startswith("/merge_requests"):
        raise not_found()
    if rest == "/issues" and method == "POST":
        u = st.add_user(b.get("username") or "owner")
        i = st.add_issue(p, u, b.get("title", "an issue"), b.get("description"),
                         b.get("labels") or [])
        return 201, shapes.issue(st, p, i, urls)
    m = re.match(r"^/issues/(\d+)(?P<what>/notes|/notes/\d+|/labels|/assignees)?$", rest)
    if not m:
        raise not_found()
    i = st.issue(p, m[1])
    what = m["what"] or ""
    if what == "/notes" and method == "POST":  # a user's note, or a system note (system: true)
        u = st.add_user(b.get("username") or "owner")
        n = st.add_note(p, i, u, b.get("body", ""), bool(b.get("system")))
        return 201, shapes.note(st, p, n, urls)
    if what.startswith("/notes/") and method == "PATCH":  # an edit by its author
        n = next((x for x in i["notes"] if x["id"] == int(what.rsplit("/", 1)[1])), None)
        if not n:
            raise not_found("Note")
        n["body"], n["updated_at"] = b.get("body", n["body"]), st.now()
        return 200, shapes.note(st, p, n, urls)
    if what == "/labels" and method == "POST":  # {username, add: [...], remove: [...]}
        u = st.add_user(b.get("username") or "owner")
        for name in b.get("add") or []:
            st.label(p, i, u, name, "add")
        for name in b.get("remove") or []:
            st.label(p, i, u, name, "remove")
        return 200, shapes.issue(st, p, i, urls)
    if what == "/assignees" and method == "POST":  # {username, assignees: [...]}: as GitLab,
        u = st.add_user(b.get("username") or "owner")  # a system note by who assigned
        st.assign(p, i, u, [st.add_user(x) for x in b.get("assignees") or []])
        return 200, shapes.issue(st, p, i, urls)
    if what == "" and method == "GET":
        return 200, {**shapes.issue(st, p, i, urls),
                     "notes": [shapes.note(st, p, n, urls) for n in i["notes"]]}
    raise not_found()


class Server(fakeserver.Server):
    def handle_error(self, request, client_address):
        if os.environ.get("AW_FAKE_VERBOSE"):
            super().handle_error(request, client_address)


def serve(args, state):
    srv = Server((args.host, args.port), Handler)
    srv.args, srv.state, srv.log_lock = args, state, state.lock
    port = srv.server_address[1]
    root = f"http://127.0.0.1:{port}"
    if args.tls:
        import ssl
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(args.tls[0], args.tls[1])
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
        root = f"https://127.0.0.1:{port}"
    print(json.dumps({"port": port, "api_url": root + "/api/v4", "git_url": root,
                      "control_url": root}), flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
