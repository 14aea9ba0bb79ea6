"""GitLab's REST v4 bodies, as the fake GitLab returns them (a FAKE, for tests only). The keys and
their types follow GitLab's documented example responses (docs.gitlab.com/ee/api/: users,
projects, members, issues, notes, resource_label_events, merge_requests); keys the fake has no
state for carry GitLab's value for a plain object (null, false, 0, [])."""

from .store import iso


class Urls:
    def __init__(self, web):
        self.web = web  # http(s)://HOST:PORT, the instance's root (git and web pages)
        self.api = web + "/api/v4"


def user_basic(st, uid, urls):
    u = st.users[uid]
    return {"id": u["id"], "username": u["username"], "name": u["name"], "state": "active",
            "locked": False, "avatar_url": None, "web_url": f"{urls.web}/{u['username']}"}


def user_full(st, uid, urls, current=False):
    u = st.users[uid]
    out = {**user_basic(st, uid, urls), "created_at": iso(u["created_at"]), "bio": "",
           "location": "", "public_email": None, "linkedin": "", "twitter": "", "discord": "",
           "website_url": "", "organization": "", "job_title": "", "pronouns": None,
           "bot": u["bot"], "work_information": None, "local_time": None}
    if current:
        out.update({"last_sign_in_at": None, "confirmed_at": iso(u["created_at"]),
                    "last_activity_on": None, "email": f"{u['username']}@example.invalid",
                    "theme_id": 1, "color_scheme_id": 1, "projects_limit": 100000,
                    "current_sign_in_at": None, "identities": [], "can_create_group": True,
                    "can_create_project": True, "two_factor_enabled": False, "external": False,
                    "private_profile": False, "commit_email": f"{u['username']}@example.invalid"})
    return out


def token_self(st, uid):
    """GET /personal_access_tokens/self (GitLab 15.5+): the token the request carries."""
    u = st.users[uid]
    return {"id": u["token_id"], "name": "awaywork", "revoked": False,
            "created_at": iso(u["created_at"]), "description": None, "scopes": u["scopes"],
            "user_id": u["id"], "last_used_at": iso(st.now()), "active": True,
            "expires_at": None}


def member(st, uid, level, urls):
    return {**user_basic(st, uid, urls), "access_level": level,
            "created_at": iso(st.users[uid]["created_at"]), "expires_at": None,
            "membership_state": "active"}


def project(st, p, urls):
    path = p["path_with_namespace"]
    ns = p["namespace"]
    return {"id": p["id"], "description": None, "name": p["path"],
            "name_with_namespace": " / ".join(path.split("/")), "path": p["path"],
            "path_with_namespace": path, "created_at": iso(p["created_at"]),
            "default_branch": p["default_branch"], "tag_list": [], "topics": [],
            "ssh_url_to_repo": f"git@127.0.0.1:{path}.git",
            "http_url_to_repo": f"{urls.web}/{path}.git", "web_url": f"{urls.web}/{path}",
            "readme_url": None, "forks_count": 0, "avatar_url": None, "star_count": 0,
            "last_activity_at": iso(p["created_at"]),
            "namespace": {"id": abs(hash(ns)) % 100000 + 1, "name": ns.split("/")[-1],
                          "path": ns.split("/")[-1], "kind": "group", "full_path": ns,
                          "parent_id": None, "avatar_url": None, "web_url": f"{urls.web}/{ns}"},
            "visibility": p["visibility"], "issues_enabled": True,
            "merge_requests_enabled": True, "archived": False, "empty_repo": False,
            "_links": {"self": f"{urls.api}/projects/{p['id']}",
                       "issues": f"{urls.api}/projects/{p['id']}/issues",
                       "merge_requests": f"{urls.api}/projects/{p['id']}/merge_requests",
                       "repo_branches": f"{urls.api}/projects/{p['id']}/repository/branches",
                       "labels": f"{urls.api}/projects/{p['id']}/labels",
                       "events": f"{urls.api}/projects/{p['id']}/events",
                       "members": f"{urls.api}/projects/{p['id']}/members"}}


def _references(p, sigil, iid):
    return {"short": f"{sigil}{iid}", "relative": f"{sigil}{iid}",
            "full": f"{p['path_with_namespace']}{sigil}{iid}"}


def _time_stats():
    return {"time_estimate": 0, "total_time_spent": 0, "human_time_estimate": None,
            "human_total_time_spent": None}


def issue(st, p, i, urls):
    base = f"{urls.api}/projects/{p['id']}/issues/{i['iid']}"
    user_notes = sum(1 for n in i["notes"] if not n["system"])
    assignees = [user_basic(st, a, urls) for a in i["assignees"]]
    return {"id": i["id"], "iid": i["iid"], "project_id": p["id"], "title": i["title"],
            "description": i["description"], "state": i["state"],
            "created_at": iso(i["created_at"]), "updated_at": iso(i["updated_at"]),
            "closed_at": iso(i["closed_at"]) if i["closed_at"] else None, "closed_by": None,
            "labels": list(i["labels"]), "milestone": None, "assignees": assignees,
            "author": user_basic(st, i["author"], urls), "type": "ISSUE",
            "assignee": assignees[0] if assignees else None, "user_notes_count": user_notes,
            "merge_requests_count": 0, "upvotes": 0, "downvotes": 0, "due_date": None,
            "confidential": False, "discussion_locked": None, "issue_type": "issue",
            "web_url": f"{urls.web}/{p['path_with_namespace']}/-/issues/{i['iid']}",
            "time_stats": _time_stats(),
            "task_completion_status": {"count": 0, "completed_count": 0}, "has_tasks": False,
            "_links": {"self": base, "notes": base + "/notes", "award_emoji": base + "/award_emoji",
                       "project": f"{urls.api}/projects/{p['id']}",
                       "closed_as_duplicate_of": None},
            "references": _references(p, "#", i["iid"]), "severity": "UNKNOWN",
            "moved_to_id": None, "service_desk_reply_to": None}


