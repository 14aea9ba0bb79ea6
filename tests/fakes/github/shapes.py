"""JSON bodies of the fake GitHub (a FAKE, for tests only), key for key as GitHub's recorded
responses in @octokit/fixtures (and, where no scenario records an endpoint, the examples of
GitHub's REST description in @octokit/openapi). github_keys_test.py holds the fake to both.

Every function takes the request's Urls (the API root, with /api/v3 in GHES mode, and the web
root that html_url and clone_url use) and the state."""

import base64

from .store import PERMISSION_OF_ROLE, iso

USER_URLS = [("followers_url", "/followers"), ("following_url", "/following{/other_user}"),
             ("gists_url", "/gists{/gist_id}"), ("starred_url", "/starred{/owner}{/repo}"),
             ("subscriptions_url", "/subscriptions"), ("organizations_url", "/orgs"),
             ("repos_url", "/repos"), ("events_url", "/events{/privacy}"),
             ("received_events_url", "/received_events")]
REPO_URLS = [("forks_url", "/forks"), ("keys_url", "/keys{/key_id}"),
             ("collaborators_url", "/collaborators{/collaborator}"), ("teams_url", "/teams"),
             ("hooks_url", "/hooks"), ("issue_events_url", "/issues/events{/number}"),
             ("events_url", "/events"), ("assignees_url", "/assignees{/user}"),
             ("branches_url", "/branches{/branch}"), ("tags_url", "/tags"),
             ("blobs_url", "/git/blobs{/sha}"), ("git_tags_url", "/git/tags{/sha}"),
             ("git_refs_url", "/git/refs{/sha}"), ("trees_url", "/git/trees{/sha}"),
             ("statuses_url", "/statuses/{sha}"), ("languages_url", "/languages"),
             ("stargazers_url", "/stargazers"), ("contributors_url", "/contributors"),
             ("subscribers_url", "/subscribers"), ("subscription_url", "/subscription"),
             ("commits_url", "/commits{/sha}"), ("git_commits_url", "/git/commits{/sha}"),
             ("comments_url", "/comments{/number}"),
             ("issue_comment_url", "/issues/comments{/number}"),
             ("contents_url", "/contents/{+path}"), ("compare_url", "/compare/{base}...{head}"),
             ("merges_url", "/merges"), ("archive_url", "/{archive_format}{/ref}"),
             ("downloads_url", "/downloads"), ("issues_url", "/issues{/number}"),
             ("pulls_url", "/pulls{/number}"), ("milestones_url", "/milestones{/number}"),
             ("notifications_url", "/notifications{?since,all,participating}"),
             ("labels_url", "/labels{/name}"), ("releases_url", "/releases{/id}"),
             ("deployments_url", "/deployments")]
REACTIONS = ["+1", "-1", "laugh", "hooray", "confused", "heart", "rocket", "eyes"]


class Urls:
    def __init__(self, api, web):
        self.api, self.web = api, web


def node_id(kind, ident):
    return base64.b64encode(f"0{len(kind)}:{kind}{ident}".encode()).decode()


def user(u, st, urls):
    base = f"{urls.api}/users/{u['login']}"
    out = {"login": u["login"], "id": u["id"], "node_id": node_id(u["type"], u["id"]),
           "avatar_url": f"{urls.web}/avatars/u/{u['id']}?v=4", "gravatar_id": "",
           "url": base, "html_url": f"{urls.web}/{u['login']}"}
    for key, suffix in USER_URLS:
        out[key] = base + suffix
    out.update({"type": u["type"], "site_admin": False})
    return out


def user_of(login, st, urls):
    return user(st.users[login], st, urls) if login else None


def user_full(u, st, urls, private=False):
    out = user(u, st, urls)
    out.update({"name": None, "company": None, "blog": "", "location": None, "email": None,
                "hireable": None, "bio": None, "twitter_username": None,
                "public_repos": sum(1 for r in st.repos.values() if r["owner"] == u["login"]),
                "public_gists": 0, "followers": 0, "following": 0,
                "created_at": iso(u["created_at"]), "updated_at": iso(u["created_at"])})
    if private:
        out.update({"private_gists": 0, "total_private_repos": 0, "owned_private_repos": 0,
                    "disk_usage": 0, "collaborators": 0, "two_factor_authentication": False,
                    "plan": {"name": "free", "space": 976562499, "collaborators": 0,
                             "private_repos": 10000}})
    return out


