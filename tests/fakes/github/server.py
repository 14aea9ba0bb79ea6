"""The fake GitHub's HTTP side (a FAKE, for tests only): one threaded HTTP/1.1 keep-alive
server for the REST API (also under /api/v3, as GitHub Enterprise Server), git smart HTTP at
/OWNER/REPO.git and the /_fake/ control routes. Around every API call it does what GitHub does
and awaywork depends on: token auth, X-RateLimit-* counting down per user, ETag and 304 (not
counted), Link pagination, secondary-limit and 5xx faults, and a log of every request."""

import base64
import hashlib
import json
import os
import re
import secrets
import socket
import ssl
import sys
import threading
import traceback
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import fakeserver  # noqa: E402  (tests/fakes/fakeserver.py: the shared plumbing)

from . import api, checks, control, githttp, reviews, shapes  # noqa: E402
from .store import FakeError  # noqa: E402

LIMIT = {True: 5000, False: 60}  # authenticated, anonymous (GitHub's primary limits)
RATE_DOC = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"
SECONDARY = ("You have exceeded a secondary rate limit. Please wait a few minutes before you try "
             "again. If you reach out to GitHub Support for help, please include the request ID "
             "{rid}.")
# The headers GitHub sends on every API answer (as recorded in @octokit/fixtures).
COMMON = {"Access-Control-Allow-Origin": "*",
          "Access-Control-Expose-Headers": "ETag, Link, Location, Retry-After, X-GitHub-OTP, "
          "X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Used, X-RateLimit-Resource, "
          "X-RateLimit-Reset, X-OAuth-Scopes, X-Accepted-OAuth-Scopes, X-Poll-Interval, "
          "X-GitHub-Media-Type, X-GitHub-SSO, X-GitHub-Request-Id, Deprecation, Sunset",
          "Content-Security-Policy": "default-src 'none'",
          "Referrer-Policy": "origin-when-cross-origin, strict-origin-when-cross-origin",
          "Strict-Transport-Security": "max-age=31536000; includeSubdomains; preload",
          "X-Content-Type-Options": "nosniff", "X-Frame-Options": "deny", "X-XSS-Protection": "0"}
REPOSITORIES = re.compile(r"^/repositories/(\d+)(/.*)?$")
REPOS = re.compile(r"^/repos/([^/]+)/([^/]+)(/.*)?$")


