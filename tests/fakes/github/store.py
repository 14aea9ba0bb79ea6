"""The fake GitHub's state (a FAKE, for tests only): users and their tokens, repositories backed
by real bare git repositories, and what is on them (issues, comments, labels, events, reactions,
pull requests). One lock guards it all; the server's threads take it around each request."""

import datetime
import json
import os
import re
import secrets
import string
import subprocess
import threading
import time

ROLES = ("admin", "maintain", "write", "triage", "read")
# The legacy permission GitHub reports for each role (collaborators/LOGIN/permission).
PERMISSION_OF_ROLE = {"admin": "admin", "maintain": "write", "write": "write",
                      "triage": "read", "read": "read"}
WRITE_ROLES = ("admin", "maintain", "write")
TRIAGE_ROLES = WRITE_ROLES + ("triage",)  # may label and assign, not push


class FakeError(Exception):
    """An answer in GitHub's error shape: status, message, optional errors list."""

    def __init__(self, status, message, errors=None, doc="https://docs.github.com/rest"):
        super().__init__(message)
        self.status, self.message, self.errors, self.doc = status, message, errors, doc

    def body(self):
        b = {"message": self.message}
        if self.errors is not None:
            b["errors"] = self.errors
        b["documentation_url"] = self.doc
        return b


def not_found():
    return FakeError(404, "Not Found")


def invalid(resource, field, code="invalid", doc="https://docs.github.com/rest"):
    return FakeError(422, "Validation Failed",
                     [{"resource": resource, "code": code, "field": field}], doc)


def iso(t):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def parse_iso(s):
    """An ISO 8601 time (GitHub's `since`) as epoch seconds; a 422 when it is not one."""
    try:
        t = datetime.datetime.fromisoformat(s.replace("Z", "+00:00"))
    except ValueError:
        raise FakeError(422, "Validation Failed",
                        [{"resource": "Issue", "code": "invalid", "field": "since"}])
    if t.tzinfo is None:
        t = t.replace(tzinfo=datetime.timezone.utc)
    return t.timestamp()


def fake_token(prefix="ghp_"):
    alphabet = string.ascii_letters + string.digits
    return prefix + "".join(secrets.choice(alphabet) for _ in range(36))


def git(*args, cwd=None, check=True):
    r = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    if check and r.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {r.stderr.strip()}")
    return r.stdout.strip()