def repo(r, st, urls, viewer, full=True):
    base = f"{urls.api}/repos/{r['full_name']}"
    web = f"{urls.web}/{r['full_name']}"
    host = urls.web.split("://", 1)[1]
    out = {"id": r["id"], "node_id": node_id("Repository", r["id"]), "name": r["name"],
           "full_name": r["full_name"], "private": r["private"],
           "owner": user_of(r["owner"], st, urls), "html_url": web, "description": None,
           "fork": bool(r.get("parent")), "url": base}
    for key, suffix in REPO_URLS:
        out[key] = base + suffix
    opened = sum(1 for i in r["issues"].values() if i["state"] == "open")
    out.update({"created_at": iso(r["created_at"]), "updated_at": iso(r["created_at"]),
                "pushed_at": iso(r["created_at"]), "git_url": f"git://{host}/{r['full_name']}.git",
                "ssh_url": f"git@{host.split(':')[0]}:{r['full_name']}.git",
                "clone_url": web + ".git", "svn_url": web, "homepage": None, "size": 0,
                "stargazers_count": 0, "watchers_count": 0, "language": None,
                "has_issues": True, "has_projects": True, "has_downloads": True,
                "has_wiki": True, "has_pages": False, "has_discussions": False,
                "forks_count": 0, "mirror_url": None,
                "archived": False, "disabled": False, "open_issues_count": opened,
                "license": None, "allow_forking": True, "is_template": False,
                "web_commit_signoff_required": False, "topics": [],
                "visibility": "private" if r["private"] else "public", "forks": 0,
                "open_issues": opened, "watchers": 0, "default_branch": r["default_branch"]})
    out["permissions"] = permissions(r, st, viewer)
    if full:
        out.update({"temp_clone_token": "", "allow_squash_merge": True,
                    "allow_merge_commit": True, "allow_rebase_merge": True,
                    "allow_auto_merge": False, "delete_branch_on_merge": False,
                    "allow_update_branch": False, "use_squash_pr_title_as_default": False,
                    "network_count": 0, "subscribers_count": 0})
        if r.get("parent"):  # GitHub names a fork's parent and the network's source
            parent = st.repos[r["parent"]]
            out["parent"] = repo(parent, st, urls, viewer, full=False)
            while parent.get("parent"):
                parent = st.repos[parent["parent"]]
            out["source"] = repo(parent, st, urls, viewer, full=False)
    return out


def permissions(r, st, login):
    role = st.role(r, login)
    return {"admin": role == "admin", "maintain": role in ("admin", "maintain"),
            "push": st.can_write(r, login),
            "triage": role in ("admin", "maintain", "write", "triage"),
            "pull": st.can_read(r, login)}


def label(r, lab, urls):
    return {"id": lab["id"], "node_id": node_id("Label", lab["id"]),
            "url": f"{urls.api}/repos/{r['full_name']}/labels/{lab['name']}",
            "name": lab["name"], "color": lab["color"], "default": False,
            "description": lab["description"]}


def association(r, st, login):
    if login == r["owner"]:
        return "OWNER"
    return "COLLABORATOR" if st.role(r, login) else "NONE"


def reactions(base, counts):
    out = {"url": base + "/reactions", "total_count": sum(counts.values())}
    for k in REACTIONS:
        out[k] = counts.get(k, 0)
    return out


def comment_reactions(r, c):
    counts = {}
    for x in r["reactions"]:
        if x["comment"] == c["id"]:
            counts[x["content"]] = counts.get(x["content"], 0) + 1
    return counts


