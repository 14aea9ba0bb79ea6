"""Shared plumbing of awaywork's FAKE model servers (test servers only, not the vendors' code).

HTTP/1.1 with keep-alive and chunked transfer encoding, as the vendors' APIs answer, so the
real CLIs' HTTP clients see the framing they see in production. Every request is appended to a
JSONL log (method, path, headers, parsed body) so tests can assert which key reached the server.
"""

import argparse
import http.server
import json
import os
import socketserver
import ssl
import sys
import threading
import time
import uuid


def parse_args(description, extra=None):
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=0, help="0 = pick one; the port is printed")
    p.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"), help="serve HTTPS")
    p.add_argument("--log", help="append every request (headers, body) to this JSONL file")
    p.add_argument("--error-status", type=int, default=0,
                   help="answer every model request with this HTTP error (e.g. 401)")
    if extra:
        extra(p)
    return p.parse_args()


def new_id(prefix):
    return prefix + uuid.uuid4().hex[:24]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive + chunked, as the real APIs
    server_version = "awaywork-fake"
    sys_version = ""

    # --- request side -------------------------------------------------------------------
    def read_body(self):
        n = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(n) if n else b""
        try:
            return raw, (json.loads(raw) if raw else None)
        except ValueError:
            return raw, None

    def record(self, body, note=""):
        log = self.server.args.log
        if not log:
            return
        entry = {
            "time": time.time(),
            "method": self.command,
            "path": self.path,
            "headers": {k.lower(): v for k, v in self.headers.items()},
            "body": body,
            "note": note,
        }
        with self.server.log_lock, open(log, "a") as f:
            f.write(json.dumps(entry) + "\n")

    def log_message(self, fmt, *args):  # stderr stays quiet unless asked
        if os.environ.get("AW_FAKE_VERBOSE"):
            sys.stderr.write("fake: " + (fmt % args) + "\n")

    # --- response side ------------------------------------------------------------------
    def send_json(self, status, obj, headers=None):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def start_sse(self, headers=None):
        self.send_response(200)
        self.send_header("content-type", "text/event-stream; charset=utf-8")
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()

    def sse(self, event, data):
        payload = f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()
        self.chunk(payload)

    def chunk(self, payload):
        self.wfile.write(b"%x\r\n%s\r\n" % (len(payload), payload))
        self.wfile.flush()

    def end_sse(self):
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def serve(handler_class, args, state=None):
    srv = Server((args.host, args.port), handler_class)
    srv.args = args
    srv.log_lock = threading.Lock()
    srv.state = state if state is not None else {}
    srv.state_lock = threading.Lock()
    if args.tls:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(args.tls[0], args.tls[1])
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    # The first stdout line is the port: tests start the fake with --port 0 and read it.
    print(srv.server_address[1], flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
