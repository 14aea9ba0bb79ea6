"""`awaywork serve` over raw HTTP: the real binary on a real socket. Each hostile request is
refused or dropped as docs/serve.md says, and no response ever carries an Access-Control-* header
or a secret value."""
import contextlib
import json
import os
import signal
import socket
import sqlite3
import subprocess
import time
import unittest

from world import BINARY, SECRET, World, wait_for

RESPONSES = []  # every response head seen, checked for Access-Control-* at the end


def raw(port, data, timeout=60.0):
    """Sends bytes, returns (status, headers dict lowercased, body bytes)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(data)
        buf = b""
        while True:
            try:
                chunk = s.recv(65536)
            except socket.timeout:
                break
            if not chunk:
                break
            buf += chunk
            head, sep, body = buf.partition(b"\r\n\r\n")
            if sep:
                length = [l for l in head.split(b"\r\n") if l.lower().startswith(b"content-length:")]
                if length and len(body) >= int(length[0].split(b":")[1]):
                    break
    return parse(buf)


def parse(buf):
    head, _, body = buf.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    RESPONSES.append(lines)
    if not lines or not lines[0].startswith("HTTP/1.1 "):
        return None, {}, body
    headers = {}
    for l in lines[1:]:
        k, _, v = l.partition(":")
        headers[k.strip().lower()] = v.strip()
    return int(lines[0].split()[1]), headers, body


def dechunk(body):
    """The payload of a chunked body; asserts it ended with the last chunk."""
    out, rest = b"", body
    while True:
        size, _, rest = rest.partition(b"\r\n")
        n = int(size, 16)
        if n == 0:
            return out
        out, rest = out + rest[:n], rest[n + 2:]


LAST_CHUNK = b"\r\n0\r\n\r\n"  # how a whole chunked body ends (after the last data chunk)


def open_log(port, token, uid):
    """A live log's stream: the socket, with its request sent."""
    s = socket.create_connection(("127.0.0.1", port), timeout=60)
    s.sendall(f"GET /api/v1/units/{uid}/log HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
              f"Authorization: Bearer {token}\r\n\r\n".encode())
    return s


def payload(got):
    """The data of a chunked response read so far, head and framing taken off (a chunk not yet
    whole is left out; a line of the log can come in several chunks)."""
    out, rest = b"", got.partition(b"\r\n\r\n")[2]
    while True:
        size, sep, after = rest.partition(b"\r\n")
        if not sep or not size or int(size, 16) == 0 or len(after) < int(size, 16) + 2:
            return out
        n = int(size, 16)
        out, rest = out + after[:n], after[n + 2:]


def read_until(s, got, want):
    """Reads on until the log holds `want`; returns all read (head and chunk framing too)."""
    while want not in payload(got):
        chunk = s.recv(65536)
        assert chunk, f"the stream closed before {want!r}: {got[-300:]!r}"
        got += chunk
    return got


def read_to_end(s, got):
    """Reads until the server closes the connection."""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            return got
        got += chunk


def request(port, method, target, token=None, host=None, body=None, headers=None):
    h = {"Host": host or f"127.0.0.1:{port}", "Connection": "close"}
    if token:
        h["Authorization"] = "Bearer " + token
    if body is not None:
        h["Content-Type"] = "application/json"
        h["Content-Length"] = str(len(body))
    h.update(headers or {})
    data = f"{method} {target} HTTP/1.1\r\n".encode() + b"".join(
        f"{k}: {v}\r\n".encode() for k, v in h.items()) + b"\r\n" + (body or b"")
    return raw(port, data)


def get_json(w, target):
    status, headers, body = request(w.port, "GET", target, token=w.token)
    assert headers.get("content-type", "").startswith("application/json"), (target, headers)
    return status, json.loads(body)