def issue(r, i, st, urls):
    base = f"{urls.api}/repos/{r['full_name']}/issues/{i['number']}"
    kind = "pull" if i["pull"] else "issues"
    assignees = [user_of(a, st, urls) for a in i["assignees"]]
    out = {"url": base, "repository_url": f"{urls.api}/repos/{r['full_name']}",
           "labels_url": base + "/labels{/name}", "comments_url": base + "/comments",
           "events_url": base + "/events",
           "html_url": f"{urls.web}/{r['full_name']}/{kind}/{i['number']}", "id": i["id"],
           "node_id": node_id("Issue", i["id"]), "number": i["number"], "title": i["title"],
           "user": user_of(i["user"], st, urls),
           "labels": [label(r, st.label(r, n), urls) for n in i["labels"]],
           "state": i["state"], "locked": i["locked"],
           "assignee": assignees[0] if assignees else None, "assignees": assignees,
           "milestone": None, "comments": len(st.comments_of(r, i)),
           "created_at": iso(i["created_at"]), "updated_at": iso(i["updated_at"]),
           "closed_at": iso(i["closed_at"]) if i["closed_at"] else None,
           "author_association": association(r, st, i["user"]), "active_lock_reason": None}
    if i["pull"]:
        pbase = f"{urls.web}/{r['full_name']}/pull/{i['number']}"
        out["draft"] = i["pull"]["draft"]
        out["pull_request"] = {"url": f"{urls.api}/repos/{r['full_name']}/pulls/{i['number']}",
                               "html_url": pbase, "diff_url": pbase + ".diff",
                               "patch_url": pbase + ".patch", "merged_at": None}
    out.update({"body": i["body"], "reactions": reactions(base, {}),
                "timeline_url": base + "/timeline", "performed_via_github_app": None,
                "state_reason": i["state_reason"]})
    return out


def issue_single(r, i, st, urls):
    out = issue(r, i, st, urls)
    out["closed_by"] = user_of(i["closed_by"], st, urls)
    return out


def comment(r, c, st, urls):
    base = f"{urls.api}/repos/{r['full_name']}/issues/comments/{c['id']}"
    i = r["issues"][c["issue"]]
    kind = "pull" if i["pull"] else "issues"
    return {"url": base,
            "html_url": f"{urls.web}/{r['full_name']}/{kind}/{c['issue']}#issuecomment-{c['id']}",
            "issue_url": f"{urls.api}/repos/{r['full_name']}/issues/{c['issue']}",
            "id": c["id"], "node_id": node_id("IssueComment", c["id"]),
            "user": user_of(c["user"], st, urls), "created_at": iso(c["created_at"]),
            "updated_at": iso(c["updated_at"]), "body": c["body"],
            "author_association": association(r, st, c["user"]),
            "reactions": reactions(base, comment_reactions(r, c)),
            "performed_via_github_app": None, "pin": None, "minimized": None}


def event(r, e, st, urls, with_issue=False):
    out = {"id": e["id"], "node_id": node_id("LabeledEvent", e["id"]),
           "url": f"{urls.api}/repos/{r['full_name']}/issues/events/{e['id']}",
           "actor": user_of(e["actor"], st, urls), "event": e["event"], "commit_id": None,
           "commit_url": None, "created_at": iso(e["created_at"]),
           "performed_via_github_app": None}
    if "label" in e:
        lab = st.label(r, e["label"])
        out["label"] = {"name": lab["name"], "color": lab["color"]}
    if "assignee" in e:
        out["assignee"] = user_of(e["assignee"], st, urls)
        out["assigner"] = user_of(e["actor"], st, urls)
    if "reviewer" in e:  # review_requested, review_request_removed
        out["review_requester"] = user_of(e["actor"], st, urls)
        out["requested_reviewer"] = user_of(e["reviewer"], st, urls)
    if with_issue:
        out["issue"] = issue(r, r["issues"][e["issue"]], st, urls)
    return out


