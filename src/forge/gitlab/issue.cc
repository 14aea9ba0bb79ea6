#include "forge/gitlab/issue.h"

#include <fmt/format.h>

#include <map>

#include "forge/task.h"

namespace aw {

const char kDefaultGitlabIssueTask[] =
    "Resolve the GitLab issue quoted below in this repository. Make the change in the working "
    "tree and keep it focused on the issue. If you want a merge request title and description, "
    "or to comment on the issue, write requests to $AWAYWORK_OUTPUTS/requests.jsonl.";

std::string gitlab_role_of_level(int64_t level) {
  if (level >= 50) return "admin";     // Owner
  if (level >= 40) return "maintain";  // Maintainer
  if (level >= 30) return "write";     // Developer
  if (level >= 20) return "triage";    // Reporter
  if (level >= 10) return "read";      // Guest
  return "none";                       // Minimal access, or not a member
}

Result<std::string> gitlab_role(GitLabSession& s, int64_t user_id) {
  std::string target = fmt::format("{}/members/all/{}", s.project_target(), user_id);
  AW_TRY(ApiReply r, s.gl.call("GET", target));
  if (r.status == 404) return std::string("none");
  if (r.status != 200) return fail("{}", s.gl.describe("GET", target, r));
  auto level = r.body.is_object() ? r.body.find("access_level") : r.body.end();
  if (!r.body.is_object() || level == r.body.end() || !level->is_number_integer())
    return fail("GET {}: the answer has no whole number 'access_level'", target);
  return gitlab_role_of_level(level->get<int64_t>());
}

RoleLookup gitlab_roles(GitLabSession& s, std::map<std::string, int64_t> ids) {
  return [&s, ids = std::move(ids)](const std::string& login) -> Result<std::string> {
    auto it = ids.find(login);
    if (it == ids.end()) return std::string("none");
    return gitlab_role(s, it->second);
  };
}

Result<IssueWork> gitlab_issue_work(GitLabSession& s, const RepoConfig& repo, int64_t iid,
                                    int64_t now_seconds) {
  std::string base = fmt::format("{}/issues/{}", s.project_target(), iid);
  AW_TRY(nlohmann::json ij, s.gl.get(base));
  IssueWork w;
  AW_TRY(w.issue, gitlab_issue_from_json(ij, "GET " + base));
  // Oldest first, as the task quotes them.
  std::string notes_target = base + "/notes?sort=asc&order_by=created_at&per_page=100";
  AW_TRY(nlohmann::json nj, s.gl.get_all(notes_target));
  AW_TRY(auto notes, gitlab_notes_from_json(nj, "GET " + base + "/notes"));

  // The members API is keyed by id; the admission by login: the ids the issue's text carries.
  std::map<std::string, int64_t> ids;
  if (auto a = ij.find("author"); a != ij.end() && a->is_object())
    if (auto u = gitlab_user_from_json(*a, "author")) ids[u->user.login] = u->id;
  for (const GitLabNote& n : notes) ids[n.comment.author.login] = n.author_id;
  Admission adm(repo.forge.trust, repo.forge.stop_after, s.self.user.login,
                gitlab_roles(s, std::move(ids)), now_seconds);
  w.author = adm.check(w.issue.author);
  if (!w.author.admitted && repo.forge.stop_after > 0 && now_seconds > repo.forge.stop_after)
    return fail("repo {} stopped admitting on its stop_after date; no unit is started", repo.name);
  IssueTask t;
  t.repo_task = repo.forge.task.empty() ? kDefaultGitlabIssueTask : repo.forge.task;
  t.repo = s.project;
  t.issue = w.issue;
  t.author_trust = (w.author.admitted ? "admitted: " : "") + w.author.reason;
  std::vector<ForgeComment> comments;
  for (const GitLabNote& n : notes)
    if (!n.system) comments.push_back(n.comment);  // GitLab's own record of changes: nobody's words
  finish_issue_work(w, t, comments, adm, s.self.user.login);
  return w;
}

}  // namespace aw
