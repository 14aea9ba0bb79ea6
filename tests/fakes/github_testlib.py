"""What the fake GitHub's tests share: start tests/fakes/fake_github.py, call its /_fake/ routes
and its API, make a test CA with openssl, and skip (or fail, under CI=true) when a tool is
absent."""

import http.client
import json
import os
import shutil
import ssl
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
FAKE = os.path.join(HERE, "fake_github.py")
PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else "python3"
TEST_DATA = os.environ.get("AWAYWORK_TEST_DATA_DIR", "/var/cache/awaywork/test-data")


def require(ok, what):
    """Skips the test when `ok` is false; under CI=true that is a failure, not a skip."""
    if ok:
        return
    if os.environ.get("CI") == "true":
        raise AssertionError(f"{what} (CI=true: no skip)")
    raise unittest.SkipTest(what)


def package_dir(name):
    d = os.path.join(TEST_DATA, "node_modules", name)
    require(os.path.isdir(d), f"{name} is not in {TEST_DATA}; run scripts/test-data")
    return d


def make_ca(folder):
    """A test CA and a certificate it signed for 127.0.0.1 and localhost: (ca, cert, key)."""
    ca, ca_key = os.path.join(folder, "ca.pem"), os.path.join(folder, "ca.key")
    cert, key = os.path.join(folder, "cert.pem"), os.path.join(folder, "key.pem")
    csr, ext = os.path.join(folder, "cert.csr"), os.path.join(folder, "ext.cnf")
    with open(ext, "w") as f:
        f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n"
                "keyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n")
    quiet = {"check": True, "capture_output": True}
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=awaywork test CA (fake)", "-keyout", ca_key, "-out", ca],
                   **quiet)
    subprocess.run(["openssl", "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost",
                    "-keyout", key, "-out", csr], **quiet)
    subprocess.run(["openssl", "x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key,
                    "-CAcreateserial", "-days", "2", "-extfile", ext, "-out", cert], **quiet)
    return ca, cert, key


class Fake:
    """One running fake GitHub. fake.control(...) for /_fake/, fake.call(...) for the API."""

    def __init__(self, tls=None, ca=None, extra=()):
        self.dir = tempfile.mkdtemp(prefix="fake-github-test-")
        argv = [PYTHON, FAKE, "--port", "0", "--state", os.path.join(self.dir, "state"), *extra]
        if tls:
            argv += ["--tls", *tls]
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True)
        line = self.proc.stdout.readline()
        if not line:
            raise AssertionError("fake_github.py did not start: " + self.proc.stderr.read())
        info = json.loads(line)
        self.port, self.api_url, self.git_url = info["port"], info["api_url"], info["git_url"]
        self.control_port = int(info["control_url"].rsplit(":", 1)[1])
        self.ssl = ssl.create_default_context(cafile=ca) if tls else None

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)
        self.proc.stdout.close()
        self.proc.stderr.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def connection(self, control=False):
        if control:  # plain HTTP even for a TLS fake (its control listener)
            return http.client.HTTPConnection("127.0.0.1", self.control_port, timeout=30)
        if self.ssl:
            return http.client.HTTPSConnection("127.0.0.1", self.port, context=self.ssl,
                                               timeout=30)
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)

    def call(self, method, path, body=None, token=None, headers=None, control=False):
        """(status, headers as a lower-cased dict, parsed JSON body or None)."""
        h = {"Accept": "application/vnd.github+json", "User-Agent": "awaywork-fake-test"}
        if token:
            h["Authorization"] = "token " + token
        h.update(headers or {})
        data = None if body is None else json.dumps(body).encode()
        if data is not None:
            h["Content-Type"] = "application/json"
        conn = self.connection(control)
        try:
            conn.request(method, path, body=data, headers=h)
            resp = conn.getresponse()
            raw = resp.read()
            return (resp.status, {k.lower(): v for k, v in resp.getheaders()},
                    json.loads(raw) if raw else None)
        finally:
            conn.close()

    def control(self, method, path, body=None):
        status, _, out = self.call(method, "/_fake/" + path, body, control=True)
        if status >= 400:
            raise AssertionError(f"/_fake/{path}: {status} {out}")
        return out

    def user(self, login, kind="User"):
        return self.control("POST", "users", {"login": login, "type": kind})["token"]

    def repo(self, owner, name, source=None, **extra):
        return self.control("POST", "repos", {"owner": owner, "name": name, "source": source,
                                              **extra})


def clean_env(**extra):
    """An environment of PATH and LANG only (a machine's GIT_SSL_CAINFO, SSL_CERT_FILE, proxies
    or ~/.gitconfig would decide what the test sees), plus `extra`."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8",
           "HOME": os.environ.get("AW_TEST_HOME") or tempfile.gettempdir()}
    env.update(extra)
    return env


def git(*args, cwd=None, env=None, check=True):
    full_env = clean_env(GIT_TERMINAL_PROMPT="0", GIT_CONFIG_NOSYSTEM="1",
                         GIT_CONFIG_GLOBAL="/dev/null", GIT_AUTHOR_NAME="t",
                         GIT_AUTHOR_EMAIL="t@example.com", GIT_COMMITTER_NAME="t",
                         GIT_COMMITTER_EMAIL="t@example.com", **(env or {}))
    r = subprocess.run(["git", *args], cwd=cwd, env=full_env, capture_output=True, text=True)
    if check and r.returncode != 0:
        raise AssertionError(f"git {' '.join(args)}: {r.returncode}\n{r.stderr}")
    return r


def source_repo(folder, branches=("feature",), workflow=None):
    """A small git repository with a main branch and the given branches (one commit each);
    workflow names a .github/workflows/ file on main that a workflow_dispatch can start."""
    src = os.path.join(folder, "src")
    git("init", "-q", "-b", "main", src)
    with open(os.path.join(src, "README"), "w") as f:
        f.write("hello\n")
    if workflow:
        os.makedirs(os.path.join(src, ".github", "workflows"))
        with open(os.path.join(src, ".github", "workflows", workflow), "w") as f:
            f.write("on:\n  workflow_dispatch:\n    inputs:\n      issue: {type: string}\n"
                    "jobs:\n  unit:\n    runs-on: ubuntu-latest\n    steps:\n"
                    "      - run: echo ${{ inputs.issue }}\n")
    git("add", ".", cwd=src)
    git("commit", "-qm", "first", cwd=src)
    for b in branches:
        git("checkout", "-qb", b, cwd=src)
        with open(os.path.join(src, b + ".txt"), "w") as f:
            f.write(b + "\n")
        git("add", ".", cwd=src)
        git("commit", "-qm", b, cwd=src)
        git("checkout", "-q", "main", cwd=src)
    return src