def timeline(r, i, st, urls):
    """GET .../issues/N/timeline: the issue's events, its comments ("commented") and, on a pull
    request, its submitted reviews ("reviewed", the state in lower case as the timeline writes
    it), oldest first. Commits ("committed") and cross-references are not served."""
    items = [(e["created_at"], e["id"], event(r, e, st, urls))
             for e in r["events"] if e["issue"] == i["number"]]
    for c in r["comments"].values():
        if c["issue"] == i["number"]:
            items.append((c["created_at"], c["id"],
                          dict(comment(r, c, st, urls), event="commented",
                               actor=user_of(c["user"], st, urls))))
    if i["pull"]:
        for v in r.get("reviews", []):
            if v["pull"] == i["number"] and v["state"] != "PENDING":
                shaped = review(r, v, st, urls)
                shaped.update(event="reviewed", state=v["state"].lower())
                items.append((v["submitted_at"], v["id"], shaped))
    return [x for _, _, x in sorted(items, key=lambda x: (x[0], x[1]))]


def branch_protection(r, name):
    """The protection a test gave the branch (POST /_fake/.../branches/B/protection), or None."""
    return r.get("protection", {}).get(name)


def required_status_checks(r, name, p, urls):
    """GET .../branches/B/protection/required_status_checks (GitHub's status-check-policy)."""
    url = f"{urls.api}/repos/{r['full_name']}/branches/{name}/protection/required_status_checks"
    return {"url": url, "strict": p["strict"],
            "contexts": [c["context"] for c in p["checks"]], "contexts_url": url + "/contexts",
            "checks": [{"context": c["context"], "app_id": c["app_id"]} for c in p["checks"]]}


def reaction(x, st, urls):
    return {"id": x["id"], "node_id": node_id("Reaction", x["id"]),
            "user": user_of(x["user"], st, urls), "content": x["content"],
            "created_at": iso(x["created_at"])}


def permission(r, st, urls, login):
    role = st.role(r, login)
    if role is None:  # GitHub: anyone can read a public repository; a private one, no one
        role = None if r["private"] else "read"
    collaborator = dict(user_of(login, st, urls), permissions=permissions(r, st, login),
                        role_name=role or "none")
    return {"permission": PERMISSION_OF_ROLE.get(role, "none"), "role_name": role or "none",
            "user": collaborator}


def pull_end(r, st, urls, viewer, ref, owner):
    """A pull request's head or base: R is the repository the branch lives in (a fork's for a
    fork's head)."""
    return {"label": f"{owner}:{ref}", "ref": ref, "sha": st.ref_sha(r, ref),
            "user": user_of(owner, st, urls), "repo": repo(r, st, urls, viewer, full=False)}


def pull(r, i, st, urls, viewer, full=True):
    p = i["pull"]
    api = f"{urls.api}/repos/{r['full_name']}"
    web = f"{urls.web}/{r['full_name']}/pull/{i['number']}"
    assignees = [user_of(a, st, urls) for a in i["assignees"]]
    head_repo = st.repos[p.get("head_repo", r["full_name"])]
    head = pull_end(head_repo, st, urls, viewer, p["head"], p["head_owner"])
    out = {"url": f"{api}/pulls/{i['number']}", "id": p["id"],
           "node_id": node_id("PullRequest", p["id"]), "html_url": web,
           "diff_url": web + ".diff", "patch_url": web + ".patch",
           "issue_url": f"{api}/issues/{i['number']}",
           "commits_url": f"{api}/pulls/{i['number']}/commits",
           "review_comments_url": f"{api}/pulls/{i['number']}/comments",
           "review_comment_url": f"{api}/pulls/comments{{/number}}",
           "comments_url": f"{api}/issues/{i['number']}/comments",
           "statuses_url": f"{api}/statuses/{head['sha']}", "number": i["number"],
           "state": i["state"], "locked": i["locked"], "title": i["title"],
           "user": user_of(i["user"], st, urls), "body": i["body"],
           "labels": [label(r, st.label(r, n), urls) for n in i["labels"]], "milestone": None,
           "active_lock_reason": None, "created_at": iso(i["created_at"]),
           "updated_at": iso(i["updated_at"]),
           "closed_at": iso(i["closed_at"]) if i["closed_at"] else None, "merged_at": None,
           "merge_commit_sha": None, "assignee": assignees[0] if assignees else None,
           "assignees": assignees,
           "requested_reviewers": [user_of(u, st, urls) for u in p.get("requested", [])],
           "requested_teams": [],
           "head": head, "base": pull_end(r, st, urls, viewer, p["base"], r["owner"])}
    links = {"self": out["url"], "html": web, "issue": out["issue_url"],
             "comments": out["comments_url"], "review_comments": out["review_comments_url"],
             "review_comment": out["review_comment_url"], "commits": out["commits_url"],
             "statuses": out["statuses_url"]}
    out["_links"] = {k: {"href": v} for k, v in links.items()}
    out.update({"author_association": association(r, st, i["user"]), "auto_merge": None,
                "draft": p["draft"]})
    if full:
        out.update({"merged": False, "mergeable": None, "rebaseable": None,
                    "mergeable_state": "unknown", "merged_by": None,
                    "comments": len(st.comments_of(r, i)),
                    "review_comments": sum(1 for c in r.get("review_comments", {}).values()
                                           if c["pull"] == i["number"]),
                    "maintainer_can_modify": False, "commits": 1, "additions": 0,
                    "deletions": 0, "changed_files": 0})
    return out


