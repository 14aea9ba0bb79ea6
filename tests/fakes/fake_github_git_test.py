"""Real git clones and pushes through the fake GitHub's `git http-backend`, over HTTP and over
HTTPS with a test CA, with the token given by a credential helper or an askpass program (never
in the URL): pushes need write access, a push without credentials is asked for them (401), a
refused push is refused by the remote, a large push arrives chunked, and git and API calls
overlap."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from github_testlib import Fake, git, make_ca, source_repo  # noqa: E402


class GitThroughTheFake(unittest.TestCase):
    tls = False

    def setUp(self):
        self.ca = None
        tls = None
        if self.tls:
            import tempfile
            self.cadir = tempfile.mkdtemp(prefix="fake-github-ca-")
            self.ca, cert, key = make_ca(self.cadir)
            tls = (cert, key)
        self.fake = Fake(tls=tls, ca=self.ca)
        self.src = source_repo(self.fake.dir)
        self.token = self.fake.user("alice")
        self.fake.repo("alice", "r", self.src)
        self.url = f"{self.fake.git_url}/alice/r.git"

    def tearDown(self):
        self.fake.stop()

    def helper(self, token):
        """A credential helper script answering x-access-token and the token."""
        path = os.path.join(self.fake.dir, f"cred-{token[-6:]}.sh")
        with open(path, "w") as f:
            f.write(f"#!/bin/sh\necho username=x-access-token\necho password={token}\n")
        os.chmod(path, 0o700)
        return path

    def gitc(self, *args, token=None, check=True, cwd=None):
        conf = ["-c", "credential.helper="]
        if token:
            conf += ["-c", f"credential.helper={self.helper(token)}"]
        env = {"GIT_SSL_CAINFO": self.ca} if self.ca else {}
        return git(*conf, *args, cwd=cwd, check=check, env=env)

    def clone(self, name="work"):
        dest = os.path.join(self.fake.dir, name)
        self.gitc("clone", "-q", self.url, dest)
        return dest

    def commit(self, work, name, data=b"x\n"):
        with open(os.path.join(work, name), "wb") as f:
            f.write(data)
        git("add", name, cwd=work)
        git("commit", "-qm", name, cwd=work)
        return git("rev-parse", "HEAD", cwd=work).stdout.strip()

    def test_clone_and_push_with_a_token_from_a_credential_helper(self):
        work = self.clone()
        self.assertTrue(os.path.exists(os.path.join(work, "README")))
        git("checkout", "-qb", "awaywork/u1", cwd=work)
        sha = self.commit(work, "change.txt")
        self.gitc("push", "-q", "origin", "awaywork/u1", token=self.token, cwd=work)
        status, _, ref = self.fake.call("GET", "/repos/alice/r/git/ref/heads/awaywork/u1",
                                        token=self.token)
        self.assertEqual((status, ref["object"]["sha"]), (200, sha))
        pushes = [e for e in self.fake.control("GET", "log") if e["kind"] == "git" and e["write"]]
        self.assertEqual([(e["login"], e["status"]) for e in pushes], [("alice", 200)])
        self.assertFalse(any(self.token in e["path"] for e in self.fake.control("GET", "log")))

    def test_push_with_the_token_from_an_askpass_program(self):
        askpass = os.path.join(self.fake.dir, "askpass.sh")
        with open(askpass, "w") as f:  # git asks "Username for ..." then "Password for ..."
            f.write('#!/bin/sh\ncase "$1" in Username*) echo x-access-token ;; '
                    f'*) echo {self.token} ;; esac\n')
        os.chmod(askpass, 0o700)
        work = self.clone()
        sha = self.commit(work, "askpass.txt")
        env = {"GIT_ASKPASS": askpass}
        if self.ca:
            env["GIT_SSL_CAINFO"] = self.ca
        git("-c", "credential.helper=", "push", "-q", "origin", "HEAD:refs/heads/via-askpass",
            cwd=work, env=env)
        ref = self.fake.call("GET", "/repos/alice/r/git/ref/heads/via-askpass",
                             token=self.token)[2]
        self.assertEqual(ref["object"]["sha"], sha)

    def test_a_push_without_credentials_gets_401_and_nothing_lands(self):
        work = self.clone()
        self.commit(work, "change.txt")
        r = self.gitc("push", "origin", "HEAD:refs/heads/sneaky", check=False, cwd=work)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("could not read Username", r.stderr)
        self.assertEqual(self.fake.call("GET", "/repos/alice/r/branches/sneaky",
                                        token=self.token)[0], 404)

    def test_a_push_by_a_reader_is_forbidden(self):
        reader = self.fake.user("reader")
        self.fake.control("PUT", "repos/alice/r/collaborators/reader", {"permission": "read"})
        work = self.clone()
        self.commit(work, "change.txt")
        r = self.gitc("push", "origin", "HEAD:refs/heads/x", token=reader, check=False, cwd=work)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("403", r.stderr)

    def test_a_push_refused_by_the_remote_says_so(self):
        self.fake.control("PATCH", "repos/alice/r", {"push_refused": True})
        work = self.clone()
        self.commit(work, "change.txt")
        r = self.gitc("push", "origin", "HEAD:refs/heads/x", token=self.token, check=False,
                      cwd=work)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("pre-receive hook declined", r.stderr)

    def test_a_large_push_arrives_chunked_and_clones_back(self):
        work = self.clone()
        git("checkout", "-qb", "big", cwd=work)
        sha = self.commit(work, "big.bin", os.urandom(3 * 1024 * 1024))  # > http.postBuffer
        self.gitc("push", "-q", "origin", "big", token=self.token, cwd=work)
        again = self.clone("again")
        self.gitc("fetch", "-q", "origin", "big", cwd=again)
        self.assertEqual(git("rev-parse", "FETCH_HEAD", cwd=again).stdout.strip(), sha)

    def test_git_and_api_requests_overlap(self):
        idle = self.fake.connection()  # an open keep-alive API connection holds one thread
        idle.request("GET", "/repos/alice/r", headers={"Authorization": "token " + self.token})
        idle.getresponse().read()
        self.clone()  # served while that connection stays open
        idle.request("GET", "/user", headers={"Authorization": "token " + self.token})
        self.assertEqual(idle.getresponse().status, 200)
        idle.close()


class GitThroughTheFakeOverTls(GitThroughTheFake):
    tls = True

    def test_the_plain_control_port_serves_only_fake_routes_with_the_https_urls(self):
        repo = self.fake.control("POST", "repos", {"owner": "alice", "name": "other"})
        self.assertEqual(repo["clone_url"], f"https://127.0.0.1:{self.fake.port}/alice/other.git")
        status, _, _ = self.fake.call("GET", "/repos/alice/r", token=self.token, control=True)
        self.assertEqual(status, 404)
        self.assertEqual(self.fake.call("GET", "/repos/alice/r", token=self.token)[0], 200)


if __name__ == "__main__":
    unittest.main()
