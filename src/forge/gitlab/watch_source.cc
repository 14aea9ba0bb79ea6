#include "forge/gitlab/watch_source.h"

#include <fmt/format.h>

#include <cctype>

#include "forge/gitlab/issue.h"
#include "forge/gitlab/model.h"

namespace aw {

using nlohmann::json;

namespace {

// A GitLab user as GitHub's {login, type}: the bot rule is GitLab's (gitlab_user_from_json).
json github_user(const GitLabUser& u) {
  return {{"login", u.user.login}, {"type", u.user.bot ? "Bot" : "User"}};
}

std::string string_or(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

// An encoded query value: the ISO time's ':' and '+' must not reach the server raw.
std::string query_value(const std::string& v) {
  std::string out;
  for (unsigned char c : v) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~')
      out += static_cast<char>(c);
    else
      out += fmt::format("%{:02X}", c);
  }
  return out;
}

}  // namespace

json gitlab_issue_as_listed(const json& issue) {
  if (!issue.is_object()) return issue;
  json out = {{"updated_at", string_or(issue, "updated_at")},
              {"state", string_or(issue, "state") == "opened" ? "open" : string_or(issue, "state")},
              {"labels", json::array()},
              {"assignees", json::array()}};
  if (auto n = issue.find("iid"); n != issue.end()) out["number"] = *n;
  if (auto c = issue.find("user_notes_count"); c != issue.end()) out["comments"] = *c;
  if (auto l = issue.find("labels"); l != issue.end() && l->is_array())
    for (const json& name : *l) out["labels"].push_back({{"name", name}});
  if (auto a = issue.find("assignees"); a != issue.end() && a->is_array())
    for (const json& u : *a)
      if (u.is_object()) out["assignees"].push_back({{"login", string_or(u, "username")}});
  return out;
}

json gitlab_pipeline_as_listed(const json& pipeline) {
  if (!pipeline.is_object()) return pipeline;
  json out = {{"updated_at", string_or(pipeline, "updated_at")},
              {"state", string_or(pipeline, "status")},
              {"ref", string_or(pipeline, "ref")},
              {"sha", string_or(pipeline, "sha")}};
  if (auto id = pipeline.find("id"); id != pipeline.end()) out["number"] = *id;
  return out;
}

std::vector<std::string> gitlab_assigned_in(const std::string& note) {
  const std::string lead = "assigned to ";
  std::vector<std::string> out;
  if (note.compare(0, lead.size(), lead) != 0) return out;
  std::string rest = note.substr(lead.size());
  // "assigned to @a and unassigned @b": only what comes before the unassignment.
  if (size_t un = rest.find(" and unassigned "); un != std::string::npos) rest.resize(un);
  size_t at = 0;
  while ((at = rest.find('@', at)) != std::string::npos) {
    size_t end = ++at;
    while (end < rest.size() && (std::isalnum(static_cast<unsigned char>(rest[end])) ||
                                 rest[end] == '_' || rest[end] == '-' || rest[end] == '.'))
      ++end;
    // A name does not end in '.': GitLab's sentence may.
    while (end > at && rest[end - 1] == '.') --end;
    if (end > at) out.push_back(rest.substr(at, end - at));
    at = end;
  }
  return out;
}

GitLabWatchReader::GitLabWatchReader(GitLabSession& s)
    : s_(s), ids_(std::make_shared<std::map<std::string, int64_t>>()) {}

Result<json> GitLabWatchReader::changed_issues(const std::string& updated_after) {
  std::string target =
      s_.project_target() + "/issues?state=opened&order_by=updated_at&sort=asc&per_page=100";
  if (!updated_after.empty()) target += "&updated_after=" + query_value(updated_after);
  // Keyset pages where GitLab has them for issues (by updated_at: an issue updated while the list
  // is read moves, and offset pages would then skip or repeat one); offset pages elsewhere.
  AW_TRY(json all, s_.gl.get_all_keyset(target));
  if (!all.is_array())
    return fail("GitLab GET {}: expected a list, got {}", target, all.type_name());
  for (const json& i : all)
    if (i.is_object() && i.contains("author") && i["author"].is_object())
      if (auto u = gitlab_user_from_json(i["author"], "issue author"))
        (*ids_)[u->user.login] = u->id;
  return all;
}

Result<json> GitLabWatchReader::changed_pipelines(const std::string& updated_after) {
  std::string target = s_.project_target() +
                       "/pipelines?order_by=updated_at&sort=asc&per_page=100&updated_after=" +
                       query_value(updated_after);
  AW_TRY(json all, s_.gl.get_all(target));
  if (!all.is_array())
    return fail("GitLab GET {}: expected a list, got {}", target, all.type_name());
  return all;
}

void GitLabWatchReader::remember_mrs(const json& mrs, bool whole) {
  mr_branches_.clear();
  mrs_whole_ = whole;
  if (!mrs.is_array()) {
    mrs_whole_ = false;
    return;
  }
  for (const json& m : mrs) {
    if (!m.is_object()) continue;
    auto iid = m.find("iid");
    std::string branch = string_or(m, "source_branch");
    if (iid == m.end() || !iid->is_number_integer() || branch.empty()) {
      mrs_whole_ = false;  // one it cannot match: a pipeline on any branch may be its
      continue;
    }
    mr_branches_[iid->get<int64_t>()] = branch;
  }
}

std::optional<std::vector<int64_t>> GitLabWatchReader::pipeline_mrs(const json& pipeline) const {
  std::string ref = pipeline.is_object() ? string_or(pipeline, "ref") : "";
  // A merge request pipeline (also a merged results or merge train one) names its merge request.
  const std::string lead = "refs/merge-requests/";
  if (ref.compare(0, lead.size(), lead) == 0) {
    int64_t iid = 0;
    size_t at = lead.size();
    // At most 15 digits: a ref is whoever pushed it's text, and must not overflow.
    for (; at < ref.size() && at - lead.size() < 15 &&
           std::isdigit(static_cast<unsigned char>(ref[at]));
         ++at)
      iid = iid * 10 + (ref[at] - '0');
    if (at > lead.size() && at < ref.size() && ref[at] == '/' && iid > 0)
      return std::vector<int64_t>{iid};
  }
  std::vector<int64_t> out;
  for (const auto& [iid, branch] : mr_branches_)
    if (branch == ref) out.push_back(iid);
  if (out.empty() && !mrs_whole_) return std::nullopt;
  return out;
}

Result<json> GitLabWatchReader::label_events(int64_t iid) {
  std::string target =
      fmt::format("{}/issues/{}/resource_label_events?per_page=100", s_.project_target(), iid);
  AW_TRY(json all, s_.gl.get_all(target));
  json out = json::array();
  if (!all.is_array())
    return fail("GitLab GET {}: expected a list, got {}", target, all.type_name());
  for (const json& e : all) {
    if (!e.is_object()) continue;
    std::string action = string_or(e, "action");
    if (action != "add" && action != "remove") continue;
    json ev = {{"event", action == "add" ? "labeled" : "unlabeled"},
               {"created_at", string_or(e, "created_at")}};
    if (auto id = e.find("id"); id != e.end() && id->is_number_integer()) ev["id"] = *id;
    if (auto l = e.find("label"); l != e.end() && l->is_object())
      ev["label"] = {{"name", string_or(*l, "name")}};
    // A deleted user's event has no user: no actor, so scan_triggers admits nobody for it.
    if (auto u = e.find("user"); u != e.end() && u->is_object())
      if (auto who = gitlab_user_from_json(*u, target + " .user")) {
        ev["actor"] = github_user(*who);
        (*ids_)[who->user.login] = who->id;
      }
    out.push_back(std::move(ev));
  }
  return out;
}

Result<json> GitLabWatchReader::comments(int64_t iid) {
  AW_TRY(Notes n, notes(iid));
  return std::move(n.comments);
}

Result<GitLabWatchReader::Notes> GitLabWatchReader::notes(int64_t iid) {
  std::string base = fmt::format("{}/issues/{}", s_.project_target(), iid);
  std::string target = base + "/notes?sort=asc&order_by=created_at&per_page=100";
  AW_TRY(json all, s_.gl.get_all(target));
  AW_TRY(auto notes, gitlab_notes_from_json(all, "GET " + base + "/notes"));
  Notes out{json::array(), json::array()};
  for (const GitLabNote& n : notes) {
    (*ids_)[n.comment.author.login] = n.author_id;
    json user = {{"login", n.comment.author.login},
                 {"type", n.comment.author.bot ? "Bot" : "User"}};
    if (n.system) {  // GitLab's record of a change: nobody's words, never a command
      for (const std::string& login : gitlab_assigned_in(n.comment.body))
        out.assignments.push_back({{"id", n.comment.id},
                                   {"event", "assigned"},
                                   {"assignee", {{"login", login}}},
                                   {"actor", user},
                                   {"created_at", n.comment.created_at}});
      continue;
    }
    out.comments.push_back({{"id", n.comment.id},
                            {"body", n.comment.body},
                            {"user", user},
                            {"created_at", n.comment.created_at},
                            {"updated_at", n.comment.updated_at}});
  }
  return out;
}

RoleLookup GitLabWatchReader::roles() {
  GitLabSession* s = &s_;
  auto ids = ids_;
  return [s, ids](const std::string& login) -> Result<std::string> {
    auto it = ids->find(login);
    if (it == ids->end()) return std::string("none");
    return gitlab_role(*s, it->second);
  };
}

Result<int64_t> GitLabWatchReader::post_note(int64_t iid, const std::string& body) {
  std::string target = fmt::format("{}/issues/{}/notes", s_.project_target(), iid);
  AW_TRY(json j, s_.gl.post(target, {{"body", body}}));
  auto id = j.is_object() ? j.find("id") : j.end();
  if (!j.is_object() || id == j.end() || !id->is_number_integer())
    return fail("GitLab POST {}: the answer has no whole number 'id'", target);
  return id->get<int64_t>();
}

Status GitLabWatchReader::edit_note(int64_t iid, int64_t note_id, const std::string& body) {
  std::string target = fmt::format("{}/issues/{}/notes/{}", s_.project_target(), iid, note_id);
  AW_TRY(json j, s_.gl.put(target, {{"body", body}}));
  (void)j;
  return {};
}

Status GitLabWatchReader::delete_note(int64_t iid, int64_t note_id) {
  std::string target = fmt::format("{}/issues/{}/notes/{}", s_.project_target(), iid, note_id);
  AW_TRY(ApiReply r, s_.gl.call("DELETE", target));
  if (r.status == 200 || r.status == 204 || r.status == 404) return {};
  return fail("{}", s_.gl.describe("DELETE", target, r));
}

Status GitLabWatchReader::change_labels(int64_t iid, const std::vector<std::string>& add,
                                        const std::vector<std::string>& remove) {
  auto joined = [](const std::vector<std::string>& v) {
    std::string out;
    for (const auto& l : v) out += (out.empty() ? "" : ",") + l;
    return out;
  };
  json body = json::object();
  if (!add.empty()) body["add_labels"] = joined(add);
  if (!remove.empty()) body["remove_labels"] = joined(remove);
  if (body.empty()) return {};
  std::string target = fmt::format("{}/issues/{}", s_.project_target(), iid);
  AW_TRY(json j, s_.gl.put(target, body));
  (void)j;
  return {};
}

}  // namespace aw
