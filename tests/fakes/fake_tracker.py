#!/usr/bin/python3
"""A FAKE issue tracker and webhook receiver for awaywork's plugin tests (test server only).

It is no real product's API: it is the small JSON tracker API that the shipped example
examples/plugins/tracker-source reads, and an endpoint that takes what
examples/plugins/webhook-notify posts. Python 3 standard library only.

  GET  /api/tasks?project=NAME   {"tasks": [...]}: the JSON list in --tasks FILE (read on each
                                 request, so a test may change it), those of that project only
  POST /api/tasks/ID/done        records the report, answers {"ok": true}
  POST anything else             records it (a webhook), answers {"ok": true}

--port 0 picks a free port and prints it as the first stdout line. --log FILE appends one JSON
line per request: method, path, lower-cased headers, parsed body (null when not JSON). --token T
makes every request without "Authorization: Bearer T" a 401. --garbage answers the task list with
bytes that are not JSON (a broken tracker).
"""

import argparse
import http.server
import json
import sys
import urllib.parse


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "awaywork-fake-tracker"
    sys_version = ""

    def log_message(self, fmt, *args):  # quiet: the JSONL log is the record
        pass

    def answer(self, status, body):
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def record(self, body):
        args = self.server.args
        if not args.log:
            return
        entry = {"method": self.command, "path": self.path,
                 "headers": {k.lower(): v for k, v in self.headers.items()}, "body": body}
        with open(args.log, "a", encoding="utf-8") as f:
            f.write(json.dumps(entry) + "\n")

    def authorized(self):
        token = self.server.args.token
        return not token or self.headers.get("Authorization") == "Bearer " + token

    def do_GET(self):
        self.record(None)
        if not self.authorized():
            return self.answer(401, {"error": "bad token"})
        url = urllib.parse.urlsplit(self.path)
        if url.path != "/api/tasks":
            return self.answer(404, {"error": "no such route"})
        if self.server.args.garbage:
            return self.answer(200, b"<html>\x1b[31m not json")
        project = urllib.parse.parse_qs(url.query).get("project", [""])[0]
        with open(self.server.args.tasks, encoding="utf-8") as f:
            text = f.read()
        tasks = json.loads(text) if text.strip() else []
        self.answer(200, {"tasks": [t for t in tasks if t.get("project", project) == project]})

    def do_POST(self):
        n = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(n) if n else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        self.record(body)
        if not self.authorized():
            return self.answer(401, {"error": "bad token"})
        self.answer(200, {"ok": True})


def main():
    p = argparse.ArgumentParser(description="A FAKE tracker and webhook receiver (tests only)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--tasks", default="/dev/null", help="a JSON list of the tracker's tasks")
    p.add_argument("--log")
    p.add_argument("--token", default="")
    p.add_argument("--garbage", action="store_true")
    args = p.parse_args()
    server = http.server.ThreadingHTTPServer((args.host, args.port), Handler)
    server.args = args
    print(server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
