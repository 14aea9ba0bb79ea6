#include "forge/gitlab/model.h"

#include <fmt/format.h>

#include <utility>

#include "forge/json_fields.h"

namespace aw {

using nlohmann::json;

using namespace forge_field;

namespace {

// GitLab names the users of project and group access tokens project_<id>_bot_<hex> and
// group_<id>_bot_<hex> (older ones: project_<id>_bot, project_<id>_bot<n>).
bool token_bot_name(const std::string& u) {
  for (std::string_view prefix : {"project_", "group_"}) {
    if (!u.starts_with(prefix)) continue;
    size_t i = prefix.size(), digits = 0;
    while (i < u.size() && std::isdigit(static_cast<unsigned char>(u[i]))) ++i, ++digits;
    if (digits > 0 && std::string_view(u).substr(i).starts_with("_bot")) return true;
  }
  return false;
}

}  // namespace

Result<GitLabUser> gitlab_user_from_json(const json& j, const std::string& what) {
  AW_CHECK(object(j, what));
  GitLabUser u;
  AW_TRY(u.user.login, str(j, "username", what, true));
  if (u.user.login.empty()) return fail("{}: an empty username", what);
  AW_TRY(u.id, integer(j, "id", what));
  u.user.bot = flag(j, "bot") || token_bot_name(u.user.login);
  return u;
}

Result<ForgeIssue> gitlab_issue_from_json(const json& j, const std::string& what) {
  AW_CHECK(object(j, what));
  ForgeIssue i;
  AW_TRY(i.number, integer(j, "iid", what));
  AW_CHECK(strs(j, what,
                {{"title", &i.title},
                 {"description", &i.body},
                 {"state", &i.state},
                 {"web_url", &i.html_url}}));
  auto a = j.find("author");
  if (a == j.end() || a->is_null()) {
    i.author = ForgeUser{"ghost", false};  // GitLab's "Ghost User" of a deleted account
  } else {
    AW_TRY(GitLabUser u, gitlab_user_from_json(*a, what + " .author"));
    i.author = u.user;
  }
  if (auto l = j.find("labels"); l != j.end() && l->is_array())
    for (const json& x : *l)
      if (x.is_string()) i.labels.push_back(x.get<std::string>());
  return i;
}

namespace {

Result<GitLabNote> note_from_json(const json& n, const std::string& at) {
  GitLabNote note;
  AW_TRY(note.comment.id, integer(n, "id", at));
  ForgeComment& c = note.comment;
  AW_CHECK(strs(n, at,
                {{"body", &c.body}, {"created_at", &c.created_at}, {"updated_at", &c.updated_at}}));
  AW_TRY(GitLabUser u, gitlab_user_from_json(n.value("author", json()), at + " .author"));
  note.comment.author = u.user;
  note.author_id = u.id;
  note.system = flag(n, "system");
  return note;
}

}  // namespace

Result<std::vector<GitLabNote>> gitlab_notes_from_json(const json& j, const std::string& what) {
  return list_of<GitLabNote>(j, what, note_from_json);
}

Result<ForgeRepo> gitlab_project_from_json(const json& j, const std::string& what) {
  AW_CHECK(object(j, what));
  ForgeRepo r;
  AW_TRY(r.full_name, str(j, "path_with_namespace", what, true));
  AW_TRY(r.clone_url, str(j, "http_url_to_repo", what, true));
  std::string visibility;
  AW_CHECK(strs(j, what,
                {{"default_branch", &r.default_branch},
                 {"web_url", &r.html_url},
                 {"visibility", &visibility}}));
  r.private_repo = visibility != "public";
  // Optional: only the read-only forge's numeric paths (/projects/ID/...) need it.
  if (auto id = j.find("id"); id != j.end() && id->is_number_integer() && id->get<int64_t>() > 0)
    r.id = id->get<int64_t>();
  if (r.default_branch.empty()) r.default_branch = "main";  // an empty project has none yet
  return r;
}

Result<ForgePull> gitlab_mr_from_json(const json& j, const std::string& what) {
  AW_CHECK(object(j, what));
  ForgePull p;
  AW_TRY(p.number, integer(j, "iid", what));
  AW_TRY(p.html_url, str(j, "web_url", what, true));
  AW_TRY(p.head_ref, str(j, "source_branch", what, true));
  AW_CHECK(strs(j, what, {{"sha", &p.head_sha}, {"description", &p.body}}));
  p.draft = flag(j, "draft") || flag(j, "work_in_progress");
  AW_CHECK(strs(j, what, {{"title", &p.title}, {"target_branch", &p.base_ref}}));
  for (auto [key, out] : {std::pair{"source_project_id", &p.head_repo},
                          std::pair{"target_project_id", &p.base_repo}}) {
    auto id = j.find(key);
    if (id != j.end() && id->is_number_integer()) *out = fmt::format("#{}", id->get<int64_t>());
  }
  if (auto a = j.find("author"); a != j.end() && !a->is_null()) {
    AW_TRY(GitLabUser u, gitlab_user_from_json(*a, what + " .author"));
    p.author = u.user;
  }
  return p;
}

namespace {

Result<GitLabDiscussion> discussion_from_json(const json& d, const std::string& at) {
  GitLabDiscussion disc;
  AW_TRY(disc.id, str(d, "id", at, true));
  if (disc.id.empty()) return fail("{}: an empty discussion id", at);
  disc.individual = flag(d, "individual_note");
  json notes = d.value("notes", json::array());
  AW_TRY(std::vector<GitLabNote> parsed, gitlab_notes_from_json(notes, at + " .notes"));
  for (size_t n = 0; n < parsed.size(); ++n) {
    const json& raw = notes[n];
    GitLabDiscussionNote dn;
    dn.note = std::move(parsed[n]);
    if (auto t = raw.find("type"); t != raw.end() && t->is_string()) dn.type = *t;
    dn.resolvable = flag(raw, "resolvable");
    dn.resolved = flag(raw, "resolved");
    if (auto pos = raw.find("position"); pos != raw.end() && pos->is_object()) {
      // The new side's line; a removed line has only the old side's.
      for (auto [path_key, line_key] :
           {std::pair{"new_path", "new_line"}, std::pair{"old_path", "old_line"}}) {
        auto line = pos->find(line_key);
        if (line == pos->end() || !line->is_number_integer()) continue;
        if (auto path = pos->find(path_key); path != pos->end() && path->is_string())
          dn.path = *path;
        dn.line = line->get<int64_t>();
        break;
      }
      if (dn.path.empty())
        if (auto path = pos->find("new_path"); path != pos->end() && path->is_string())
          dn.path = *path;
    }
    disc.notes.push_back(std::move(dn));
  }
  return disc;
}

}  // namespace

Result<std::vector<GitLabDiscussion>> gitlab_discussions_from_json(const json& j,
                                                                   const std::string& what) {
  return list_of<GitLabDiscussion>(j, what, discussion_from_json);
}

namespace {

Result<GitLabReviewer> reviewer_from_json(const json& r, const std::string& at) {
  AW_CHECK(object(r, at));
  GitLabReviewer out;
  AW_TRY(out.user, gitlab_user_from_json(r.value("user", json()), at + " .user"));
  AW_CHECK(strs(r, at, {{"state", &out.state}, {"created_at", &out.created_at}}));
  return out;
}

}  // namespace

Result<std::vector<GitLabReviewer>> gitlab_reviewers_from_json(const json& j,
                                                               const std::string& what) {
  return list_of<GitLabReviewer>(j, what, reviewer_from_json);
}

}  // namespace aw