def review(r, v, st, urls):
    """A pull request review (states APPROVED, CHANGES_REQUESTED, COMMENTED, PENDING)."""
    api = f"{urls.api}/repos/{r['full_name']}/pulls/{v['pull']}"
    web = f"{urls.web}/{r['full_name']}/pull/{v['pull']}#pullrequestreview-{v['id']}"
    out = {"id": v["id"], "node_id": node_id("PullRequestReview", v["id"]),
           "user": user_of(v["user"], st, urls), "body": v["body"], "state": v["state"],
           "html_url": web, "pull_request_url": api,
           "author_association": association(r, st, v["user"]),
           "_links": {"html": {"href": web}, "pull_request": {"href": api}}}
    if v["submitted_at"] is not None:  # a pending review has no submitted_at
        out["submitted_at"] = iso(v["submitted_at"])
    out["commit_id"] = v["commit_id"]
    return out


def pull_file(r, f, head, urls):
    """One file of GET .../pulls/N/files, GitHub's diff-entry."""
    from urllib.parse import quote
    name = quote(f["filename"], safe="/")
    out = {"sha": f["sha"], "filename": f["filename"], "status": f["status"],
           "additions": f["additions"], "deletions": f["deletions"], "changes": f["changes"],
           "blob_url": f"{urls.web}/{r['full_name']}/blob/{head}/{name}",
           "raw_url": f"{urls.web}/{r['full_name']}/raw/{head}/{name}",
           "contents_url": f"{urls.api}/repos/{r['full_name']}/contents/{name}?ref={head}",
           "patch": f["patch"]}
    if "previous_filename" in f:
        out["previous_filename"] = f["previous_filename"]
    return out


def review_comment(r, c, st, urls):
    """A review comment: anchored to a line of the diff, in a thread when in_reply_to_id."""
    api = f"{urls.api}/repos/{r['full_name']}"
    url = f"{api}/pulls/comments/{c['id']}"
    web = f"{urls.web}/{r['full_name']}/pull/{c['pull']}#discussion_r{c['id']}"
    pull_url = f"{api}/pulls/{c['pull']}"
    out = {"url": url, "pull_request_review_id": c["review"], "id": c["id"],
           "node_id": node_id("PullRequestReviewComment", c["id"]),
           "diff_hunk": c["diff_hunk"], "path": c["path"], "commit_id": c["commit_id"],
           "original_commit_id": c["original_commit_id"],
           "user": user_of(c["user"], st, urls), "body": c["body"],
           "created_at": iso(c["created_at"]), "updated_at": iso(c["updated_at"]),
           "html_url": web, "pull_request_url": pull_url,
           "author_association": association(r, st, c["user"]),
           "_links": {"self": {"href": url}, "html": {"href": web},
                      "pull_request": {"href": pull_url}},
           "reactions": reactions(url, {}), "start_line": None, "original_start_line": None,
           "start_side": None, "line": c["line"], "original_line": c["line"], "side": "RIGHT",
           "original_position": c["position"], "position": c["position"],
           "subject_type": "line"}
    if c["in_reply_to"] is not None:  # GitHub leaves the key out of a thread's first comment
        out["in_reply_to_id"] = c["in_reply_to"]
    return out


