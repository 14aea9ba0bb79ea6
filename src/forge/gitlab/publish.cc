#include "forge/gitlab/publish.h"

#include <fmt/format.h>

#include <set>

#include "check/sanitize.h"
#include "forge/gitlab/text.h"
#include "forge/marker.h"

namespace aw {

using nlohmann::json;

namespace {

// GitLab's limit on a note or a description is 1,000,000 characters; awaywork keeps GitHub's
// (its posts are read by people).
constexpr size_t kTextRoom = kForgeBodyMaxChars - 1024;

std::vector<std::string> link_hosts(const GitLabSession& s) {
  std::string host = s.forge.api_url.substr(s.forge.api_url.find("://") + 3);
  host = host.substr(0, host.find('/'));
  host = host.substr(0, host.find(':'));
  return {host, "gitlab.com", "*.gitlab.com"};
}

}  // namespace

std::string gitlab_post_text(const GitLabSession& s, std::string_view text, size_t room) {
  SanitizeOptions o;
  o.allowed_domains = link_hosts(s);
  o.max_chars = room;
  return gitlab_inert(sanitize_text(text, o));
}

namespace {

struct GitLabRun {
  GitLabSession& s;
  const ForgePublishInput& in;
  ForgePublished out;
  std::string sha;

  std::string issue_target() const {
    return fmt::format("{}/issues/{}", s.project_target(), in.issue);
  }

  std::string finish_hint() const {
    return fmt::format(
        "`awaywork apply {}` finishes it (it finds by their markers what was already posted)",
        in.unit.unit_id);
  }

  // Text (anyone's: sanitized), awaywork's tail (its footer, whose `Closes #N` the owner opted
  // into, so not sanitized), the marker: every body posted goes through here, and all of it is
  // made inert for GitLab (quick actions, references).
  std::string marked(const std::string& text, const std::string& tail,
                     const std::string& item) const {
    SanitizeOptions o;
    o.allowed_domains = link_hosts(s);
    o.max_chars = kTextRoom;
    return with_marker(gitlab_inert(sanitize_text(text, o) + tail),
                       item_marker(in.unit.unit_id, item, sha));
  }

  Result<json> write(const std::string& method, const std::string& target, const json& body) {
    auto r = s.gl.call(method, target, &body);
    if (!r) return fail("{}; try again later: {}", r.error().message, finish_hint());
    if (r->status >= 200 && r->status <= 299) return std::move(r->body);
    return fail("{}", s.gl.describe(method, target, *r, finish_hint()));
  }

  // Only what awaywork's own user posted counts: anyone may write a marker into a note.
  bool any_marked(const std::vector<GitLabNote>& notes, const std::string& item) const {
    for (const GitLabNote& n : notes)
      if (!n.system && n.comment.author.login == s.self.user.login &&
          has_marker(n.comment.body, in.unit.unit_id, item))
        return true;
    return false;
  }

  Status push_branch() {
    ApplyTarget target = forge_git_target(s.forge, s.repo.clone_url, s.token);
    target.username = "oauth2";  // GitLab's user for a token over HTTPS
    target.read_ref = gitlab_read_ref(s);  // the API, not two git ls-remote round trips
    PublishRequest req = forge_publish_request(in, std::move(target), s.background);
    AW_TRY(out.branch,
           with_context(publish(req), fmt::format("pushing the branch to {}", s.project)));
    sha = out.branch.commit;
    return {};
  }

  Result<std::optional<ForgePull>> existing_mr() {
    std::string target = fmt::format("{}/merge_requests?state=all&source_branch={}&per_page=100",
                                     s.project_target(), gitlab_project_id(out.branch.branch));
    AW_TRY(json list, s.gl.get_all(target));
    for (const json& m : list) {
      AW_TRY(ForgePull p, gitlab_mr_from_json(m, "GET merge_requests"));
      if (p.head_ref == out.branch.branch) return std::optional<ForgePull>(p);
    }
    return std::optional<ForgePull>{};
  }