def note(st, p, n, urls):
    out = {"id": n["id"], "type": n.get("type"), "body": n["body"], "attachment": None,
           "author": user_basic(st, n["author"], urls), "created_at": iso(n["created_at"]),
           "updated_at": iso(n["updated_at"]), "system": n["system"],
           "noteable_id": n["noteable_id"], "noteable_type": n["noteable_type"],
           "project_id": p["id"], "resolvable": n.get("resolvable", False),
           "confidential": False, "internal": False, "noteable_iid": n["noteable_iid"],
           "commands_changes": {}}
    if n["noteable_type"] == "MergeRequest":
        # The merge request notes' extra keys (GitLab's discussions API example).
        out["commit_id"] = n.get("commit_id")
        if n.get("resolvable"):
            out.update({"resolved": n.get("resolved", False), "resolved_by": None,
                        "resolved_at": None})
        if n.get("position"):
            out["position"] = dict(n["position"])
            out["suggestions"] = []
    return out


def discussion(st, p, notes, urls):
    """A merge request discussion: its id (40 hex digits), individual_note (a lone note that is
    not a thread), its notes oldest first."""
    first = notes[0]
    return {"id": first["discussion_id"],
            "individual_note": bool(first.get("individual")) and len(notes) == 1,
            "notes": [note(st, p, n, urls) for n in notes]}


def label_event(st, p, e, urls):
    return {"id": e["id"], "user": user_basic(st, e["user"], urls),
            "created_at": iso(e["created_at"]), "resource_type": "Issue",
            "resource_id": e["resource_id"], "label": dict(e["label"]), "action": e["action"]}


def merge_request(st, p, m, urls):
    draft = m["title"].lower().startswith(("draft:", "[draft]", "(draft)"))
    return {"id": m["id"], "iid": m["iid"], "project_id": p["id"], "title": m["title"],
            "description": m["description"], "state": m["state"],
            "created_at": iso(m["created_at"]), "updated_at": iso(m["updated_at"]),
            "merged_by": None, "merge_user": None, "merged_at": None, "closed_by": None,
            "closed_at": None, "target_branch": m["target_branch"],
            "source_branch": m["source_branch"], "user_notes_count": 0, "upvotes": 0,
            "downvotes": 0, "author": user_basic(st, m["author"], urls), "assignees": [],
            "assignee": None,
            "reviewers": [user_basic(st, r["user"], urls) for r in m.get("reviewers", [])],
            "source_project_id": p["id"],
            "target_project_id": p["id"], "labels": list(m["labels"]), "draft": draft,
            "work_in_progress": draft, "milestone": None,
            "merge_when_pipeline_succeeds": False, "merge_status": "checking",
            "detailed_merge_status": "checking",
            # The source branch's head now, as GitLab's answer says after every push.
            "sha": m.get("pinned_sha") or st.branch_sha(p, m["source_branch"]) or m["sha"], "merge_commit_sha": None,
            "squash_commit_sha": None, "discussion_locked": None,
            "should_remove_source_branch": None, "force_remove_source_branch": False,
            "prepared_at": iso(m["created_at"]), "reference": f"!{m['iid']}",
            "references": _references(p, "!", m["iid"]),
            "web_url": f"{urls.web}/{p['path_with_namespace']}/-/merge_requests/{m['iid']}",
            "time_stats": _time_stats(), "squash": False, "squash_on_merge": False,
            "task_completion_status": {"count": 0, "completed_count": 0}, "has_conflicts": False,
            "blocking_discussions_resolved": True}


def reviewer(st, p, r, urls):
    """One of GET .../merge_requests/:iid/reviewers: the user, the state of their review, when
    they were added."""
    return {"user": user_basic(st, r["user"], urls), "state": r["state"],
            "created_at": iso(r["created_at"])}


def pipeline(st, p, pl, urls):
    return {"id": pl["id"], "iid": pl["iid"], "project_id": p["id"], "sha": pl["sha"],
            "ref": pl["ref"], "status": pl["status"], "source": "push",
            "created_at": iso(pl["created_at"]), "updated_at": iso(pl["updated_at"]),
            "web_url": f"{urls.web}/{p['path_with_namespace']}/-/pipelines/{pl['id']}"}


def job(st, p, pl, j, urls):
    out = {"id": j["id"], "status": j["status"], "stage": j["stage"], "name": j["name"],
           "ref": pl["ref"], "tag": False, "coverage": None, "allow_failure": j["allow_failure"],
           "created_at": iso(j["created_at"]), "started_at": iso(j["created_at"]),
           "finished_at": iso(j["created_at"]), "erased_at": None, "duration": 1.0,
           "queued_duration": 0.1, "user": user_basic(st, j["user"], urls),
           "commit": {"id": pl["sha"], "short_id": (pl["sha"] or "")[:8]},
           "pipeline": {"id": pl["id"], "project_id": p["id"], "ref": pl["ref"],
                        "sha": pl["sha"], "status": pl["status"]},
           "web_url": f"{urls.web}/{p['path_with_namespace']}/-/jobs/{j['id']}",
           "project": {"ci_job_token_scope_enabled": False}, "artifacts": [], "runner": None,
           "tag_list": [], "archived": False}
    if j["status"] == "failed":
        out["failure_reason"] = j["failure_reason"]
    return out
