#!/usr/bin/python3
"""A small stdio MCP server for awaywork's tests (newline-delimited JSON-RPC 2.0, protocol
2025-06-18): `initialize`, `notifications/initialized`, `tools/list`, `tools/call`, `ping`.

Its one tool, `probe`, answers what the server sees from where it runs: its uid, its network
namespace, whether it can read the path given by --hidden (a path the sandbox hides), and the
SHA-256 of the secret variable named by --secret-var (never the value: the test checks the value
is in no recorded byte), and the names of its environment variables. A test compares these with
the host's.
"""

import argparse
import hashlib
import json
import os
import sys


def probe(args):
    try:
        netns = os.readlink("/proc/self/ns/net")
    except OSError as e:
        netns = "error: " + e.strerror
    try:
        with open(args.hidden, "rb") as f:
            hidden = "read %d bytes" % len(f.read())
    except OSError as e:
        hidden = "denied: " + (e.strerror or "error")
    secret = os.environ.get(args.secret_var, "")
    digest = hashlib.sha256(secret.encode()).hexdigest() if secret else "absent"
    names = ",".join(sorted(os.environ))
    return "probe-answer uid=%d netns=%s hidden=%s secret_sha256=%s env=%s" % (
        os.getuid(), netns, hidden, digest, names)


TOOL = {"name": "probe", "description": "Report where this MCP server runs.",
        "inputSchema": {"type": "object", "properties": {}, "additionalProperties": False}}


def answer(args, msg):
    method, params = msg.get("method"), msg.get("params") or {}
    if method == "initialize":
        return {"protocolVersion": params.get("protocolVersion", "2025-06-18"),
                "capabilities": {"tools": {"listChanged": False}},
                "serverInfo": {"name": "awaywork-probe", "version": "1.0.0"}}
    if method == "ping":
        return {}
    if method == "tools/list":
        return {"tools": [TOOL]}
    if method == "tools/call":
        if params.get("name") != "probe":
            raise KeyError(params.get("name"))
        return {"content": [{"type": "text", "text": probe(args)}], "isError": False}
    raise NotImplementedError(method)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--hidden", required=True)
    p.add_argument("--secret-var", default="MCP_PROBE_TOKEN")
    args = p.parse_args()
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        msg = json.loads(line)
        if "id" not in msg:
            continue  # a notification (notifications/initialized): no answer
        try:
            reply = {"jsonrpc": "2.0", "id": msg["id"], "result": answer(args, msg)}
        except NotImplementedError as e:
            reply = {"jsonrpc": "2.0", "id": msg["id"],
                     "error": {"code": -32601, "message": "method not found: %s" % e}}
        except KeyError as e:
            reply = {"jsonrpc": "2.0", "id": msg["id"],
                     "error": {"code": -32602, "message": "unknown tool: %s" % e}}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
