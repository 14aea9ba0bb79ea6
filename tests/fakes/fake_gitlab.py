#!/usr/bin/env python3
"""A FAKE GitLab for awaywork's tests (GitLab cannot be reached here): the REST API v4 and git
over HTTP(S), stateful, with real bare repositories behind `git http-backend`. Not GitLab's code;
its bodies are shaped after GitLab's documented REST responses. The contract it keeps is
tests/fakes/README.md, section "fake_gitlab.py".

  python3 tests/fakes/fake_gitlab.py --port 0 --state DIR [--tls CERT KEY] [--log FILE]
prints one JSON line {"port", "api_url", "git_url", "control_url"} when ready, then serves until
SIGTERM."""

import argparse
import os
import signal
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gitlab_fake import server, store  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=0, help="0 = pick one; printed on stdout")
    p.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"), help="serve HTTPS")
    p.add_argument("--state", help="the bare repositories (default: a temp dir)")
    p.add_argument("--log", help="also append each entry of GET /_fake/log to this JSONL file")
    args = p.parse_args()
    root = args.state or tempfile.mkdtemp(prefix="fake-gitlab-")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    server.serve(args, store.State(root))


if __name__ == "__main__":
    main()