class Handler(fakeserver.Handler):
    server_version = "GitHub.com"
    timeout = 120  # an idle keep-alive connection's thread ends

    def setup(self):
        # Headers and body go out as separate writes: without NODELAY, Nagle's algorithm and the
        # client's delayed ACK add tens of milliseconds to every larger answer.
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if isinstance(self.request, ssl.SSLSocket):  # the handshake in this thread, not accept's
            self.request.settimeout(self.timeout)
            self.request.do_handshake()
        super().setup()

    def do_GET(self):
        self.dispatch()

    do_POST = do_PATCH = do_PUT = do_DELETE = do_HEAD = do_GET

    # --- common ------------------------------------------------------------------------------
    def urls(self, ghes):
        if self.server.public_root:  # the control port of a TLS fake: the URLs of the API's
            web = self.server.public_root
        else:
            host = self.headers.get("host") or f"127.0.0.1:{self.server.server_address[1]}"
            web = ("https://" if self.server.args.tls else "http://") + host
        return shapes.Urls(web + ("/api/v3" if ghes else ""), web)

    def auth(self):
        """(login or None, FakeError or None) from the Authorization header."""
        h = self.headers.get("authorization") or ""
        scheme, _, cred = h.partition(" ")
        token = cred.strip()
        if scheme.lower() == "basic":
            try:
                token = base64.b64decode(token).decode().partition(":")[2]
            except ValueError:
                token = ""
        elif scheme.lower() not in ("token", "bearer"):
            return None, (FakeError(401, "Bad credentials") if h else None)
        login = self.server.state.tokens.get(token)
        return login, (None if login else FakeError(401, "Bad credentials"))

    def read_body(self):
        """The request's JSON body (Content-Length or chunked), None when empty or not JSON."""
        raw = b"".join(githttp.body_chunks(self))
        try:
            return raw, (json.loads(raw) if raw else None)
        except ValueError:
            return raw, None

    def send(self, status, data, headers):
        self.send_response(status)
        for k, v in headers.items():
            self.send_header(k, v)
        if status != 304:
            self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD" and status != 304:
            self.wfile.write(data)

    def dispatch(self):
        url = urllib.parse.urlsplit(self.path)
        path = urllib.parse.unquote(url.path).rstrip("/") or "/"
        st = self.server.state
        if path.startswith("/_fake/"):
            _, body = self.read_body()
            with st.lock:
                status, out = control.handle(st, self.command, path, body, self.urls(False))
                st.changed()
            return self.send(status, json.dumps(out).encode(),
                             {"Content-Type": "application/json; charset=utf-8"})
        if self.server.public_root:
            _, _ = self.read_body()
            return self.send(404, b'{"message":"the control port serves /_fake/ only"}',
                             {"Content-Type": "application/json; charset=utf-8"})
        if path.startswith("/_logs/"):  # where a job log's 302 points (GitHub's blob storage)
            _, _ = self.read_body()
            with st.lock:
                query = dict(urllib.parse.parse_qsl(url.query, keep_blank_values=True))
                status, text = checks.log_text(st, path, query)
                self.record("log", path, None, status, False)
            return self.send(status, text.encode(), {"Content-Type": "text/plain; charset=utf-8"})
        gm = githttp.match(path)
        if gm:
            return self.git(gm, url.query)
        ghes = path == "/api/v3" or path.startswith("/api/v3/")
        self.api(path[len("/api/v3"):] or "/" if ghes else path, url.query, ghes)

    def record(self, kind, path, login, status, write):
        url = urllib.parse.urlsplit(self.path)
        entry = {"kind": kind, "method": self.command, "path": path, "query": url.query,
                 "login": login, "status": status, "write": write,
                 "time": self.server.state.now(), "user_agent": self.headers.get("user-agent")}
        self.server.state.log.append(entry)
        if self.server.args.log:
            with open(self.server.args.log, "a") as f:
                f.write(json.dumps(entry) + "\n")

    # --- the REST API ------------------------------------------------------------------------
    def api(self, path, query_string, ghes):
        _, body = self.read_body()
        st = self.server.state
        query = dict(urllib.parse.parse_qsl(query_string, keep_blank_values=True))
        rid = "%04X:%05X:%07X:%07X:%08X" % tuple(secrets.randbits(b) for b in (16, 20, 28, 28, 32))
        headers = {"Content-Type": "application/json; charset=utf-8",
                   "X-GitHub-Media-Type": "github.v3; format=json",
                   "X-GitHub-Api-Version-Selected": "2022-11-28", "X-GitHub-Request-Id": rid,
                   "Vary": "Accept, Authorization, Cookie, X-GitHub-OTP",
                   "X-OAuth-Scopes": "repo, workflow", "X-Accepted-OAuth-Scopes": "repo",
                   **COMMON}
        write = self.command not in ("GET", "HEAD")
        with st.lock:
            st.stats["requests"] += 1
            login, bad = self.auth()
            bucket = self.bucket(login)
            urls = self.urls(ghes)
            counted = True
            try:
                status, out, counted = self.answer(path, query, body, login, bad, bucket, urls,
                                                   rid, headers)
            except FakeError as e:
                status, out = e.status, e.body()
            except Exception as e:  # a bug of the fake: said, not a dropped connection
                traceback.print_exc()
                status, out = 500, {"message": f"fake_github: internal error: {e!r}"}
            data = b"" if out is None else json.dumps(out).encode()
            if self.command in ("GET", "HEAD") and status == 200:
                headers["ETag"] = 'W/"%s"' % hashlib.sha256(data).hexdigest()[:32]
                headers["Cache-Control"] = "private, max-age=60, s-maxage=60"
                tags = [t.strip().removeprefix("W/")
                        for t in (self.headers.get("if-none-match") or "").split(",")]
                if headers["ETag"].removeprefix("W/") in tags or "*" in tags:
                    status = 304
            if status == 304:
                st.stats["not_modified"] += 1
            elif counted:
                st.stats["counted"] += 1
                bucket["remaining"] = max(bucket["remaining"] - 1, 0)
            if write:
                st.stats["writes"] += 1
            headers.update(self.rate_headers(bucket))
            self.record("api", path, login, status, write)
            if write and status < 400:
                st.changed()
        self.send(status, data, headers)

    def answer(self, path, query, body, login, bad, bucket, urls, rid, headers):
        st = self.server.state
        if bad:
            raise bad
        if st.faults["secondary_limit"] > 0:
            st.faults["secondary_limit"] -= 1
            headers["Retry-After"] = str(st.faults["retry_after"])
            raise FakeError(st.faults["secondary_status"], SECONDARY.format(rid=rid),
                            doc=RATE_DOC + "#about-secondary-rate-limits")
        if st.faults["server_errors"] > 0 and f"{self.command} {path}".startswith(st.faults["on"]):
            st.faults["server_errors"] -= 1
            return st.faults["status"], {"message": "Server Error"}, True
        if bucket["remaining"] <= 0:
            who = f"user ID {st.users[login]['id']}" if login else self.client_address[0]
            raise FakeError(403, f"API rate limit exceeded for {who}.", doc=RATE_DOC)
        asked = f"{self.command} {path}"
        path, link_base = self.resolve(path, urls)
        fn, m = api.route(self.command if self.command != "HEAD" else "GET", path)
        req = api.Request(st, login, query, body, urls, link_base, bucket)
        status, out = fn(req, m)[:2]
        headers.update(req.headers)
        if st.faults.get("fields") and status == 200 and asked.startswith(st.faults["fields_on"]):
            # A hostile or broken forge: these fields replace the answer's (each item's of a list).
            fields = st.faults["fields"]
            if isinstance(out, list):
                out = [dict(x, **fields) if isinstance(x, dict) else x for x in out]
            elif isinstance(out, dict):
                out = dict(out, **fields)
        return status, out, req.counted

    def resolve(self, path, urls):
        """/repositories/ID/... as /repos/OWNER/NAME/..., and the base of the Link URLs: GitHub
        links the pages of a repository's lists by its id, not its name."""
        m = REPOSITORIES.match(path)
        if m:
            r = self.server.state.repo_by_id(int(m.group(1)))
            path = f"/repos/{r['full_name']}{m.group(2) or ''}"
        m = REPOS.match(path)
        r = m and self.server.state.repos.get(f"{m.group(1)}/{m.group(2)}")
        if r:
            return path, f"{urls.api}/repositories/{r['id']}{m.group(3) or ''}"
        return path, urls.api + path

    def bucket(self, login):
        st = self.server.state
        b = st.rate.get(login or "")
        if b is None or b["reset"] <= st.now():
            limit = LIMIT[login is not None]
            remaining = limit if st.rate_remaining is None else st.rate_remaining
            b = st.rate[login or ""] = {"limit": limit, "remaining": remaining,
                                        "reset": int(st.now()) + 3600}
        return b

    def rate_headers(self, b):
        return {"X-RateLimit-Limit": str(b["limit"]), "X-RateLimit-Remaining": str(b["remaining"]),
                "X-RateLimit-Used": str(b["limit"] - b["remaining"]),
                "X-RateLimit-Reset": str(b["reset"]), "X-RateLimit-Resource": "core"}

    # --- git smart HTTP ----------------------------------------------------------------------
    def git(self, gm, query):
        st = self.server.state
        with st.lock:
            login, bad = self.auth()
            r = st.repos.get(f"{gm['owner']}/{gm['repo']}")
            push = githttp.wants_push(gm["rest"], query)
            status, message = 0, ""
            if bad or (login is None and (push or (r and not st.can_read(r, None)))):
                status, message = 401, "Authentication required"
            elif r is None or not st.can_read(r, login):
                status, message = 404, "Repository not found."
            elif push and not st.can_write(r, login):
                status, message = 403, f"Permission to {r['full_name']} denied to {login}."
            write = push and gm["rest"] == "/git-receive-pack"
            if status:
                self.record("git", gm.string, login, status, write)
            elif not push:
                reviews.sync_fork_heads(st, r)  # refs/pull/N/head as GitHub keeps them
        if status:
            for _ in githttp.body_chunks(self):
                pass
            headers = {"Content-Type": "text/plain"}
            if status == 401:
                headers["WWW-Authenticate"] = 'Basic realm="GitHub"'
            return self.send(status, (message + "\n").encode(), headers)
        status = githttp.serve(self, st, gm, login, query)
        with st.lock:
            self.record("git", gm.string, login, status, write)