def git_ref(r, branch, sha, urls):
    api = f"{urls.api}/repos/{r['full_name']}/git"
    return {"ref": "refs/heads/" + branch, "node_id": node_id("Ref", branch),
            "url": f"{api}/refs/heads/{branch}",
            "object": {"sha": sha, "type": "commit", "url": f"{api}/commits/{sha}"}}


def branch(r, name, sha, st, urls):
    api = f"{urls.api}/repos/{r['full_name']}"
    web = f"{urls.web}/{r['full_name']}"
    info = st.commit_info(r, sha)
    rule = branch_protection(r, name)  # GitHub shows it to whoever may read the repository
    checks = rule["checks"] if rule else []

    def person(p):
        return {"name": p[0], "email": p[1], "date": p[2]}

    commit = {"sha": sha, "node_id": node_id("Commit", sha),
              "commit": {"author": person(info["author"]),
                         "committer": person(info["committer"]), "message": info["message"],
                         "tree": {"sha": info["tree"], "url": f"{api}/git/trees/{info['tree']}"},
                         "url": f"{api}/git/commits/{sha}", "comment_count": 0,
                         "verification": {"verified": False, "reason": "unsigned",
                                          "signature": None, "payload": None,
                                          "verified_at": None}},
              "url": f"{api}/commits/{sha}", "html_url": f"{web}/commit/{sha}",
              "comments_url": f"{api}/commits/{sha}/comments", "author": None,
              "committer": None,
              "parents": [{"sha": p, "url": f"{api}/commits/{p}",
                           "html_url": f"{web}/commit/{p}"} for p in info["parents"]]}
    return {"name": name, "commit": commit,
            "_links": {"self": f"{api}/branches/{name}", "html": f"{web}/tree/{name}"},
            "protected": rule is not None,
            "protection": {"enabled": rule is not None,
                           "required_status_checks": {
                               "enforcement_level": rule["enforcement_level"] if rule else "off",
                               "contexts": [c["context"] for c in checks],
                               "checks": [{"context": c["context"], "app_id": c["app_id"]}
                                          for c in checks]}},
            "protection_url": f"{api}/branches/{name}/protection"}


def run(r, x, st, urls, viewer):
    api = f"{urls.api}/repos/{r['full_name']}/actions/runs/{x['id']}"
    sha = st.ref_sha(r, x["ref"])
    info = st.commit_info(r, sha)
    where = repo(r, st, urls, viewer, full=False)
    out = {"id": x["id"], "name": x["workflow"], "node_id": node_id("WorkflowRun", x["id"]),
           "head_branch": x["ref"], "head_sha": sha, "path": f".github/workflows/{x['workflow']}",
           "display_title": info["message"].split("\n")[0], "run_number": x["number"],
           "run_attempt": 1, "event": "workflow_dispatch",
           "status": x.get("status", "queued"), "conclusion": x.get("conclusion"), "workflow_id": x["number"], "url": api,
           "html_url": f"{urls.web}/{r['full_name']}/actions/runs/{x['id']}",
           "pull_requests": [], "created_at": iso(x["created_at"]),
           "updated_at": iso(x.get("updated_at", x["created_at"])), "actor": user_of(x["actor"], st, urls),
           "triggering_actor": user_of(x["actor"], st, urls)}
    for key in ("jobs", "logs", "check_suite", "artifacts", "cancel", "rerun"):
        out[key + "_url"] = f"{api}/{key.replace('_', '-')}"
    out.update({"workflow_url": f"{urls.api}/repos/{r['full_name']}/actions/workflows/"
                                f"{x['workflow']}",
                "head_commit": {"id": sha, "tree_id": info["tree"], "message": info["message"],
                                "timestamp": info["committer"][2],
                                "author": {"name": info["author"][0],
                                           "email": info["author"][1]},
                                "committer": {"name": info["committer"][0],
                                              "email": info["committer"][1]}},
                "repository": where, "head_repository": where})
    return out
