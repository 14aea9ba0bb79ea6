"""The fake GitLab's state (a FAKE, for tests only): users and bots with their tokens, groups and
projects (nested namespaces) backed by real bare git repositories, members with access levels,
issues, notes (user and system), label events and merge requests. One lock guards it all."""

import os
import secrets
import string
import subprocess
import threading
import time

# GitLab's access levels (members API).
GUEST, REPORTER, DEVELOPER, MAINTAINER, OWNER = 10, 20, 30, 40, 50
LEVELS = (5, GUEST, REPORTER, DEVELOPER, MAINTAINER, OWNER)  # 5: Minimal access


class FakeError(Exception):
    """An answer in GitLab's error shape: {"message": ...} or {"error": ...}."""

    def __init__(self, status, message, key="message"):
        super().__init__(str(message))
        self.status, self.message, self.key = status, message, key

    def body(self):
        return {self.key: self.message}


def not_found(what=""):
    # GitLab says which resource: "404 Project Not Found", "404 Issue Not Found", "404 Not found".
    return FakeError(404, f"404 {what} Not Found" if what else "404 Not found")


def iso(t):
    """GitLab's timestamps: UTC with milliseconds, e.g. 2026-12-06T02:40:00.123Z."""
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + ".%03dZ" % (int(t * 1000) % 1000)


def fake_token(prefix="glpat-"):
    # Shaped like a personal access token (glpat- and 20 characters); fake.
    alphabet = string.ascii_letters + string.digits + "_-"
    return prefix + "".join(secrets.choice(alphabet) for _ in range(20))


