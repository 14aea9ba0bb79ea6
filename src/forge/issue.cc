#include "forge/issue.h"

#include <fmt/format.h>

namespace aw {

Result<IssueRef> parse_issue_ref(const std::string& text) {
  size_t hash = text.rfind('#');
  std::string num = hash == std::string::npos ? "" : text.substr(hash + 1);
  bool digits =
      !num.empty() && num.size() <= 12 && num.find_first_not_of("0123456789") == std::string::npos;
  if (hash == 0 || !digits || num[0] == '0')
    return fail("--issue '{}': write NAME#N (a repos: name) or OWNER/REPO#N, e.g. web#42", text);
  return IssueRef{text.substr(0, hash), std::stoll(num)};
}

Result<IssueWork> issue_work(ForgeSession& s, const RepoConfig& repo, int64_t number,
                             int64_t now_seconds) {
  std::string base = fmt::format("/repos/{}/issues/{}", s.owner_repo, number);
  AW_TRY(nlohmann::json ij, s.gh.get(base));
  IssueWork w;
  AW_TRY(w.issue, issue_from_json(ij, "GET " + base));
  if (w.issue.is_pull_request)
    return fail("{}#{} is a pull request, not an issue", s.owner_repo, number);
  AW_TRY(nlohmann::json cj, s.gh.get_all(base + "/comments?per_page=100"));
  AW_TRY(auto comments, comments_from_json(cj, "GET " + base + "/comments"));

  Admission adm(repo.forge.trust, repo.forge.stop_after, s.self_login,
                github_roles(s.gh, s.owner_repo), now_seconds);
  w.author = adm.check(w.issue.author);
  if (!w.author.admitted && repo.forge.stop_after > 0 && now_seconds > repo.forge.stop_after)
    return fail("repo {} stopped admitting on its stop_after date; no unit is started", repo.name);
  IssueTask t;
  t.repo_task = repo.forge.task;
  t.repo = s.owner_repo;
  t.issue = w.issue;
  t.author_trust = (w.author.admitted ? "admitted: " : "") + w.author.reason;
  finish_issue_work(w, t, comments, adm, s.self_login);
  return w;
}

void finish_issue_work(IssueWork& w, IssueTask& t, const std::vector<ForgeComment>& comments,
                       Admission& adm, const std::string& self_login) {
  for (const ForgeComment& c : comments) {
    // awaywork's own comments (progress, results) are not the issue's text either.
    if (adm.check(c.author).admitted)
      t.comments.push_back(c);
    else if (c.author.login != self_login)
      ++t.left_out;
  }
  w.admitted_comments = static_cast<int>(t.comments.size());
  w.left_out = t.left_out;
  w.prompt = build_issue_task(t);
}

}  // namespace aw