class Server(fakeserver.Server):
    public_root = None  # set on the plain control listener of a TLS fake

    def handle_error(self, request, client_address):
        if os.environ.get("AW_FAKE_VERBOSE"):
            super().handle_error(request, client_address)


def listener(args, state, port, public_root=None):
    srv = Server((args.host, port), Handler)
    srv.args, srv.state, srv.log_lock, srv.public_root = args, state, state.lock, public_root
    return srv


def serve(args, state):
    srv = listener(args, state, args.port)
    port = srv.server_address[1]
    root = f"http://127.0.0.1:{port}"
    control_url = root
    if args.tls:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(args.tls[0], args.tls[1])
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True, do_handshake_on_connect=False)
        root = f"https://127.0.0.1:{port}"
        # Plain HTTP for /_fake/ only, so a test's tiny HTTP client can steer a TLS fake.
        plain = listener(args, state, 0, public_root=root)
        control_url = f"http://127.0.0.1:{plain.server_address[1]}"
        threading.Thread(target=plain.serve_forever, daemon=True).start()
    # The first stdout line: tests start the fake with --port 0 and read where it listens.
    print(json.dumps({"port": port, "api_url": root, "git_url": root,
                      "control_url": control_url}), flush=True)
    state.start_saver()
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        state.save()