class State:
    def __init__(self, root):
        self.root = root
        os.makedirs(os.path.join(root, "repos"), exist_ok=True)
        self.lock = threading.RLock()
        self.users = {}  # id -> user
        self.tokens = {}  # token -> user id
        self.projects = {}  # id -> project
        self.members = {}  # namespace or project full path -> {user id: access level}
        self.log = []
        # connections: TCP connections accepted (API, git and control alike); each log entry
        # names its connection, so a test sees which requests shared one (keep-alive).
        self.stats = {"requests": 0, "counted": 0, "writes": 0, "not_modified": 0,
                      "connections": 0}
        # keyset: whether lists that have it answer pagination=keyset (False: an older GitLab,
        # which answers 405 to it).
        self.faults = {"rate_limited": 0, "retry_after": 1, "server_errors": 0, "status": 500,
                       "on": "", "keyset": True}
        self.limit = 2000  # requests per minute per user (GitLab.com's authenticated API limit)
        # The version the fake plays: before 15.5, GET /personal_access_tokens/self is no route.
        self.version = "17.5.0"
        self.next_id = {"user": 1, "project": 1, "issue": 1, "note": 1, "mr": 1, "event": 1,
                        "label": 1, "pipeline": 1, "job": 1, "token": 1}

    def new_id(self, kind):
        n = self.next_id[kind]
        self.next_id[kind] += 1
        return n

    def now(self):
        return time.time()

    # --- users ------------------------------------------------------------------------------
    def add_user(self, username, bot=False, token=None, scopes=None):
        for u in self.users.values():
            if u["username"] == username:
                if scopes is not None:
                    u["scopes"] = list(scopes)
                return u
        uid = self.new_id("user")
        # One token per user; its scopes are only described (GET /personal_access_tokens/self),
        # never enforced: the fake's routes answer any valid token.
        u = {"id": uid, "username": username, "name": username.replace(".", " ").title(),
             "bot": bool(bot), "created_at": self.now(), "token": token or fake_token(),
             "token_id": self.new_id("token"),
             "scopes": list(scopes) if scopes is not None else ["api", "write_repository"],
             "rate": {"window": int(self.now()) // 60, "used": 0}}
        self.users[uid] = u
        self.tokens[u["token"]] = uid
        return u

    def version_at_least(self, major, minor):
        try:
            have = tuple(int(x) for x in self.version.split(".")[:2])
        except ValueError:
            return True
        return have >= (major, minor)

    def user_named(self, username):
        for u in self.users.values():
            if u["username"] == username:
                return u
        return None

    # --- projects ---------------------------------------------------------------------------
    def add_project(self, path, source=None, default_branch=None, visibility="private"):
        if self.project_at(path):
            raise FakeError(400, {"name": ["has already been taken"]})
        parts = path.split("/")
        if len(parts) < 2 or any(not p for p in parts):
            raise FakeError(400, "path is invalid", "error")
        bare = os.path.join(self.root, "repos", path + ".git")
        os.makedirs(os.path.dirname(bare), exist_ok=True)
        if source:
            subprocess.run(["git", "clone", "-q", "--bare", source, bare], check=True,
                           stdout=subprocess.DEVNULL)
        else:
            subprocess.run(["git", "init", "-q", "--bare", bare], check=True)
        if default_branch:
            subprocess.run(["git", "--git-dir", bare, "symbolic-ref", "HEAD",
                            "refs/heads/" + default_branch], check=True)
        head = subprocess.run(["git", "--git-dir", bare, "symbolic-ref", "--short", "HEAD"],
                              capture_output=True, text=True).stdout.strip() or "main"
        pid = self.new_id("project")
        p = {"id": pid, "path_with_namespace": path, "path": parts[-1],
             "namespace": "/".join(parts[:-1]), "default_branch": head, "bare": bare,
             "visibility": visibility, "created_at": self.now(), "issues": {}, "mrs": {},
             "labels": {}, "push_refused": "", "pipelines": []}
        self.projects[pid] = p
        return p

    def project_at(self, ref):
        """A project by numeric id or full path (the API's :id, already URL-decoded)."""
        if ref.isdigit():
            return self.projects.get(int(ref))
        for p in self.projects.values():
            if p["path_with_namespace"].lower() == ref.lower():
                return p
        return None

    def access(self, p, uid):
        """The user's access level on the project: the highest of its own and its groups'."""
        if uid is None:
            return 0
        parts = p["path_with_namespace"].split("/")
        best = 0
        for i in range(1, len(parts) + 1):
            best = max(best, self.members.get("/".join(parts[:i]), {}).get(uid, 0))
        return best

    def can_read(self, p, uid):
        return p["visibility"] == "public" or self.access(p, uid) >= GUEST

    def has_branch(self, p, branch):
        return subprocess.run(["git", "--git-dir", p["bare"], "rev-parse", "--verify", "-q",
                               "refs/heads/" + branch], capture_output=True).returncode == 0

    def branch_commit(self, p, branch):
        """The branch's head as GitLab's commit fields ({id, title, message, author_name, ...}),
        None when there is no such branch."""
        out = subprocess.run(["git", "--git-dir", p["bare"], "log", "-1", "--format=%H%x00%s%x00"
                              "%B%x00%an%x00%ae%x00%aI%x00%cn%x00%ce%x00%cI%x00%P",
                              "refs/heads/" + branch, "--"], capture_output=True, text=True)
        if out.returncode != 0 or not out.stdout:
            return None
        f = out.stdout.rstrip("\n").split("\0")
        return {"id": f[0], "short_id": f[0][:8], "created_at": f[8], "parent_ids": f[9].split(),
                "title": f[1], "message": f[2], "author_name": f[3], "author_email": f[4],
                "authored_date": f[5], "committer_name": f[6], "committer_email": f[7],
                "committed_date": f[8], "trailers": {}, "extended_trailers": {}}

    def branch_sha(self, p, branch):
        return subprocess.run(["git", "--git-dir", p["bare"], "rev-parse", "-q", "--verify",
                               "refs/heads/" + branch], capture_output=True,
                              text=True).stdout.strip() or None

    # --- issues, notes, events, merge requests ----------------------------------------------
    def add_issue(self, p, author, title, description="", labels=()):
        iid = len(p["issues"]) + 1
        t = self.now()
        i = {"id": self.new_id("issue"), "iid": iid, "title": title,
             "description": description or "", "state": "opened", "author": author["id"],
             "labels": [], "assignees": [], "created_at": t, "updated_at": t, "closed_at": None,
             "notes": [], "label_events": []}
        p["issues"][iid] = i
        for name in labels:
            self.label(p, i, author, name, "add")
        return i

    def issue(self, p, iid):
        i = p["issues"].get(int(iid)) if str(iid).isdigit() else None
        if not i:
            raise not_found()
        return i

    def add_note(self, p, i, author, body, system=False, noteable="Issue", discussion=None,
                 position=None):
        """A note on an issue or a merge request. On a merge request every note is in a
        discussion (GitLab's model): a new one of its own (individual_note) unless `discussion`
        names one to reply in; a `position` makes it a resolvable DiffNote."""
        t = self.now()
        n = {"id": self.new_id("note"), "body": body, "author": author["id"], "system": system,
             "created_at": t, "updated_at": t, "noteable_id": i["id"], "noteable_iid": i["iid"],
             "noteable_type": noteable}
        if noteable == "MergeRequest":
            first = next((x for x in i["notes"] if x["discussion_id"] == discussion), None)
            if discussion and not first:
                raise not_found("Discussion")
            if first:  # a reply: the thread's kind
                position, individual = first["position"], False
                n["type"] = first["type"] if first["type"] else "DiscussionNote"
                if first["type"] is None:  # replying to a lone note turns it into a thread
                    first["type"] = "DiscussionNote"
                    for x in i["notes"]:
                        if x["discussion_id"] == discussion:
                            x["individual"] = False
            else:
                discussion = secrets.token_hex(20)
                individual = position is None
                n["type"] = "DiffNote" if position else None
            n.update({"discussion_id": discussion, "individual": individual,
                      "position": position, "resolvable": bool(position) and not system,
                      "resolved": False, "commit_id": None})
        i["notes"].append(n)
        i["updated_at"] = t
        return n

    def label(self, p, i, user, name, action):
        if name not in p["labels"]:
            p["labels"][name] = {"id": self.new_id("label"), "name": name, "color": "#6699cc",
                                 "description": None}
        has = name in i["labels"]
        if (action == "add") == has:
            return
        if action == "add":
            i["labels"].append(name)
        else:
            i["labels"].remove(name)
        t = self.now()
        i["label_events"].append({"id": self.new_id("event"), "user": user["id"],
                                  "created_at": t, "resource_id": i["id"],
                                  "label": p["labels"][name], "action": action})
        i["updated_at"] = t

    def assign(self, p, i, user, assignees):
        """Sets the issue's assignees as GitLab does: a system note by `user` saying who was
        assigned and unassigned ("assigned to @a and unassigned @b")."""
        new = [a["id"] for a in assignees]
        added = [self.users[x]["username"] for x in new if x not in i["assignees"]]
        gone = [self.users[x]["username"] for x in i["assignees"] if x not in new]
        i["assignees"] = new
        said = []
        if added:
            said.append("assigned to " + _names(added))
        if gone:
            said.append("unassigned " + _names(gone))
        if said:
            self.add_note(p, i, user, " and ".join(said), system=True)

    def add_mr(self, p, author, source, target, title, description, labels):
        iid = len(p["mrs"]) + 1
        t = self.now()
        m = {"id": self.new_id("mr"), "iid": iid, "title": title, "description": description or "",
             "state": "opened", "author": author["id"], "source_branch": source,
             "target_branch": target, "labels": list(labels), "created_at": t, "updated_at": t,
             "sha": self.branch_sha(p, source), "notes": [], "label_events": [],
             "reviewers": []}  # each {user, state, created_at}, in the order they were added
        p["mrs"][iid] = m
        return m


    def set_reviewers(self, p, m, by, ids):
        """GitLab's update of a merge request's reviewer_ids: a reviewer kept keeps the state of
        their review; one added starts unreviewed (a new review request: GitLab's todo and
        email); one removed is gone, with the state of their review. Each change is a system
        note by who made it, as GitLab writes them."""
        t = self.now()
        before = {r["user"]: r for r in m["reviewers"]}
        after = []
        for uid in ids:
            if uid not in self.users:
                continue
            after.append(before.get(uid) or {"user": uid, "state": "unreviewed",
                                             "created_at": t})
        added = [r["user"] for r in after if r["user"] not in before]
        removed = [u for u in before if u not in {r["user"] for r in after}]
        m["reviewers"] = after
        names = lambda us: ", ".join("@" + self.users[u]["username"] for u in us)
        if added:
            self.add_note(p, m, by, f"requested review from {names(added)}", True, "MergeRequest")
        if removed:
            self.add_note(p, m, by, f"removed review request for {names(removed)}", True,
                          "MergeRequest")
        m["updated_at"] = t

    def review_state(self, p, m, user, state):
        """A reviewer submitting their review: the state of it (requested_changes also takes
        back their approval on GitLab; the fake keeps no approvals). Not yet a reviewer: added."""
        r = next((x for x in m["reviewers"] if x["user"] == user["id"]), None)
        if r is None:
            r = {"user": user["id"], "state": "unreviewed", "created_at": self.now()}
            m["reviewers"].append(r)
        r["state"] = state
        if state == "requested_changes":
            self.add_note(p, m, user, "requested changes", True, "MergeRequest")
        m["updated_at"] = self.now()
        return r

    def add_pipeline(self, p, user, ref, sha, status, jobs):
        """A finished pipeline on `sha` (the branch's head when None) with its jobs, each
        {name, stage, status, allow_failure, failure_reason, trace}."""
        t = self.now()
        pl = {"id": self.new_id("pipeline"), "iid": len(p["pipelines"]) + 1, "ref": ref,
              "sha": sha or self.branch_sha(p, ref), "status": status, "user": user["id"],
              "created_at": t, "updated_at": t, "jobs": []}
        for j in jobs:
            pl["jobs"].append({"id": self.new_id("job"), "name": j.get("name", "test"),
                               "stage": j.get("stage", "test"),
                               "status": j.get("status", "success"),
                               "allow_failure": bool(j.get("allow_failure")),
                               "failure_reason": j.get("failure_reason") or
                               ("script_failure" if j.get("status") == "failed" else None),
                               "trace": j.get("trace", ""), "created_at": t, "user": user["id"]})
        p["pipelines"].append(pl)
        return pl


def _names(usernames):
    """GitLab's list in a system note: "@a", "@a and @b", "@a, @b and @c"."""
    at = ["@" + u for u in usernames]
    return at[0] if len(at) == 1 else ", ".join(at[:-1]) + " and " + at[-1]