  Status open_mr() {
    AW_TRY(auto mr, existing_mr());
    if (mr) {
      out.pull_url = mr->html_url;
      out.already.push_back("pull");
      return {};
    }
    const Request* pr = nullptr;
    for (const Request& r : in.requests)
      if (r.type == "create_pull_request") pr = &r;
    SanitizeOptions o;
    o.allowed_domains = link_hosts(s);
    o.max_chars = 200;
    std::string title = sanitize_title(pr ? pr->title : in.fallback_title, o);
    if (!pr && in.issue > 0) {
      AW_TRY(json ij, s.gl.get(issue_target()));
      AW_TRY(ForgeIssue issue, gitlab_issue_from_json(ij, "GET " + issue_target()));
      title = "awaywork: " + sanitize_title(issue.title, o);
    }
    if (title.empty()) title = "awaywork: unit " + in.unit.unit_id;
    // A title renders GitLab's references too; "Draft: " keeps it a draft on any version.
    title = "Draft: " + defuse_marker_forms(gitlab_inert(title));
    json req = {{"title", title},
                {"description", marked(pr ? pr->body : "",
                                       pull_footer(in.unit, in.issue, in.closing_keyword), "pull")},
                {"source_branch", out.branch.branch},
                {"target_branch", in.base_ref},
                {"draft", true},
                {"remove_source_branch", false}};
    std::string target = s.project_target() + "/merge_requests";
    auto sent = s.gl.call("POST", target, &req);
    if (!sent)
      return fail(
          "the branch {} was pushed, but the merge request was not opened: {}; try again "
          "later: {}",
          out.branch.branch, sent.error().message, finish_hint());
    if (sent->status == 201) {
      AW_TRY(ForgePull p, gitlab_mr_from_json(sent->body, "POST " + target));
      out.pull_url = p.html_url;
      out.posted.push_back("pull");
      return {};
    }
    return fail("the branch {} was pushed, but the merge request was not opened: {}",
                out.branch.branch, s.gl.describe("POST", target, *sent, finish_hint()));
  }

  Status note(const std::string& body, const std::string& item) {
    AW_CHECK(write("POST", issue_target() + "/notes", json{{"body", body}}));
    out.posted.push_back(item);
    return {};
  }

  // The note on the issue that names the merge request (GitHub's progress comment says it).
  Status mr_note(const std::vector<GitLabNote>& existing) {
    if (any_marked(existing, "mr-note")) {
      out.already.push_back("mr-note");
      return {};
    }
    // awaywork's words and GitLab's own address of the merge request: not sanitized (which would
    // drop an http:// address of a test instance), still made inert.
    return note(marked("",
                       fmt::format("awaywork opened a draft merge request for this issue: {}",
                                   out.pull_url),
                       "mr-note"),
                "mr-note");
  }

  Status notes(const std::vector<GitLabNote>& existing) {
    return post_comments(
        in, out, [&](const std::string& item) { return any_marked(existing, item); },
        [&](const Request& r, const std::string& item) {
          return note(marked(r.body, "", item), item);
        });
  }

  Status labels() {
    std::set<std::string> wanted = wanted_labels(in);
    if (wanted.empty()) return {};
    AW_TRY(json ij, s.gl.get(issue_target()));
    AW_TRY(ForgeIssue issue, gitlab_issue_from_json(ij, "GET " + issue_target()));
    for (const auto& l : issue.labels) wanted.erase(l);
    if (wanted.empty()) {
      out.already.push_back("labels");
      return {};
    }
    std::string add;
    for (const auto& l : wanted) add += (add.empty() ? "" : ",") + l;
    AW_CHECK(write("PUT", issue_target(), json{{"add_labels", add}}));
    out.posted.push_back("labels");
    return {};
  }
};

}  // namespace

std::function<Result<std::optional<std::string>>(const std::string& ref)> gitlab_read_ref(
    GitLabSession& s) {
  return [&s](const std::string& ref) -> Result<std::optional<std::string>> {
    const std::string heads = "refs/heads/";
    if (!ref.starts_with(heads)) return fail("{} is not a branch", ref);
    // The branch's name is one URL-encoded segment ("awaywork%2Fu1"), as a project's path is.
    std::string target = fmt::format("{}/repository/branches/{}", s.project_target(),
                                     gitlab_project_id(ref.substr(heads.size())));
    AW_TRY(ApiReply r, s.gl.call("GET", target));
    if (r.status == 404) return std::optional<std::string>{};  // "404 Branch Not Found"
    if (r.status != 200) return fail("{}", s.gl.describe("GET", target, r));
    json c = r.body.is_object() ? r.body.value("commit", json()) : json();
    if (!c.is_object() || !c.contains("id") || !c["id"].is_string())
      return fail("GitLab GET {}: the answer names no commit (commit.id)", target);
    return std::optional<std::string>(c["id"].get<std::string>());
  };
}

Result<ForgePublished> publish_to_gitlab(GitLabSession& s, const ForgePublishInput& in) {
  GitLabRun p{s, in, {}, ""};
  AW_CHECK(p.push_branch());
  std::vector<GitLabNote> existing;
  if (in.issue > 0) {
    std::string target = p.issue_target() + "/notes?sort=asc&per_page=100";
    AW_TRY(json nj, s.gl.get_all(target));
    AW_TRY(existing, gitlab_notes_from_json(nj, "GET " + target));
  }
  AW_CHECK(p.open_mr());
  if (in.issue > 0) {
    AW_CHECK(p.mr_note(existing));
    AW_CHECK(p.notes(existing));
    AW_CHECK(p.labels());
  }
  return p.out;
}

}  // namespace aw