class State:
    def __init__(self, root):
        self.root = root
        os.makedirs(os.path.join(root, "repos"), exist_ok=True)
        self.lock = threading.RLock()
        self.offset = 0.0  # POST /_fake/clock moves it
        self.next_id = 1000
        self.users = {}  # login -> user
        self.tokens = {}  # token -> login
        self.repos = {}  # "owner/name" -> repo
        self.faults = {"secondary_limit": 0, "retry_after": 60, "secondary_status": 403,
                       "server_errors": 0, "status": 502, "on": ""}
        self.stats = {"requests": 0, "counted": 0, "not_modified": 0, "writes": 0}
        self.log = []
        self.rate = {}  # login or "" (anonymous) -> {"remaining", "reset", "limit"}
        self.rate_remaining = None  # POST /_fake/faults rate_remaining: the next windows' start
        self.dirty = False

    # --- time and ids ------------------------------------------------------------------------
    def now(self):
        return time.time() + self.offset

    def new_id(self):
        self.next_id += 1
        return self.next_id

    # --- users ---------------------------------------------------------------------------------
    def add_user(self, login, kind="User", token=None, installation=False):
        """INSTALLATION: the login is a GitHub App's and its token an installation token (a
        workflow's github.token is github-actions[bot]'s), shaped ghs_...; GET /user refuses it."""
        if login in self.users:
            return self.users[login]
        token = token or fake_token("ghs_" if installation else "ghp_")
        u = {"login": login, "id": self.new_id(), "type": kind, "token": token,
             "created_at": self.now(), "installation": bool(installation)}
        self.users[login] = u
        self.tokens[token] = login
        return u

    def user(self, login):
        u = self.users.get(login)
        if not u:
            raise not_found()
        return u

    # --- repositories ------------------------------------------------------------------------
    def bare_path(self, full_name):
        return os.path.join(self.root, "repos", full_name + ".git")

    def add_repo(self, owner, name, source=None, default_branch=None, private=False,
                 fork_of=None):
        """A repository; FORK_OF ("owner/name") makes it a fork: a copy of that repository's
        branches, named as its fork (repo shape's fork, parent and source)."""
        full = f"{owner}/{name}"
        if fork_of is not None:
            parent = self.repos.get(fork_of)
            if not parent:
                raise invalid("Repository", "fork_of")
            source = self.bare_path(fork_of)
            default_branch = default_branch or parent["default_branch"]
        if full in self.repos:
            raise invalid("Repository", "name", "already_exists")
        self.add_user(owner)
        bare = self.bare_path(full)
        os.makedirs(os.path.dirname(bare), exist_ok=True)
        if source:
            git("clone", "--bare", "--no-hardlinks", "-q", source, bare)
            if not default_branch:
                head = git("symbolic-ref", "-q", "HEAD", cwd=bare, check=False)
                default_branch = head.replace("refs/heads/", "") or "main"
        else:
            default_branch = default_branch or "main"
            git("init", "--bare", "-q", "-b", default_branch, bare)
        git("symbolic-ref", "HEAD", "refs/heads/" + default_branch, cwd=bare)
        git("config", "http.receivepack", "true", cwd=bare)
        r = {"id": self.new_id(), "owner": owner, "name": name, "full_name": full,
             "private": bool(private), "default_branch": default_branch,
             "created_at": self.now(), "collaborators": {owner: "admin"},
             "drafts_allowed": True, "pr_refused": False, "push_refused": False,
             "issues": {}, "next_number": 1, "labels": {}, "comments": {}, "events": [],
             "reactions": [], "runs": [], "parent": fork_of, "reviews": [],
             "review_comments": {}}
        self.repos[full] = r
        return r

    def repo(self, owner, name):
        r = self.repos.get(f"{owner}/{name}")
        if not r:
            raise not_found()
        return r

    def repo_by_id(self, rid):
        for r in self.repos.values():
            if r["id"] == rid:
                return r
        raise not_found()

    def role(self, r, login):
        """The user's role on the repository, or None (a stranger)."""
        return r["collaborators"].get(login) if login else None

    def can_read(self, r, login):
        return not r["private"] or self.role(r, login) is not None

    def can_write(self, r, login):
        return self.role(r, login) in WRITE_ROLES

    def can_triage(self, r, login):
        return self.role(r, login) in TRIAGE_ROLES

    def set_push_refused(self, r, refused):
        r["push_refused"] = bool(refused)
        hook = os.path.join(self.bare_path(r["full_name"]), "hooks", "pre-receive")
        if refused:
            with open(hook, "w") as f:
                f.write("#!/bin/sh\necho 'error: GH006: push declined by the FAKE GitHub "
                        "(push_refused)' >&2\nexit 1\n")
            os.chmod(hook, 0o755)
        elif os.path.exists(hook):
            os.remove(hook)

    def ref_sha(self, r, branch):
        """The commit refs/heads/BRANCH names in the bare repository, or None. Read from its
        files every time (no git started): like GitHub's API, it sees each push at once, by
        whatever route the push came."""
        bare = self.bare_path(r["full_name"])
        if not branch or ".." in branch or branch.startswith("/") or "\0" in branch:
            return None
        name = "refs/heads/" + branch
        try:
            with open(os.path.join(bare, name)) as f:
                value = f.read().strip()
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            value = None
        if value is None:
            try:
                with open(os.path.join(bare, "packed-refs")) as f:
                    for line in f:
                        sha, _, ref = line.rstrip("\n").partition(" ")
                        if ref == name:
                            return sha
            except FileNotFoundError:
                pass
            return None
        if re.fullmatch(r"[0-9a-f]{40}", value):
            return value
        return git("rev-parse", "--verify", "-q", f"{name}^{{commit}}", cwd=bare,
                   check=False) or None  # a symbolic ref

    def commit_info(self, r, sha):
        bare = self.bare_path(r["full_name"])
        out = git("log", "-1", "--format=%T%n%P%n%an%n%ae%n%aI%n%cn%n%ce%n%cI%n%B", sha, cwd=bare)
        lines = out.split("\n")
        return {"tree": lines[0], "parents": lines[1].split(), "author": lines[2:5],
                "committer": lines[5:8], "message": "\n".join(lines[8:]).strip()}

    # --- issues ------------------------------------------------------------------------------
    def issue(self, r, number):
        i = r["issues"].get(int(number))
        if not i:
            raise not_found()
        return i

    def add_issue(self, r, login, title, body=None, labels=(), assignees=()):
        n = r["next_number"]
        r["next_number"] += 1
        now = self.now()
        i = {"number": n, "id": self.new_id(), "title": title, "body": body, "user": login,
             "state": "open", "state_reason": None, "labels": [], "assignees": [],
             "created_at": now, "updated_at": now, "closed_at": None, "closed_by": None,
             "locked": False, "pull": None}
        r["issues"][n] = i
        self.add_labels(r, i, login, labels)
        self.assign(r, i, login, assignees)
        return i

    def event(self, r, i, login, kind, **extra):
        r["events"].append({"id": self.new_id(), "issue": i["number"], "actor": login,
                            "event": kind, "created_at": self.now(), **extra})

    def label(self, r, name, color="ededed", description=None, create=True):
        lab = r["labels"].get(name.lower())
        if lab or not create:
            return lab
        lab = {"id": self.new_id(), "name": name, "color": color, "description": description}
        r["labels"][name.lower()] = lab
        return lab

    def add_labels(self, r, i, login, names):
        for name in names:
            lab = self.label(r, name)
            if lab["name"] not in i["labels"]:
                i["labels"].append(lab["name"])
                self.event(r, i, login, "labeled", label=lab["name"])
        if names:
            i["updated_at"] = self.now()

    def remove_label(self, r, i, login, name):
        lab = self.label(r, name, create=False)
        if not lab or lab["name"] not in i["labels"]:
            raise FakeError(404, "Label does not exist")
        i["labels"].remove(lab["name"])
        i["updated_at"] = self.now()
        self.event(r, i, login, "unlabeled", label=lab["name"])

    def assign(self, r, i, login, logins, remove=False):
        for a in logins:
            if a not in self.users:
                continue  # GitHub silently ignores logins it cannot assign
            if remove and a in i["assignees"]:
                i["assignees"].remove(a)
                self.event(r, i, login, "unassigned", assignee=a)
            elif not remove and a not in i["assignees"]:
                i["assignees"].append(a)
                self.event(r, i, login, "assigned", assignee=a)
        i["updated_at"] = self.now()

    def set_state(self, r, i, login, state, reason=None):
        if state == i["state"]:
            return
        i["state"] = state
        if state == "closed":
            i["closed_at"], i["closed_by"] = self.now(), login
            i["state_reason"] = reason or "completed"
            self.event(r, i, login, "closed")
        else:
            i["closed_at"], i["closed_by"], i["state_reason"] = None, None, "reopened"
            self.event(r, i, login, "reopened")
        i["updated_at"] = self.now()

    def comment(self, r, cid):
        c = r["comments"].get(int(cid))
        if not c:
            raise not_found()
        return c

    def add_comment(self, r, i, login, body):
        now = self.now()
        c = {"id": self.new_id(), "issue": i["number"], "user": login, "body": body,
             "created_at": now, "updated_at": now}
        r["comments"][c["id"]] = c
        i["updated_at"] = now
        return c

    def comments_of(self, r, i):
        return [c for c in r["comments"].values() if c["issue"] == i["number"]]

    # --- persistence -------------------------------------------------------------------------
    def changed(self):
        """Marks the snapshot stale; the saver thread writes it (a rename per write would cost
        more than the request it records)."""
        self.dirty = True

    def save(self):
        """A JSON snapshot for a person looking at a failed test; the fake never reads it."""
        with self.lock:
            self.dirty = False
            users = {k: dict(u, token=u["token"][:4] + "...(redacted)")
                     for k, u in self.users.items()}  # tests scan files for their tokens
            snap = json.dumps({"users": users, "repos": self.repos,
                               "clock_offset": self.offset}, indent=1, default=str)
        path = os.path.join(self.root, "state.json")
        with open(path + ".tmp", "w") as f:
            f.write(snap)
        os.replace(path + ".tmp", path)

    def start_saver(self, every=0.5):
        def loop():
            while True:
                time.sleep(every)
                if self.dirty:
                    self.save()
        threading.Thread(target=loop, daemon=True).start()
