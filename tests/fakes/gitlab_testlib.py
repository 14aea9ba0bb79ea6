"""What the fake GitLab's tests share: start tests/fakes/fake_gitlab.py, call its /_fake/ routes
and its API (stdlib http.client), and a source repository with a main branch to serve."""

import http.client
import json
import os
import shutil
import subprocess
import tempfile
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
FAKE = os.path.join(HERE, "fake_gitlab.py")
PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else "python3"


def source_repo(folder, branches=("feature",)):
    """A non-bare repository with a commit on main and each of `branches` one commit ahead."""
    src = os.path.join(folder, "src")
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid",
           "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}

    def git(*a):
        subprocess.run(["git", "-C", src, *a], check=True, capture_output=True, env=env)

    os.makedirs(src)
    git("init", "-q", "-b", "main")
    with open(os.path.join(src, "README"), "w") as f:
        f.write("hello\n")
    git("add", "README")
    git("commit", "-q", "-m", "first")
    for b in branches:
        git("checkout", "-q", "-b", b, "main")
        with open(os.path.join(src, b), "w") as f:
            f.write(b + "\n")
        git("add", b)
        git("commit", "-q", "-m", b)
    git("checkout", "-q", "main")
    return src


class Fake:
    """One running fake GitLab. fake.control(...) for /_fake/, fake.call(...) for the API."""

    def __init__(self, extra=()):
        self.dir = tempfile.mkdtemp(prefix="fake-gitlab-test-")
        argv = [PYTHON, FAKE, "--port", "0", "--state", os.path.join(self.dir, "state"), *extra]
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True)
        line = self.proc.stdout.readline()
        if not line:
            raise AssertionError("fake_gitlab.py did not start: " + self.proc.stderr.read())
        info = json.loads(line)
        self.port, self.api_url, self.git_url = info["port"], info["api_url"], info["git_url"]

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)
        self.proc.stdout.close()
        self.proc.stderr.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def request(self, method, path, body=None, headers=None):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        data = None if body is None else json.dumps(body)
        h = {"Content-Type": "application/json", **(headers or {})}
        c.request(method, path, data, h)
        r = c.getresponse()
        raw = r.read()
        c.close()
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:
            parsed = raw.decode()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, parsed

    def control(self, method, path, body=None):
        status, _, out = self.request(method, "/_fake/" + path, body)
        if status >= 300:
            raise AssertionError(f"{method} /_fake/{path}: {status} {out}")
        return out

    def call(self, method, path, body=None, token=None, headers=None):
        h = dict(headers or {})
        if token:
            h["PRIVATE-TOKEN"] = token
        return self.request(method, "/api/v4" + path, body, h)

    def user(self, username, bot=False, scopes=None):
        b = {"username": username, "bot": bot}
        if scopes is not None:
            b["scopes"] = scopes
        return self.control("POST", "users", b)["token"]

    def member(self, namespace, username, level):
        return self.control("POST", "members/" + namespace,
                            {"username": username, "access_level": level})

    def project(self, path, source=None):
        b = {"path": path}
        if source:
            b["source"] = source
        return self.control("POST", "projects", b)

    @staticmethod
    def enc(path):
        return urllib.parse.quote(path, safe="")