class ServeHttp(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.w = World()
        cls.w.serve()

    @classmethod
    def tearDownClass(cls):
        cls.w.close()
        for lines in RESPONSES:
            for l in lines:
                assert not l.lower().startswith("access-control-"), lines

    def assert_json_error(self, status, headers, body, want):
        self.assertEqual(status, want, body)
        self.assertTrue(headers["content-type"].startswith("application/json"))
        msg = json.loads(body)["error"]
        self.assertGreater(len(msg), 20, msg)
        return msg

    # ── the token ──

    def test_no_token_is_refused_with_where_to_find_it(self):
        msg = self.assert_json_error(*request(self.w.port, "GET", "/api/v1/units"), 401)
        self.assertIn("Authorization: Bearer", msg)
        self.assertNotIn(self.w.token, msg)

    def test_a_wrong_token_is_refused(self):
        wrong = "0" * len(self.w.token)
        self.assert_json_error(*request(self.w.port, "GET", "/api/v1/units", token=wrong), 401)
        self.assert_json_error(*request(self.w.port, "GET", "/metrics", token=wrong), 401)
        self.assert_json_error(*request(self.w.port, "GET", "/api/v1/units",
                                        token=self.w.token[:-1]), 401)

    def test_a_token_in_the_query_string_is_refused_and_never_logged(self):
        for q in (f"token={self.w.token}", f"access_token={self.w.token}", f"TOKEN={self.w.token}"):
            msg = self.assert_json_error(*request(self.w.port, "GET", "/api/v1/units?" + q,
                                                  token=self.w.token), 400)
            self.assertIn("never put the token in the URL", msg)
        status, _, _ = request(self.w.port, "GET", "/?token=" + self.w.token)
        self.assertEqual(status, 400)
        self.assertNotIn(self.w.token, self.w.server_log())
        self.assertIn("GET /api/v1/units 400", self.w.server_log())

    def test_the_token_file_is_0600_and_reused(self):
        path = os.path.join(self.w.root, "state/serve/token")
        self.assertEqual(os.stat(path).st_mode & 0o777, 0o600)
        self.assertEqual(os.stat(os.path.dirname(path)).st_mode & 0o777, 0o700)
        with open(path) as f:
            self.assertEqual(f.read().strip(), self.w.token)
        self.assertGreaterEqual(len(self.w.token), 32)  # hex of 128 bits or more

    # ── Host, Origin, CORS ──

    def test_a_foreign_host_is_refused_as_dns_rebinding(self):
        for host in (f"evil.example:{self.w.port}", f"127.0.0.1:{self.w.port + 1}",
                     "127.0.0.1", f"localhost.evil.example:{self.w.port}"):
            self.assert_json_error(*request(self.w.port, "GET", "/api/v1/units", token=self.w.token,
                                            host=host), 421)
            status, _, _ = request(self.w.port, "GET", "/", host=host)
            self.assertEqual(status, 421, host)
        for host in (f"127.0.0.1:{self.w.port}", f"localhost:{self.w.port}", f"[::1]:{self.w.port}"):
            status, _, _ = request(self.w.port, "GET", "/api/v1/units", token=self.w.token, host=host)
            self.assertEqual(status, 200, host)

    def test_a_foreign_origin_is_refused_and_the_pages_own_accepted(self):
        for origin in ("http://evil.example", "null", f"http://localhost:{self.w.port}",
                       f"https://127.0.0.1:{self.w.port}"):
            self.assert_json_error(*request(self.w.port, "GET", "/api/v1/units", token=self.w.token,
                                            headers={"Origin": origin}), 403)
        status, _, _ = request(self.w.port, "GET", "/api/v1/units", token=self.w.token,
                               headers={"Origin": f"http://127.0.0.1:{self.w.port}"})
        self.assertEqual(status, 200)

    def test_a_cors_preflight_is_refused_without_cors_headers(self):
        status, headers, body = request(self.w.port, "OPTIONS", "/api/v1/units", headers={
            "Origin": "http://evil.example", "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization"})
        self.assert_json_error(status, headers, body, 405)
        self.assertFalse([k for k in headers if k.startswith("access-control-")])

    # Issue 25: two Host headers are a 400 (RFC 9112 section 3.2), whichever comes first; the
    # guard read the first and let an evil second one through.
    def test_two_host_headers_are_refused_whichever_is_first(self):
        good, evil = f"127.0.0.1:{self.w.port}", f"evil.example:{self.w.port}"
        for first, second in ((good, evil), (evil, good), (good, good)):
            data = (f"GET /api/v1/units HTTP/1.1\r\nHost: {first}\r\nHost: {second}\r\n"
                    f"Authorization: Bearer {self.w.token}\r\nConnection: close\r\n\r\n")
            msg = self.assert_json_error(*raw(self.w.port, data.encode()), 400)
            self.assertIn("Host", msg)

    # ── malformed requests ──

    # Issue 25: a request the parser rejects is answered 400 (it was closed without a word).
    def test_malformed_requests_are_answered_400(self):
        host = f"Host: 127.0.0.1:{self.w.port}\r\n"
        for data in (b"GARBAGE\r\n\r\n",
                     b"GET / HTTP/1.1\r\n" + host.encode() + b"Bad Header\r\n\r\n",
                     b"POST /api/v1/units HTTP/1.1\r\n" + host.encode() +
                     b"Content-Length: 12abc\r\n\r\n",
                     b"POST /api/v1/units HTTP/1.1\r\n" + host.encode() +
                     b"Content-Length: 3\r\nContent-Length: 4\r\n\r\nabcd",
                     (f"POST /api/v1/units HTTP/1.1\r\n{host}Authorization: Bearer {self.w.token}"
                      "\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n").encode()):
            msg = self.assert_json_error(*raw(self.w.port, data, timeout=30), 400)
            self.assertIn("malformed", msg, data)

    # Issue 25: a header far over the limit is answered 431 every time. The server closed with the
    # rest of it unread, and the reset that sends could reach the client while it was still
    # sending (a small send buffer makes that certain here) and the answer was lost.
    def test_a_1_mib_header_is_answered_431_every_time(self):
        data = (f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{self.w.port}\r\nX-Big: ".encode() +
                b"a" * (1 << 20) + b"\r\n\r\n")
        for i in range(3):
            with socket.socket() as s:
                s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 32 << 10)
                s.settimeout(30)
                s.connect(("127.0.0.1", self.w.port))
                try:
                    s.sendall(data)
                    got = read_to_end(s, b"")
                except (ConnectionResetError, BrokenPipeError) as e:
                    self.fail(f"attempt {i}: {e!r} instead of a 431")
            self.assert_json_error(*parse(got), 431)

    # ── paths and bodies ──

    def test_dot_dot_and_encoded_slashes_in_a_unit_id_are_refused(self):
        for target in ("/api/v1/units/../../etc/passwd", "/api/v1/units/..", "/api/v1/units/%2e%2e",
                       "/api/v1/units/a%2fb", "/api/v1/units/a%2Fb/patch", "/api/v1/units/.",
                       "/api/v1/units/A..B", "/api/v1/units/x%00", "/api/v1/units/a\\b",
                       "/api/v1/units//patch", "/..%2f..%2fetc%2fpasswd"):
            status, headers, body = request(self.w.port, "GET", target, token=self.w.token)
            self.assertEqual(status, 400, target)
            self.assertIn("error", json.loads(body))

    def test_an_unknown_unit_is_a_404_that_says_how_to_list_them(self):
        msg = self.assert_json_error(*request(self.w.port, "GET", "/api/v1/units/20990101-nope",
                                              token=self.w.token), 404)
        self.assertIn("awaywork units", msg)

    def test_a_body_over_the_limit_is_refused(self):
        # The limit is judged on Content-Length as soon as the head is read, and the server then
        # closes: a client still sending the 2 MiB would meet a reset that can eat the answer. So
        # only the head is sent here; the refusal must come without the body.
        n = (2 << 20) + 30
        status, headers, body = request(self.w.port, "POST", "/api/v1/units", token=self.w.token,
                                        headers={"Content-Type": "application/json",
                                                 "Content-Length": str(n)})
        self.assert_json_error(status, headers, body, 413)

    def test_bad_submissions_say_which_field(self):
        # Issue 25: the braces of the example were doubled ("like {{"repo": ...").
        for body, want in ((b"{", 'JSON object like {"repo": "NAME", "prompt": "TASK"}'),
                           (b'{"repo":"demo"}', '"prompt" is required'),
                           (b'{"repo":"demo","prompt":"x","agent":"nope"}', "agents: bidiname, big, leaky, pause"),
                           (b'{"repo":"demo","prompt":"x","color":1}', 'unknown field "color"'),
                           (b'{"repo":"nope","prompt":"x"}', "nope")):
            msg = self.assert_json_error(*request(self.w.port, "POST", "/api/v1/units",
                                                  token=self.w.token, body=body), 400)
            self.assertIn(want, msg)
        status, headers, body = request(self.w.port, "POST", "/api/v1/units", token=self.w.token,
                                        body=b"repo=demo", headers={"Content-Type": "text/plain"})
        self.assertEqual(status, 415)

    def test_expect_100_continue_is_answered_before_the_body_is_sent(self):
        # curl sends Expect: 100-continue for bodies over 1 KiB and waits for the interim answer.
        body = b'{"repo":"demo","prompt":"x","color":1}'
        with socket.create_connection(("127.0.0.1", self.w.port), timeout=30) as s:
            s.sendall((f"POST /api/v1/units HTTP/1.1\r\nHost: 127.0.0.1:{self.w.port}\r\n"
                       f"Authorization: Bearer {self.w.token}\r\nConnection: close\r\n"
                       f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
                       "Expect: 100-continue\r\n\r\n").encode())
            interim = b""
            while b"\r\n\r\n" not in interim:
                chunk = s.recv(4096)
                self.assertTrue(chunk, interim)
                interim += chunk
            self.assertTrue(interim.startswith(b"HTTP/1.1 100 Continue\r\n"), interim)
            s.sendall(body)
            buf = b""
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                buf += chunk
        msg = self.assert_json_error(*parse(buf), 400)
        self.assertIn('unknown field "color"', msg)
        status, headers, body = request(self.w.port, "POST", "/api/v1/units", token=self.w.token,
                                        body=b"{}", headers={"Expect": "sometimes"})
        self.assertIn("100-continue", self.assert_json_error(status, headers, body, 417))

    def test_headers_trickled_a_byte_a_second_are_dropped(self):
        s = socket.create_connection(("127.0.0.1", self.w.port))
        start = time.monotonic()
        closed = False
        request_bytes = f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{self.w.port}\r\nX-Slow: ".encode()
        try:
            for i in range(40):
                s.sendall(request_bytes[i:i + 1] if i < len(request_bytes) else b"a")
                time.sleep(1)
        except (BrokenPipeError, ConnectionResetError):
            closed = True
        if not closed:
            s.settimeout(2)
            try:
                closed = s.recv(1) == b""
            except (ConnectionResetError, socket.timeout):
                closed = True
        elapsed = time.monotonic() - start
        s.close()
        self.assertTrue(closed)
        self.assertLess(elapsed, 20, "the header timeout is 10 s")

    def test_200_idle_connections_hold_the_limit_and_a_good_client_is_answered_after(self):
        socks = [socket.create_connection(("127.0.0.1", self.w.port)) for _ in range(200)]
        time.sleep(1)
        turned_away = held = 0
        for s in socks:
            s.setblocking(False)
            try:
                data = s.recv(4096)
                if data.startswith(b"HTTP/1.1 503"):
                    turned_away += 1
                    parse(data)
            except BlockingIOError:
                held += 1
        # At most 64 are held; the rest were told 503 at once.
        self.assertLessEqual(held, 64)
        self.assertEqual(turned_away + held, 200)
        status, headers, body = request(self.w.port, "GET", "/api/v1/units", token=self.w.token)
        self.assertEqual(status, 503, "the idle ones hold every slot")
        self.assertIn("too many connections", json.loads(body)["error"])
        # Without closing them: the header timeout (10 s) drops the idle ones, and a good
        # client is served again.
        wait_for(lambda: request(self.w.port, "GET", "/api/v1/units", token=self.w.token)[0] == 200,
                 timeout=15, step=0.5)
        for s in socks:
            s.close()

    # ── the API end to end ──

    def submit(self, **fields):
        status, headers, body = request(self.w.port, "POST", "/api/v1/units", token=self.w.token,
                                        body=json.dumps(fields).encode())
        self.assertEqual(status, 202, body)
        return json.loads(body)["id"]

    def wait_ended(self, uid, timeout=60):
        return wait_for(lambda: (lambda u: u if u["state"] != "running" else None)(
            get_json(self.w, f"/api/v1/units/{uid}")[1]), timeout=timeout)

    def test_a_submitted_unit_runs_the_pipeline_and_its_record_patch_and_log_are_served(self):
        uid = self.submit(repo="demo", prompt="Fix the typo in greet.sh")
        u = self.wait_ended(uid)
        self.assertEqual(u["state"], "done", u)
        self.assertEqual(u["verdict"], "accepted")
        self.assertEqual(u["phases"][0]["name"], "agent")
        self.assertEqual(u["phases"][0]["exit_code"], 0)
        self.assertIsInstance(u["phases"][0]["duration_ms"], int)
        self.assertTrue(u["sandbox"])
        self.assertEqual(u["checked_requests"][0]["type"], "create_pull_request")
        self.assertEqual(u["published"]["branch"], "awaywork/" + uid)
        self.assertIsNone(u["published"]["pull_request"])  # a local repository: no forge
        status, headers, patch = request(self.w.port, "GET", f"/api/v1/units/{uid}/patch",
                                         token=self.w.token)
        self.assertEqual(status, 200)
        self.assertTrue(headers["content-type"].startswith("text/x-diff"))
        self.assertIn(b"+echo \"Hello,", patch)
        status, headers, log = request(self.w.port, "GET", f"/api/v1/units/{uid}/log",
                                       token=self.w.token)
        self.assertEqual(status, 200)
        self.assertEqual(headers["transfer-encoding"], "chunked")
        self.assertIn(b"scripted agent: task received", dechunk(log))
        status, page = get_json(self.w, "/api/v1/units?state=done&repo=demo&limit=1")
        self.assertEqual(page["units"][0]["state"], "done")
        self.assertEqual(page["limit"], 1)
        status, page = get_json(self.w, "/api/v1/units?state=lost")
        self.assertEqual(page["units"], [])
        status, body = get_json(self.w, "/api/v1/units?limit=0")
        self.assertEqual(status, 400)
        # apply is idempotent: the branch exists, a second apply finds it
        status, headers, body = request(self.w.port, "POST", f"/api/v1/units/{uid}/apply",
                                        token=self.w.token, body=b"{}")
        self.assertEqual(status, 200, body)
        status, _, metrics = request(self.w.port, "GET", "/metrics", token=self.w.token)
        self.assertEqual(status, 200)
        self.assertRegex(metrics.decode(), r'awaywork_units\{state="done"\} [1-9]')
        self.assertIn('awaywork_phase_duration_seconds_count{phase="agent"}', metrics.decode())

    def test_the_live_log_streams_bytes_as_written_and_ends_with_the_unit(self):
        uid = self.submit(repo="demo", prompt="slow", agent="slow")
        s = socket.create_connection(("127.0.0.1", self.w.port), timeout=30)
        s.sendall(f"GET /api/v1/units/{uid}/log HTTP/1.1\r\nHost: 127.0.0.1:{self.w.port}\r\n"
                  f"Authorization: Bearer {self.w.token}\r\n\r\n".encode())
        got, times = b"", []
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            got += chunk
            times.append((time.monotonic(), got.count(b"slow agent line")))
        s.close()
        self.assertTrue(got.endswith(b"\r\n0\r\n\r\n"), got[-40:])
        log = dechunk(got.partition(b"\r\n\r\n")[2])
        self.assertIn(b"slow agent line 1\n", log)
        self.assertIn(b"slow agent line 50\n", log)
        # It grew while the unit ran: lines arrived in several reads, seconds apart.
        self.assertGreater(len({n for _, n in times}), 5)
        self.assertGreater(times[-1][0] - times[0][0], 3)
        self.assertEqual(get_json(self.w, f"/api/v1/units/{uid}")[1]["state"], "done")

    # Issue 25 item 4: the redactor holds a chunk's last bytes in case a secret spans chunks;
    # before, they came only with more output ("waiting for a wh", then "ile done" 4 s later).
    def test_the_live_log_shows_an_unfinished_line_while_the_phase_is_quiet(self):
        uid = self.submit(repo="demo", prompt="pause", agent="pause", profile="web")
        s = open_log(self.w.port, self.w.token, uid)
        got = read_until(s, b"", b"waiting for a wh")  # all but the 3 bytes held back
        start = time.monotonic()
        got = read_until(s, got, b"waiting for a while")
        self.assertLess(time.monotonic() - start, 3, "shown within the pause (200 ms quiet)")
        self.assertNotIn(b" done\n", payload(got), "not only once the phase printed more")
        got = read_to_end(s, got)
        s.close()
        log = dechunk(got.partition(b"\r\n\r\n")[2])
        self.assertIn(b"waiting for a while done\n", log)
        # The profile's secret, split by a 1 s pause: its first bytes wait for the rest.
        self.assertIn(b"secret: [REDACTED] end\n", log)
        for part in (SECRET, SECRET[:7], SECRET[7:]):
            self.assertNotIn(part.encode(), log)

    # Issue 25 item 9: a part of the log (the page's older parts) and the raw file.
    def test_a_part_of_the_log_and_the_raw_file_are_served_redacted_with_the_same_checks(self):
        uid = self.submit(repo="demo", prompt="print the token", agent="leaky", profile="web")
        self.wait_ended(uid)
        status, _, body = request(self.w.port, "GET", f"/api/v1/units/{uid}/log", token=self.w.token)
        self.assertEqual(status, 200)
        whole = dechunk(body)
        self.assertIn(b"the token is [REDACTED]", whole)
        n = len(whole)
        for a, b in ((0, 10), (5, 25), (n - 10, n), (n - 10, n + 1000), (7, 7), (n + 5, n + 9)):
            status, headers, body = request(self.w.port, "GET",
                                            f"/api/v1/units/{uid}/log?offset={a}&end={b}",
                                            token=self.w.token)
            self.assertEqual(status, 200, (a, b))
            self.assertEqual(dechunk(body), whole[a:b], (a, b))
            self.assertNotIn("content-disposition", headers)
        self.assert_json_error(*request(self.w.port, "GET", f"/api/v1/units/{uid}/log?offset=9&end=3",
                                        token=self.w.token), 400)
        self.assert_json_error(*request(self.w.port, "GET", f"/api/v1/units/{uid}/log?end=x",
                                        token=self.w.token), 400)
        self.assert_json_error(*request(self.w.port, "GET", f"/api/v1/units/{uid}/log?download=yes",
                                        token=self.w.token), 400)
        target = f"/api/v1/units/{uid}/log?download=1"
        status, headers, body = request(self.w.port, "GET", target, token=self.w.token)
        self.assertEqual(status, 200)
        self.assertEqual(headers["content-type"], "text/plain; charset=utf-8")
        self.assertEqual(headers["content-disposition"], f'attachment; filename="awaywork-{uid}.log"')
        self.assertEqual(headers["x-content-type-options"], "nosniff")
        self.assertEqual(headers["content-security-policy"], "default-src 'none'")
        self.assertEqual(dechunk(body), whole)
        self.assertNotIn(SECRET.encode(), body)
        # The same checks as every API route: the token, the Host, the Origin.
        self.assert_json_error(*request(self.w.port, "GET", target), 401)
        self.assert_json_error(*request(self.w.port, "GET", target, token="0" * len(self.w.token)), 401)
        self.assert_json_error(*request(self.w.port, "GET", target, token=self.w.token,
                                        host=f"evil.example:{self.w.port}"), 421)
        self.assert_json_error(*request(self.w.port, "GET", target, token=self.w.token,
                                        headers={"Origin": "http://evil.example"}), 403)

    def test_a_part_of_a_running_units_log_ends_without_waiting_for_the_unit(self):
        uid = self.submit(repo="demo", prompt="slow", agent="slow")
        s = open_log(self.w.port, self.w.token, uid)
        read_until(s, b"", b"slow agent line 2\n")
        s.close()
        for query in ("offset=0&end=100000000", "download=1"):
            start = time.monotonic()
            status, _, body = request(self.w.port, "GET", f"/api/v1/units/{uid}/log?{query}",
                                      token=self.w.token)
            self.assertEqual(status, 200)
            self.assertLess(time.monotonic() - start, 5, query)
            self.assertTrue(body.endswith(LAST_CHUNK), body[-100:])
            log = dechunk(body)
            self.assertIn(b"slow agent line 2\n", log)
            self.assertNotIn(b"slow agent line 50\n", log, "what the file held then, not the end")
        self.assertEqual(get_json(self.w, f"/api/v1/units/{uid}")[1]["state"], "running")
        self.wait_ended(uid)

    # ── the live log ends whole ──
    # A log cut without its last chunk is a broken download to a browser (Chromium logs
    # ERR_INCOMPLETE_CHUNKED_ENCODING, the dashboard's log stops): only the reader leaving may
    # end it so. These failed before: the server cut the stream.

    BROKEN = "{not json: a record being rewritten"

    @contextlib.contextmanager
    def unreadable_record(self, uid):
        """Until the block ends, the unit's row in the record database holds no JSON: every read
        of the unit fails, as a passing fault would (the row is put back only if still broken;
        the runner saves only between phases, and the slow agent is one phase of 10 s)."""
        db = sqlite3.connect(os.path.join(self.w.root, "state/awaywork.db"), timeout=30)
        try:
            (good,) = db.execute("SELECT record FROM units WHERE id = ?", (uid,)).fetchone()
            with db:
                db.execute("UPDATE units SET record = ? WHERE id = ?", (self.BROKEN, uid))
            yield
        finally:
            with db:
                db.execute("UPDATE units SET record = ? WHERE id = ? AND record = ?",
                           (good, uid, self.BROKEN))
            db.close()

    def test_a_live_log_survives_a_passing_read_error_and_ends_with_the_unit(self):
        uid = self.submit(repo="demo", prompt="slow", agent="slow")
        s = open_log(self.w.port, self.w.token, uid)
        got = read_until(s, b"", b"slow agent line 2\n")
        with self.unreadable_record(uid):
            time.sleep(1)  # 40 reads at 25 ms: before, the first failed one cut the stream
        got = read_to_end(s, got)
        s.close()
        self.assertTrue(got.endswith(LAST_CHUNK), got[-300:])
        log = dechunk(got.partition(b"\r\n\r\n")[2])
        self.assertIn(b"slow agent line 50\n", log)
        self.assertNotIn(b"[awaywork serve:", log)
        self.assertIn(f"/api/v1/units/{uid}/log: reading the log failed, trying again: "
                      "record database holds an unreadable record", self.w.server_log())

    def test_a_live_log_whose_reads_keep_failing_ends_saying_why_with_the_last_chunk(self):
        uid = self.submit(repo="demo", prompt="slow", agent="slow")
        s = open_log(self.w.port, self.w.token, uid)
        got = read_until(s, b"", b"slow agent line 2\n")
        start = time.monotonic()
        with self.unreadable_record(uid):
            got = read_to_end(s, got)  # the server tries again for 3 s, then ends the log
        s.close()
        self.assertGreater(time.monotonic() - start, 2.5)
        self.assertTrue(got.endswith(LAST_CHUNK), got[-300:])
        log = dechunk(got.partition(b"\r\n\r\n")[2])
        self.assertIn(b"\n[awaywork serve: the live log ends here: reading it failed for 3 s: "
                      b"record database holds an unreadable record.", log)
        self.assertNotIn(b"slow agent line 50\n", log)
        self.assertIn(f"/api/v1/units/{uid}/log: log stream ended: record database holds an "
                      "unreadable record", self.w.server_log())
        self.assertEqual(self.wait_ended(uid)["state"], "done")

    def test_a_live_log_reader_that_sends_bytes_after_its_request_gets_the_whole_log(self):
        # The server tells that a reader left by its socket turning readable. Bytes after the
        # request (or a stale readiness report, which looks the same to the server) are not
        # leaving: before, either one cut the stream at the next read.
        uid = self.submit(repo="demo", prompt="slow", agent="slow")
        s = open_log(self.w.port, self.w.token, uid)
        got = read_until(s, b"", b"slow agent line 2\n")
        s.sendall(b"\r\n\r\nnot a request\r\n")
        got = read_to_end(s, got)
        s.close()
        self.assertTrue(got.endswith(LAST_CHUNK), got[-300:])
        self.assertIn(b"slow agent line 50\n", dechunk(got.partition(b"\r\n\r\n")[2]))

    def test_cancel_interrupts_a_running_unit_and_a_second_cancel_says_it_ended(self):
        uid = self.submit(repo="demo", prompt="long", agent="slow", unit_seconds=600)
        status, _, body = request(self.w.port, "POST", f"/api/v1/units/{uid}/cancel",
                                  token=self.w.token, body=b"{}")
        self.assertEqual(status, 202, body)
        self.assertEqual(self.wait_ended(uid)["state"], "interrupted")
        msg = self.assert_json_error(*request(self.w.port, "POST", f"/api/v1/units/{uid}/cancel",
                                              token=self.w.token, body=b"{}"), 409)
        self.assertIn("interrupted", msg)

    # ── watching a unit, and acting on it from the page (issue 25) ──

    def post(self, target, body=b"{}", **kw):
        return request(self.w.port, "POST", target, body=body, **kw)

    def unit_count(self):
        return get_json(self.w, "/api/v1/units?limit=1")[1]["total"]

    def test_the_running_phase_and_the_logs_marks_are_served(self):
        uid = self.submit(repo="demo", prompt="slow", agent="slow")
        s = open_log(self.w.port, self.w.token, uid)
        read_until(s, b"", b"slow agent line 3\n")
        s.close()
        u = get_json(self.w, f"/api/v1/units/{uid}")[1]
        self.assertEqual(u["state"], "running")
        now = u["current_phase"]
        self.assertEqual(now["name"], "agent", u)
        self.assertTrue(any(a.endswith("/slow") for a in now["argv"]), now)
        status, m = get_json(self.w, f"/api/v1/units/{uid}/marks")
        self.assertEqual(status, 200, m)
        self.assertTrue(m["indexed"])
        self.assertEqual([p["name"] for p in m["phases"]], ["agent"])
        u = self.wait_ended(uid)
        self.assertIsNone(u["current_phase"])
        self.assertEqual(u["phases"][0]["started_at"], now["started_at"])
        log = dechunk(request(self.w.port, "GET", f"/api/v1/units/{uid}/log", token=self.w.token)[2])
        m = get_json(self.w, f"/api/v1/units/{uid}/marks")[1]
        self.assertEqual(m["bytes"], len(log))
        agent = m["phases"][0]
        # The heading's line, where the bytes hold it: the index says so, the text is not read.
        self.assertEqual(agent["offset"], log.index("── agent: ".encode()))
        self.assertEqual(log[agent["offset"] - 1:agent["offset"]], b"\n")
        self.assertEqual(agent["line"], log[:agent["offset"]].count(b"\n"))
        # A mark at least every second of writes (the agent writes for 10 s), each naming its line.
        self.assertGreater(len(m["times"]), 5, m["times"])
        for offset, line, at in m["times"]:
            self.assertEqual(line, log[:offset].count(b"\n"), offset)
        self.assertEqual([t[2] for t in m["times"]], sorted(t[2] for t in m["times"]))
        # A part: the line of its first byte, its marks after the last one before it.
        for n in (0, 1, agent["offset"], len(log) // 2, len(log)):
            status, part = get_json(self.w, f"/api/v1/units/{uid}/marks?offset={n}&end={n + 100}")
            self.assertEqual(status, 200, part)
            self.assertEqual(part["line"], log[:n].count(b"\n"), n)
            if n >= m["times"][0][0]:
                self.assertLessEqual(part["times"][0][0], n)
            else:  # no mark before the transcript's first bytes: the part starts at the first one
                self.assertEqual(part["times"][0], m["times"][0], n)
            self.assertTrue(all(n <= t[0] < n + 100 for t in part["times"][1:]), (n, part["times"]))
        self.assert_json_error(*request(self.w.port, "GET", f"/api/v1/units/{uid}/marks?offset=9&end=3",
                                        token=self.w.token), 400)
        self.assert_json_error(*request(self.w.port, "GET", f"/api/v1/units/{uid}/marks?offset=x",
                                        token=self.w.token), 400)
        self.assert_json_error(*request(self.w.port, "GET", f"/api/v1/units/{uid}/marks"), 401)

    def put_records(self, recs):
        """Records put straight into the record database, as `run --pr` and watch would save
        them (a forge is not needed to see how serve shows them)."""
        db = sqlite3.connect(os.path.join(self.w.root, "state/awaywork.db"), timeout=30)
        with db:
            for r in recs:
                db.execute("INSERT OR REPLACE INTO units(id, created_at, state, repo, agent, branch, "
                           "runner_pid, runner_start, record) VALUES(?,?,?,?,?,?,?,?,?)",
                           (r["id"], r["created_at"], r["state"], r["repo"], r["agent"], r["branch"],
                            0, "", json.dumps(r)))
        db.close()

    def test_a_pull_requests_units_are_served_as_one_thread_behind_the_token(self):
        # Issue 26 item 7: the unit that opened a pull request and its follow-ups, in order, from
        # either's /thread; matched by the record's addresses only.
        uid = self.submit(repo="demo", prompt="Fix the typo in greet.sh")
        self.wait_ended(uid)
        db = sqlite3.connect(os.path.join(self.w.root, "state/awaywork.db"), timeout=30)
        (text,) = db.execute("SELECT record FROM units WHERE id = ?", (uid,)).fetchone()
        db.close()
        base = json.loads(text)
        pr = "https://github.example/o/r/pull/9"
        def rec(uid, at, **kw):
            return dict(base, id=uid, created_at=at, ended_at=at, runner_pid=0, runner_start="",
                        current_phase=None, **kw)
        note = "follow-up of pull request #9 (branch awaywork/t-open)"
        self.put_records([
            rec("t-open", "2026-01-01T10:00:00.000Z", state="done", verdict="accepted",
                branch="awaywork/t-open", commit="a" * 40, pull_request=pr),
            rec("t-fix-2", "2026-01-01T12:00:00.000Z", state="failed", verdict="", commit="",
                branch="", pull_request="", issue=9, issue_url=pr, notes=[note]),
            rec("t-fix-1", "2026-01-01T11:00:00.000Z", state="done", verdict="accepted",
                branch="awaywork/t-open", commit="b" * 40, pull_request=pr, issue=9,
                issue_url=pr, notes=[note]),
            rec("t-other", "2026-01-01T11:30:00.000Z", state="done", verdict="accepted",
                branch="awaywork/t-other", commit="c" * 40,
                pull_request="https://github.example/o/r/pull/10"),
            rec("t-evil", "2026-01-01T11:40:00.000Z", state="done", verdict="accepted",
                branch="awaywork/t-evil", commit="d" * 40, pull_request="javascript:alert(1)//pull/11"),
        ])
        for uid in ("t-open", "t-fix-1", "t-fix-2"):
            status, r = get_json(self.w, f"/api/v1/units/{uid}/thread")
            self.assertEqual(status, 200, r)
            t = r["thread"]
            self.assertEqual(t["pull_request"], {"number": 9, "kind": "pull_request", "url": pr})
            self.assertEqual([(u["id"], u["follow_up"], u["state"], u["verdict"], u["commit"])
                              for u in t["units"]],
                             [("t-open", False, "done", "accepted", "a" * 40),
                              ("t-fix-1", True, "done", "accepted", "b" * 40),
                              ("t-fix-2", True, "failed", "", "")])
            self.assertFalse(t["truncated"])
        self.assertEqual([u["id"] for u in get_json(self.w, "/api/v1/units/t-other/thread")[1]
                          ["thread"]["units"]], ["t-other"])
        # An address that is not http(s) is matched but never given as a link.
        self.assertIsNone(get_json(self.w, "/api/v1/units/t-evil/thread")[1]["thread"]["pull_request"]["url"])
        # A unit of no pull request has no thread; an unknown unit is a 404; the token guards it.
        self.assertEqual(get_json(self.w, f"/api/v1/units/{base['id']}/thread"), (200, {"thread": None}))
        self.assert_json_error(*request(self.w.port, "GET", "/api/v1/units/nope/thread",
                                        token=self.w.token), 404)
        self.assert_json_error(*request(self.w.port, "GET", "/api/v1/units/t-open/thread"), 401)
        self.assert_json_error(*request(self.w.port, "POST", "/api/v1/units/t-open/thread",
                                        token=self.w.token, body=b"{}",
                                        headers={"Content-Type": "application/json"}), 405)

    def test_a_gitlab_merge_request_is_served_as_one_by_its_number(self):
        # Issue 29 item 8: GitLab's address (.../GROUP/SUB/PROJECT/-/merge_requests/N) is a merge
        # request !N, in the unit's published facts and its thread; GitHub's /pull/N stays a pull
        # request. Before, only /pull/N was read: a merge request had no number.
        uid = self.submit(repo="demo", prompt="Fix the typo in greet.sh")
        self.wait_ended(uid)
        db = sqlite3.connect(os.path.join(self.w.root, "state/awaywork.db"), timeout=30)
        (text,) = db.execute("SELECT record FROM units WHERE id = ?", (uid,)).fetchone()
        db.close()
        base = json.loads(text)
        mr = "https://gitlab.example/grp/sub/app/-/merge_requests/7"
        def rec(uid, at, **kw):
            return dict(base, id=uid, created_at=at, ended_at=at, runner_pid=0, runner_start="",
                        current_phase=None, **kw)
        # As src/forge/gitlab/mr_source.cc records it (record.h kFollowUpNote).
        note = "follow-up of pull request #7 (branch awaywork/gl-open, GitLab merge request !7)"
        self.put_records([
            rec("gl-open", "2026-01-02T10:00:00.000Z", state="done", verdict="accepted",
                branch="awaywork/gl-open", commit="a" * 40, pull_request=mr, issue=3,
                issue_url="https://gitlab.example/grp/sub/app/-/issues/3"),
            rec("gl-fix", "2026-01-02T11:00:00.000Z", state="done", verdict="accepted",
                branch="awaywork/gl-open", commit="b" * 40, pull_request=mr, issue=7,
                issue_url=mr, notes=[note]),
            # A tail that is not only digits, and a non-web address: named, never numbered/linked.
            rec("gl-odd", "2026-01-02T11:30:00.000Z", state="done", verdict="accepted",
                branch="awaywork/gl-odd", commit="c" * 40,
                pull_request="https://gitlab.example/grp/app/-/merge_requests/8#note_1"),
            rec("gl-evil", "2026-01-02T11:40:00.000Z", state="done", verdict="accepted",
                branch="awaywork/gl-evil", commit="d" * 40,
                pull_request="javascript:alert(1)//-/merge_requests/9"),
        ])
        status, u = get_json(self.w, "/api/v1/units/gl-open")
        self.assertEqual(status, 200, u)
        self.assertEqual(u["published"]["pull_request"],
                         {"number": 7, "kind": "merge_request", "url": mr})
        for uid in ("gl-open", "gl-fix"):
            status, r = get_json(self.w, f"/api/v1/units/{uid}/thread")
            self.assertEqual(status, 200, r)
            self.assertEqual(r["thread"]["pull_request"],
                             {"number": 7, "kind": "merge_request", "url": mr})
            self.assertEqual([(x["id"], x["follow_up"]) for x in r["thread"]["units"]],
                             [("gl-open", False), ("gl-fix", True)])
        odd = get_json(self.w, "/api/v1/units/gl-odd")[1]["published"]["pull_request"]
        self.assertEqual((odd["number"], odd["kind"]), (None, "merge_request"))
        evil = get_json(self.w, "/api/v1/units/gl-evil")[1]["published"]["pull_request"]
        self.assertEqual(evil, {"number": 9, "kind": "merge_request", "url": None})

    def test_the_agents_events_are_served_behind_the_token(self):
        # The agent's transcript events (runs/ID/events.json): the scripted agent is a plain
        # command, each line it printed a message; the steps agent speaks Claude's stream-json.
        uid = self.submit(repo="demo", prompt="Fix the typo in greet.sh")
        self.wait_ended(uid)
        status, r = get_json(self.w, f"/api/v1/units/{uid}/events")
        self.assertEqual(status, 200, r)
        self.assertTrue(r["recorded"])
        self.assertEqual({e["kind"] for e in r["events"]}, {"message"}, r)
        self.assertIn("scripted agent: task received: Fix the typo in greet.sh",
                      [e["text"] for e in r["events"]])
        steps = self.submit(repo="demo", prompt="steps", agent="steps")
        self.wait_ended(steps)
        r = get_json(self.w, f"/api/v1/units/{steps}/events")[1]
        self.assertEqual([(e["kind"], e.get("tool", "")) for e in r["events"]],
                         [("message", ""), ("tool_call", "Read"), ("tool_result", "Read"),
                          ("tool_call", "Bash"), ("tool_result", "Bash"), ("tool_call", "Write"),
                          ("tool_result", "Write"), ("message", ""), ("usage", "")])
        self.assertEqual((r["events"][-1]["input_tokens"], r["events"][-1]["output_tokens"]),
                         (1500, 450))
        # The cost the CLI printed (issue 25); an event without one has no cost_usd.
        self.assertEqual(r["events"][-1]["cost_usd"], 0.0123)
        self.assertNotIn("cost_usd", r["events"][0])
        # Each step has its time and where its line begins in the log (issue 25): the scripted
        # agent's line is found there.
        run_dir = os.path.join(self.w.root, "state", "runs", uid)
        with open(os.path.join(run_dir, "transcript.log"), "rb") as f:
            log = f.read()
        r = get_json(self.w, f"/api/v1/units/{uid}/events")[1]
        self.assertEqual((r["total"], r["left_out"]), (len(r["events"]), 0))
        for e in r["events"]:
            self.assertIsInstance(e["ms"], int)
            self.assertGreater(e["ms"], 1700000000000)
            line = log[e["offset"]:].split(b"\n", 1)[0].decode("utf-8", "replace")
            self.assertIn(e["text"][:40], line, (e, log[:400]))
        # A plain command agent's every line is an event: the page gets at most the last 2000
        # (a 50 MiB log's steps were one 650 ms task to lay out), with how many there are, read
        # from the end of events.jsonl; again when it grew (only the new lines are counted).
        with open(os.path.join(run_dir, "events.jsonl"), "w") as f:
            for i in range(2500):
                f.write(json.dumps({"kind": "message", "text": f"line {i}", "ms": i,
                                    "offset": 10 * i}) + "\n")
        r = get_json(self.w, f"/api/v1/units/{uid}/events")[1]
        self.assertEqual((len(r["events"]), r["total"], r["left_out"]), (2000, 2500, 500))
        self.assertEqual((r["events"][0]["text"], r["events"][-1]["text"]), ("line 500", "line 2499"))
        self.assertEqual((r["events"][-1]["ms"], r["events"][-1]["offset"]), (2499, 24990))
        with open(os.path.join(run_dir, "events.jsonl"), "a") as f:
            f.write(json.dumps({"kind": "message", "text": "line 2500"}) + "\n" + '{"kind": "mess')
        r = get_json(self.w, f"/api/v1/units/{uid}/events")[1]
        self.assertEqual((len(r["events"]), r["total"], r["left_out"]), (2000, 2501, 501))
        self.assertEqual((r["events"][0]["text"], r["events"][-1]["text"]), ("line 501", "line 2500"))
        # A unit recorded before events.jsonl: its events.json, read once and then kept until it
        # changes (its size or mtime).
        os.remove(os.path.join(run_dir, "events.jsonl"))
        with open(os.path.join(run_dir, "events.json"), "w") as f:
            json.dump({"events": [{"kind": "message", "text": f"line {i}"} for i in range(2500)]}, f)
        r = get_json(self.w, f"/api/v1/units/{uid}/events")[1]
        self.assertEqual((len(r["events"]), r["total"], r["left_out"]), (2000, 2500, 500))
        self.assertEqual((r["events"][0]["text"], r["events"][-1]["text"]), ("line 500", "line 2499"))
        self.assertEqual(get_json(self.w, f"/api/v1/units/{uid}/events")[1], r)
        with open(os.path.join(run_dir, "events.json"), "w") as f:
            json.dump({"events": [{"kind": "message", "text": f"line {i}"} for i in range(3)]}, f)
        r = get_json(self.w, f"/api/v1/units/{uid}/events")[1]
        self.assertEqual((len(r["events"]), r["total"], r["left_out"]), (3, 3, 0))
        # An agent that printed nothing recorded no events: not an error.
        quiet = self.submit(repo="demo", prompt="a file", agent="bidiname")
        self.wait_ended(quiet)
        self.assertEqual(get_json(self.w, f"/api/v1/units/{quiet}/events"),
                         (200, {"recorded": False, "events": []}))
        self.assert_json_error(*request(self.w.port, "GET", f"/api/v1/units/{uid}/events"), 401)
        self.assert_json_error(*request(self.w.port, "GET", "/api/v1/units/nope-1/events",
                                        token=self.w.token), 404)

    def test_a_running_units_steps_are_served_as_the_agent_prints(self):
        # Issue 25: the steps were written only when the agent phase ended; now each line is a
        # step in events.jsonl at once, with its time and its line's offset in the log.
        uid = self.submit(repo="demo", prompt="long", agent="slow", unit_seconds=600)
        try:
            def seen():
                r = get_json(self.w, f"/api/v1/units/{uid}/events")[1]
                texts = [e["text"] for e in r["events"]]
                return r if "slow agent line 3" in texts else None
            started = int(time.time() * 1000)
            r = wait_for(seen, timeout=30)
            self.assertEqual(get_json(self.w, f"/api/v1/units/{uid}")[1]["state"], "running")
            self.assertTrue(r["recorded"])
            self.assertEqual((r["total"], r["left_out"]), (len(r["events"]), 0))
            self.assertNotIn("slow agent line 50", [e["text"] for e in r["events"]])
            run_dir = os.path.join(self.w.root, "state", "runs", uid)
            with open(os.path.join(run_dir, "transcript.log"), "rb") as f:
                log = f.read()
            three = next(e for e in r["events"] if e["text"] == "slow agent line 3")
            self.assertTrue(log[three["offset"]:].startswith(b"slow agent line 3\n"),
                            log[three["offset"] - 40:three["offset"] + 40])
            self.assertLessEqual(abs(three["ms"] - started), 30000)
            # The next poll has more, counted from where the last one stopped.
            more = wait_for(lambda: (lambda m: m if m["total"] >= r["total"] + 3 else None)(
                get_json(self.w, f"/api/v1/units/{uid}/events")[1]), timeout=30)
            self.assertEqual(more["total"], len(more["events"]))
            self.assertEqual(more["events"][:len(r["events"])], r["events"])
        finally:
            self.post(f"/api/v1/units/{uid}/cancel", token=self.w.token)
            self.wait_ended(uid)

    def test_replay_and_cancel_refuse_without_the_token_from_another_origin_or_without_json(self):
        ended = self.submit(repo="demo", prompt="Fix the typo in greet.sh")
        self.wait_ended(ended)
        running = self.submit(repo="demo", prompt="long", agent="slow", unit_seconds=600)
        try:
            before = self.unit_count()
            wrong = "0" * len(self.w.token)
            for target in (f"/api/v1/units/{ended}/replay", f"/api/v1/units/{running}/cancel"):
                self.assert_json_error(*self.post(target), 401)
                self.assert_json_error(*self.post(target, token=wrong), 401)
                for origin in ("http://evil.example", "null", f"http://localhost:{self.w.port}"):
                    self.assert_json_error(*self.post(target, token=self.w.token,
                                                      headers={"Origin": origin}), 403)
                self.assert_json_error(*self.post(target, token=self.w.token,
                                                  host=f"evil.example:{self.w.port}"), 421)
                # What a form of another site can send without a preflight: never JSON.
                for ctype in ("text/plain", "application/x-www-form-urlencoded",
                              "multipart/form-data; boundary=x"):
                    msg = self.assert_json_error(*self.post(target, token=self.w.token,
                                                            headers={"Content-Type": ctype}), 415)
                    self.assertIn("application/json", msg)
                self.assertEqual(request(self.w.port, "GET", target, token=self.w.token)[0], 405)
            self.assertEqual(self.unit_count(), before, "a refused re-run started nothing")
            self.assertEqual(get_json(self.w, f"/api/v1/units/{running}")[1]["state"], "running",
                             "a refused cancel stopped nothing")
        finally:
            self.post(f"/api/v1/units/{running}/cancel", token=self.w.token)
            self.wait_ended(running)

    def test_replay_makes_a_new_unit_that_records_replay_of(self):
        first = self.submit(repo="demo", prompt="Fix the typo in greet.sh")
        u = self.wait_ended(first)
        # The page's own Origin, and an empty body (as {}).
        status, _, body = self.post(f"/api/v1/units/{first}/replay", body=b"", token=self.w.token,
                                    headers={"Origin": f"http://127.0.0.1:{self.w.port}"})
        self.assertEqual(status, 202, body)
        new = json.loads(body)
        self.assertNotEqual(new["id"], first)
        again = self.wait_ended(new["id"])
        self.assertEqual(again["replay_of"], first)
        self.assertEqual(again["prompt"], u["prompt"])
        self.assertEqual(again["base_commit"], u["base_commit"])
        self.assertEqual(again["state"], "done", again)
        target = f"/api/v1/units/{first}/replay"
        msg = self.assert_json_error(*self.post(target, body=b'{"latest":"yes"}', token=self.w.token), 400)
        self.assertIn('"latest"', msg)
        msg = self.assert_json_error(*self.post(target, body=b'{"color":1}', token=self.w.token), 400)
        self.assertIn('unknown field "color"', msg)
        self.assert_json_error(*self.post(target, body=b"[1]", token=self.w.token), 400)
        self.assert_json_error(*self.post("/api/v1/units/20991231-000000-none-0000/replay",
                                          token=self.w.token), 404)

    def test_a_running_unit_is_not_replayed_until_it_ended(self):
        uid = self.submit(repo="demo", prompt="long", agent="slow", unit_seconds=600)
        msg = self.assert_json_error(*self.post(f"/api/v1/units/{uid}/replay", token=self.w.token), 409)
        self.assertIn("still running", msg)
        status, _, body = self.post(f"/api/v1/units/{uid}/cancel", token=self.w.token)
        self.assertEqual(status, 202, body)
        self.assertEqual(self.wait_ended(uid)["state"], "interrupted")

    def test_no_api_response_holds_a_profile_secret(self):
        uid = self.submit(repo="demo", prompt="print the token", agent="leaky", profile="web")
        u = self.wait_ended(uid)
        self.assertEqual(u["profile"], "web")
        bodies = []
        for target in (f"/api/v1/units/{uid}", f"/api/v1/units/{uid}/log",
                       f"/api/v1/units/{uid}/patch", "/api/v1/units", "/metrics", "/api/v1/config"):
            status, headers, body = request(self.w.port, "GET", target, token=self.w.token)
            self.assertEqual(status, 200, target)
            bodies.append(body)
        bodies[1] = dechunk(bodies[1])
        self.assertIn(b"the token is [REDACTED]", bodies[1])
        for body in bodies:
            self.assertNotIn(SECRET.encode(), body)
            self.assertNotIn(SECRET[4:20].encode(), body)
        self.assertNotIn(SECRET, self.w.server_log())

    def test_doctor_answers_every_check_with_its_fix(self):
        status, d = get_json(self.w, "/api/v1/doctor")
        self.assertEqual(status, 200)
        self.assertEqual(d["isolation"], "none")
        self.assertTrue(d["checks"])
        for c in d["checks"]:
            self.assertIn("name", c)
            self.assertIn("ok", c)

    def test_the_page_is_served_with_a_strict_policy_and_no_token(self):
        status, headers, body = request(self.w.port, "GET", "/")
        self.assertEqual(status, 200)
        self.assertIn("script-src 'self'", headers["content-security-policy"])
        self.assertEqual(headers["x-frame-options"], "DENY")
        self.assertNotIn(self.w.token.encode(), body)
        status, headers, body = request(self.w.port, "GET", "/app.js")
        self.assertEqual(status, 200)
        self.assertTrue(headers["content-type"].startswith("text/javascript"))
        self.assertEqual(request(self.w.port, "GET", "/nothing.js")[0], 404)

    def test_highlight_js_is_served_from_debians_package_or_as_a_stub_that_says_so(self):
        # The diff's colours (issue 25): /highlight.min.js is the file libjs-highlight.js installs,
        # read from its fixed path, or, without the package, a script that defines nothing.
        status, headers, body = request(self.w.port, "GET", "/highlight.min.js")
        self.assertEqual(status, 200)
        self.assertTrue(headers["content-type"].startswith("text/javascript"))
        self.assertIn("script-src 'self'", headers["content-security-policy"])
        path = "/usr/share/javascript/highlight.js/highlight.min.js"
        if os.path.exists(path):
            with open(path, "rb") as f:
                self.assertEqual(body, f.read())
        else:
            self.assertIn(b"highlight.js is not installed", body)
        # Only that name: no other file of the folder, no path.
        self.assertEqual(request(self.w.port, "GET", "/highlight.js")[0], 404)
        self.assertNotEqual(request(self.w.port, "GET", "/styles/default.css")[0], 200)


class ServeBranchUrl(unittest.TestCase):
    """Issue 25: the published branch's page is the server's (published.branch_url), from the
    repository's forge config where the record's repository is a forge one there, else from the
    recorded pull request's or issue's address; "" for a local repository. No forge is reached:
    the records are put straight into the record database, as `run --pr` and watch save them."""

    @classmethod
    def setUpClass(cls):
        cls.w = World()
        # Three forge repositories on three forges (github.com, GitHub Enterprise, a GitLab with
        # nested groups), beside World's local `demo`.
        with open(cls.w.config, "a") as f:
            f.write("""  hub:
    github: octo/web
    forge: dotcom
  ent:
    github: octo/ent
    forge: ghes
  app:
    gitlab: grp/sub/app
    forge: lab
forges:
  dotcom:
    credential: GH_TOKEN
  ghes:
    api_url: https://GHE.example/api/v3/
    credential: GH_TOKEN
  lab:
    kind: gitlab
    api_url: https://gitlab.example/api/v4
    credential: GITLAB_TOKEN
""")
        # Shaped like real tokens; valid nowhere, and never used: no forge is reached.
        cls.w.awaywork("secret", "set", "GH_TOKEN", input="ghp_" + "FAKEbranchURL0123456789abcdefABCDEFG"[:36])
        cls.w.awaywork("secret", "set", "GITLAB_TOKEN", input="glpat-" + "FAKEbranchURL0123456")
        cls.w.serve()

    @classmethod
    def tearDownClass(cls):
        cls.w.close()

    def test_the_published_branch_is_linked_from_the_forge_config_else_the_recorded_address(self):
        status, headers, body = request(self.w.port, "POST", "/api/v1/units", token=self.w.token,
                                        body=json.dumps({"repo": "demo", "prompt": "Fix the typo in greet.sh"}).encode())
        self.assertEqual(status, 202, body)
        uid = json.loads(body)["id"]
        local = wait_for(lambda: (lambda u: u if u["state"] != "running" else None)(
            get_json(self.w, f"/api/v1/units/{uid}")[1]), timeout=60)
        # A local repository's branch has no page.
        self.assertEqual(local["published"]["branch"], f"awaywork/{uid}", local)
        self.assertEqual(local["published"]["branch_url"], "")
        db = sqlite3.connect(os.path.join(self.w.root, "state/awaywork.db"), timeout=30)
        (text,) = db.execute("SELECT record FROM units WHERE id = ?", (uid,)).fetchone()
        base = json.loads(text)
        cases = [
            # (id, repo, branch, record fields, branch_url)
            # github.com (api.github.com), nothing recorded but the branch: the config alone.
            ("b-hub", "hub", "awaywork/b-hub", {}, "https://github.com/octo/web/tree/awaywork/b-hub"),
            # GitHub Enterprise (https://HOST/api/v3, host lowercased): the config wins over the
            # recorded address.
            ("b-ent", "ent", "awaywork/b-ent",
             {"pull_request": "https://elsewhere.example/x/y/pull/3"},
             "https://ghe.example/octo/ent/tree/awaywork/b-ent"),
            # GitLab, a project in a nested group: /-/tree/.
            ("b-lab", "app", "awaywork/b-lab",
             {"pull_request": "https://gitlab.example/grp/sub/app/-/merge_requests/4"},
             "https://gitlab.example/grp/sub/app/-/tree/awaywork/b-lab"),
            # Each segment of the branch percent-escaped as encodeURIComponent does: '#' would end
            # the path, '%' start an escape; the '/' between segments stays.
            ("b-esc", "hub", "awaywork/issue#12/caf\u00e9+100%", {},
             "https://github.com/octo/web/tree/awaywork/issue%2312/caf%C3%A9%2B100%25"),
            # Not a forge repository of the config: from the recorded address, as the page did:
            # a GitLab merge request in a nested group, a GitHub pull request, an issue alone.
            ("b-mr", "demo", "awaywork/b-mr",
             {"pull_request": "https://gitlab.example/grp/sub/app/-/merge_requests/7"},
             "https://gitlab.example/grp/sub/app/-/tree/awaywork/b-mr"),
            ("b-pr", "demo", "awaywork/b-pr",
             {"pull_request": "https://github.example/o/r/pull/9"},
             "https://github.example/o/r/tree/awaywork/b-pr"),
            ("b-issue", "demo", "awaywork/b-issue",
             {"issue": 5, "issue_url": "https://github.example/o/r/issues/5"},
             "https://github.example/o/r/tree/awaywork/b-issue"),
            # Any other address gives no page: not http(s), a fragment, no number.
            ("b-evil", "demo", "awaywork/b-evil",
             {"pull_request": "javascript:alert(1)//o/r/pull/11"}, ""),
            ("b-odd", "demo", "awaywork/b-odd",
             {"pull_request": "https://gitlab.example/grp/app/-/merge_requests/8#note_1"}, ""),
            ("b-none", "demo", "awaywork/b-none",
             {"pull_request": "https://github.example/o/r/pull/x"}, ""),
        ]
        with db:
            for i, (cid, repo, branch, fields, _) in enumerate(cases):
                r = dict(base, id=cid, created_at=f"2026-01-03T10:00:{i:02d}.000Z",
                         ended_at=f"2026-01-03T10:00:{i:02d}.000Z", runner_pid=0, runner_start="",
                         current_phase=None, state="done", verdict="accepted", repo=repo,
                         branch=branch, commit="e" * 40, pull_request="", issue=0, issue_url="",
                         notes=[])
                r.update(fields)
                db.execute("INSERT OR REPLACE INTO units(id, created_at, state, repo, agent, branch, "
                           "runner_pid, runner_start, record) VALUES(?,?,?,?,?,?,?,?,?)",
                           (r["id"], r["created_at"], r["state"], r["repo"], r["agent"], r["branch"],
                            0, "", json.dumps(r)))
        db.close()
        for cid, _, branch, _, want in cases:
            status, u = get_json(self.w, f"/api/v1/units/{cid}")
            self.assertEqual(status, 200, u)
            self.assertEqual(u["published"]["branch"], branch, cid)
            self.assertEqual(u["published"]["branch_url"], want, cid)


class ServeLifecycle(unittest.TestCase):
    def setUp(self):
        self.w = World()

    def tearDown(self):
        self.w.close()

    def test_refuses_0_0_0_0_without_listen_anywhere(self):
        r = self.w.awaywork("serve", "--listen", "0.0.0.0:0", check=False)
        self.assertEqual(r.returncode, 2)
        self.assertIn("--listen-anywhere", r.stderr)
        r = self.w.awaywork("serve", "--listen", "example.com:80", check=False)
        self.assertEqual(r.returncode, 2)

    # Issue 25: `--listen [::1]` said "the port must be a number".
    def test_a_listen_address_without_a_port_is_named_so(self):
        for listen in ("[::1]", "127.0.0.1", "[::1]:", "::1", "[::1"):
            r = self.w.awaywork("serve", "--listen", listen, check=False)
            self.assertEqual(r.returncode, 2, listen)
            self.assertIn("ADDRESS:PORT", r.stderr, listen)
            self.assertNotIn("must be a number", r.stderr, listen)
        r = self.w.awaywork("serve", "--listen", "[::1]:http", check=False)
        self.assertIn("must be a number", r.stderr)

    def test_listen_anywhere_warns_and_still_requires_the_token(self):
        port, token, url = self.w.serve("--listen", "0.0.0.0:0", "--listen-anywhere")
        self.assertEqual(request(port, "GET", "/api/v1/units")[0], 401)
        self.assertEqual(request(port, "GET", "/api/v1/units", token=token)[0], 200)
        self.w.stop()
        self.assertIn("WARNING", self.w.server_log())

    def test_the_url_names_the_ipv6_loopback_it_listens_on(self):
        # Issue 25: bound to [::1], it printed http://127.0.0.1:P/, and another server on
        # 127.0.0.1:P read the token from the page's location.hash.
        try:
            with socket.socket(socket.AF_INET6) as probe:
                probe.bind(("::1", 0))
        except OSError as e:
            self.skipTest(f"no IPv6 loopback here: {e}")
        port, token, url = self.w.serve("--listen", "[::1]:0")
        self.assertEqual(self.w.address, "::1")
        self.assertEqual(url, f"http://[::1]:{port}/#token={token}")
        with socket.create_connection(("::1", port), timeout=30) as s:
            s.sendall(f"GET / HTTP/1.1\r\nHost: [::1]:{port}\r\nConnection: close\r\n\r\n"
                      .encode())
            buf = b""
            while chunk := s.recv(65536):
                buf += chunk
        self.assertTrue(buf.startswith(b"HTTP/1.1 200 "), buf[:200])
        self.w.stop()
        # Without --json: the address in brackets, and the URL to it.
        p = subprocess.Popen([BINARY, "--config", self.w.config, "serve", "--listen", "[::1]:0"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=self.w.env,
                             text=True)
        try:
            listening, opened = p.stdout.readline(), p.stdout.readline()
        finally:
            p.terminate()
            p.wait(timeout=30)
        self.assertRegex(listening, r"^awaywork serve: listening on \[::1\]:\d+$")
        self.assertRegex(opened, r"^open http://\[::1\]:\d+/#token=[0-9a-f]+$")
        self.assertNotIn("127.0.0.1", listening + opened)

    def test_no_url_is_printed_when_it_holds_neither_loopback_name(self):
        # 127.0.0.2 is loopback, but the page answers only to 127.0.0.1, localhost and [::1]: a
        # URL to 127.0.0.1 would go to another program on that port.
        port, token, url = self.w.serve("--listen", "127.0.0.2:0", "--listen-anywhere")
        self.assertIsNone(url)
        self.assertEqual(self.w.address, "127.0.0.2")
        self.assertGreaterEqual(len(token), 32)
        self.w.stop()
        self.assertIn("no URL printed", self.w.server_log())
        self.assertIn("state/serve/token", self.w.server_log())

    def units_started_die_with_the_server(self, sig):
        port, token, _ = self.w.serve()
        status, _, body = request(port, "POST", "/api/v1/units", token=token, body=json.dumps(
            {"repo": "demo", "prompt": "long", "agent": "slow", "unit_seconds": 600}).encode())
        self.assertEqual(status, 202, body)
        uid = json.loads(body)["id"]
        u = json.loads(self.w.awaywork("show", uid, "--json").stdout)
        runner = u["runner_pid"]
        self.w.server.send_signal(sig)
        self.w.server.wait(timeout=30)
        wait_for(lambda: not os.path.exists(f"/proc/{runner}") or
                 open(f"/proc/{runner}/stat").read().split()[2] == "Z", timeout=15)
        u = json.loads(self.w.awaywork("show", uid, "--json").stdout)
        self.assertEqual(u["state"], "interrupted", u)

    def test_a_live_log_ends_with_the_unit_and_its_last_chunk_when_the_server_stops(self):
        port, token, _ = self.w.serve()
        status, _, body = request(port, "POST", "/api/v1/units", token=token, body=json.dumps(
            {"repo": "demo", "prompt": "long", "agent": "slow", "unit_seconds": 600}).encode())
        self.assertEqual(status, 202, body)
        uid = json.loads(body)["id"]
        s = open_log(port, token, uid)
        got = read_until(s, b"", b"slow agent line 2\n")
        self.w.server.send_signal(signal.SIGTERM)
        got = read_to_end(s, got)
        s.close()
        self.w.server.wait(timeout=30)
        self.assertTrue(got.endswith(LAST_CHUNK), got[-300:])
        self.assertNotIn(b"slow agent line 50\n", dechunk(got.partition(b"\r\n\r\n")[2]))
        u = json.loads(self.w.awaywork("show", uid, "--json").stdout)
        self.assertEqual(u["state"], "interrupted", u)

    def test_units_it_started_are_interrupted_when_it_is_stopped(self):
        self.units_started_die_with_the_server(signal.SIGTERM)

    def test_sigterm_exits_only_after_its_units_ended_and_were_recorded(self):
        # Issue 25: it exited 3 ms after SIGTERM, mid-wait (no open connection left the event
        # loop without work), leaving its units to PR_SET_PDEATHSIG with no grace and no SIGKILL.
        port, token, _ = self.w.serve()
        units = []
        for _ in range(2):
            status, _, body = request(port, "POST", "/api/v1/units", token=token, body=json.dumps(
                {"repo": "demo", "prompt": "long", "agent": "slow", "unit_seconds": 600}).encode())
            self.assertEqual(status, 202, body)
            uid = json.loads(body)["id"]
            u = json.loads(self.w.awaywork("show", uid, "--json").stdout)
            units.append((uid, u["runner_pid"]))
        start = time.monotonic()
        self.w.server.send_signal(signal.SIGTERM)
        self.assertEqual(self.w.server.wait(timeout=30), 0)
        self.assertLess(time.monotonic() - start, 25, "10 s of grace, then SIGKILL")
        # At once, no waiting: the server reaped each run before it exited.
        for uid, runner in units:
            self.assertFalse(os.path.exists(f"/proc/{runner}"), f"the run of {uid} outlived serve")
        with open(os.path.join(self.w.root, "state/serve/token")) as f:
            self.assertEqual(f.read().strip(), token)
        for uid, _ in units:
            u = json.loads(self.w.awaywork("show", uid, "--json").stdout)
            self.assertEqual(u["state"], "interrupted", u)
        self.assertIn("stopping the units", self.w.server_log())

    def test_units_it_started_die_when_it_is_killed(self):
        self.units_started_die_with_the_server(signal.SIGKILL)


if __name__ == "__main__":
    unittest.main()
