#include "forge/publish.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "base/fs.h"
#include "base/json_write.h"
#include "check/sanitize.h"
#include "forge/link.h"

namespace aw {

using nlohmann::json;

std::string pull_footer(const UnitFacts& u, int64_t issue, bool closing_keyword) {
  std::string checks;
  for (const auto& [name, code] : u.checks)
    checks += fmt::format("{}{} (exit {})", checks.empty() ? "" : ", ", name, code);
  std::string out = fmt::format(
      "\n\n---\nMade by awaywork: unit `{}`, agent `{}`, "
      "isolation `{}`, sandbox `{}`.\nChecks: {}.\nOutput check: {}.",
      u.unit_id, u.agent, u.isolation, published_sandbox(u.sandbox),
      checks.empty() ? "none" : checks, u.verdict);
  if (issue > 0) out += fmt::format("\nFor #{}.", issue);
  // Written by awaywork when the repository opts in; an agent's "closes" is neutralized.
  if (issue > 0 && closing_keyword) out += fmt::format("\n\nCloses #{}", issue);
  return out;
}

std::string published_sandbox(std::string_view note) {
  // The notes isolators write: "sandboxed: network none; of the homes in view ...",
  // "sandboxed: container docker IMAGE, network allowlist (...)", "unsandboxed: <why>".
  if (!note.starts_with("sandboxed")) return "off";
  for (size_t at = note.find("network "); at != std::string_view::npos;
       at = note.find("network ", at + 1)) {
    if (at > 0 && note[at - 1] != ' ' && note[at - 1] != ':') continue;
    std::string_view rest = note.substr(at + 8);
    for (std::string_view policy : {"none", "allowlist", "host"})
      if (rest.starts_with(policy) &&
          (rest.size() == policy.size() ||
           !std::isalnum(static_cast<unsigned char>(rest[policy.size()]))))
        return fmt::format("on, network {}", policy);
  }
  return "on";
}

ApplyTarget forge_git_target(const ForgeConfig& forge, const std::string& clone_url,
                             const std::string& token) {
  ApplyTarget t;
  t.url = clone_url;
  t.credential = forge.credential;
  t.secret_value = token;
  t.ca_file = forge.ca_file;
  return t;
}

PublishRequest forge_publish_request(const ForgePublishInput& in, ApplyTarget target,
                                     std::vector<std::jthread>& background) {
  PublishRequest req;
  req.target = std::move(target);
  req.target.branch = in.base_ref;
  req.target.borrow_objects_of = in.mirror_dir;
  req.unit_id = in.unit.unit_id;
  req.branch_prefix = in.branch_prefix;
  req.base_commit = in.base_commit;
  req.patch = in.patch;
  req.checked_paths = in.paths;
  req.message = sanitize_commit_message(in.commit_message);  // whoever built it
  req.scratch_dir = in.scratch_dir;
  req.askpass = in.askpass;
  req.remove_scratch = [&background](const std::string& path) {
    if (background.size() >= 8) background.clear();  // a long-lived watcher's session
    background.emplace_back([path] { (void)remove_tree(path); });
  };
  return req;
}

std::set<std::string> wanted_labels(const ForgePublishInput& in) {
  std::set<std::string> wanted;
  for (const Request& r : in.requests)
    if (r.type == "add_labels")
      for (const auto& l : r.labels)
        if (std::find(in.allowed_labels.begin(), in.allowed_labels.end(), l) !=
            in.allowed_labels.end())
          wanted.insert(l);
  return wanted;
}

namespace {

// Code points, as GitHub counts a body's length.
size_t chars_in(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

struct PublishRun {
  ForgeSession& s;
  const ForgePublishInput& in;
  ForgePublished out;
  std::string repo_path;  // /repos/OWNER/REPO
  std::string sha;

  // Every body posted goes through here: text (the agent's, checked; or awaywork's with a
  // title in it), awaywork's tail (the footer) and the marker. The check caps the agent's text
  // at GitHub's limit itself, so the tail and marker could take the whole past it, and GitHub's
  // 422 would meet every later apply too: the text is cut again to leave them room, by the
  // sanitizer (never inside a wrapper it added, which could free a mention), with its note.
  std::string marked(const std::string& text, const std::string& tail,
                     const std::string& item) const {
    std::string marker = item_marker(in.unit.unit_id, item, sha);
    std::string body = with_marker(text + tail, marker);
    size_t room = chars_in(text);
    for (size_t n = chars_in(body); n > kForgeBodyMaxChars && room > 0; n = chars_in(body)) {
      room -= std::min(room, n - kForgeBodyMaxChars);
      SanitizeOptions o;
      o.repo = s.owner_repo;
      o.max_chars = room;
      body = with_marker(sanitize_text(text, o) + tail, marker);
    }
    return body;
  }

  // What a failure that may pass says: a write GitHub failed (a 5xx) or did not answer may have
  // been done or not, and only a later apply, which finds by its marker what is there and posts
  // the rest, finishes the unit (docs/forge.md, Errors).
  std::string finish_hint() const {
    return fmt::format(
        "`awaywork apply {}` finishes it (it finds by their markers what was already posted)",
        in.unit.unit_id);
  }

  Result<json> write(const std::string& target, const json& body) {
    auto r = s.gh.call("POST", target, &body);
    if (!r) return fail("{}; try again later: {}", r.error().message, finish_hint());
    if (r->status >= 200 && r->status <= 299) return std::move(r->body);
    return fail("{}", s.gh.describe("POST", target, *r, finish_hint()));
  }

  Result<json> issue_comments() {
    return s.gh.get_all(fmt::format("{}/issues/{}/comments?per_page=100", repo_path, in.issue));
  }

  // Only what awaywork's own login posted counts: anyone may write a marker into a comment.
  bool any_marked(const json& list, const std::string& item) const {
    for (const json& x : list) {
      if (!x.is_object() || !x.contains("body") || !x["body"].is_string()) continue;
      auto by = x.contains("user") ? user_from_json(x["user"], "author") : fail("no author");
      if (by && by->login == s.self_login &&
          has_marker(x["body"].get<std::string>(), in.unit.unit_id, item))
        return true;
    }
    return false;
  }

  // A branch of the repository through the API (a millisecond) instead of git's ls-remote (a
  // round trip of tens): its commit, or nullopt when it does not exist.
  Result<std::optional<std::string>> read_ref(const std::string& ref) {
    const std::string heads = "refs/heads/";
    if (in.fork_pull > 0 && ref == fmt::format("refs/pull/{}/head", in.fork_pull)) {
      // GitHub's git/ref API answers for branches and tags; the pull request names its head.
      AW_TRY(ForgePull p, fork_pull());
      return std::optional<std::string>(p.head_sha);
    }
    if (!ref.starts_with(heads)) return fail("{} is not a branch", ref);
    std::string target =
        fmt::format("{}/git/ref/heads/{}", repo_path, path_escape(ref.substr(heads.size())));
    AW_TRY(ApiReply r, s.gh.call("GET", target));
    if (r.status == 404) return std::optional<std::string>{};
    if (r.status != 200) return fail("{}", s.gh.describe("GET", target, r));
    json o = r.body.is_object() ? r.body.value("object", json()) : json();
    if (!o.is_object() || !o.contains("type") || o["type"] != "commit" || !o.contains("sha") ||
        !o["sha"].is_string())
      return fail("GET {}: the answer names no commit (object.type, object.sha)", target);
    return std::optional<std::string>(o["sha"].get<std::string>());
  }

  Status push_branch() {
    PublishRequest req = forge_publish_request(
        in, forge_git_target(s.forge, s.repo.clone_url, s.token), s.background);
    req.target.read_ref = [this](const std::string& ref) { return read_ref(ref); };
    // The one exception to "the base is on the target's branch": a fork's head is on none of
    // octo/web's branches, only on the pull request's read-only ref there.
    if (in.fork_pull > 0) req.start_ref = fmt::format("refs/pull/{}/head", in.fork_pull);
    AW_TRY(out.branch,
           with_context(publish(req), fmt::format("pushing the branch to {}", s.owner_repo)));
    sha = out.branch.commit;
    return {};
  }

  // The fork's pull request as GitHub says it now (its head repository, branch and commit).
  Result<ForgePull> fork_pull() {
    std::string target = fmt::format("{}/pulls/{}", repo_path, in.fork_pull);
    AW_TRY(json pj, s.gh.get(target));
    AW_TRY(ForgePull p, pull_from_json(pj, "GET " + target));
    if (p.head_repo.empty() || p.head_ref.empty() || p.head_sha.empty())
      return fail("GET {}: the pull request names no head (its fork was deleted?)", target);
    return p;
  }

  // A fork's pull request: no pull request of awaywork's (it could target only the base
  // repository's branches, not the fork's), but one marked comment on it with the compare link
  // of awaywork's branch against the fork's branch, which shows the fork's author exactly
  // awaywork's commit and how to take it. Nothing is pushed to the fork.
  Status compare_on_fork(const json& comments) {
    AW_TRY(ForgePull p, fork_pull());
    std::string owner = p.head_repo.substr(0, p.head_repo.find('/'));
    out.compare_url = fmt::format("{}/compare/{}:{}...{}", s.repo.html_url, path_escape(owner),
                                  path_escape(p.head_ref), path_escape(out.branch.branch));
    if (any_marked(comments, "compare")) {
      out.already.push_back("compare");
      return {};
    }
    // awaywork's words, with names that are logins and escaped branch names only: inert.
    std::string body = fmt::format(
        "awaywork answered the command on this pull request with one commit on its head, on "
        "the branch `{}` of {} (nothing was pushed to {}): {}\n\nTo take it into your "
        "branch: `git pull {} {}`",
        out.branch.branch, s.owner_repo, path_escape(p.head_repo), out.compare_url,
        s.repo.clone_url, out.branch.branch);
    return post_comment(marked(body, pull_footer(in.unit, 0, false), "compare"), "compare");
  }

  // The pull request of the branch, if one exists (opened by an earlier run).
  Result<std::optional<ForgePull>> existing_pull() {
    std::string owner = s.owner_repo.substr(0, s.owner_repo.find('/'));
    AW_TRY(json list, s.gh.get_all(fmt::format("{}/pulls?state=all&head={}:{}&per_page=100",
                                               repo_path, owner, out.branch.branch)));
    for (const json& p : list) {
      AW_TRY(ForgePull pull, pull_from_json(p, "GET pulls"));
      if (pull.head_ref == out.branch.branch) return std::optional<ForgePull>(pull);
    }
    return std::optional<ForgePull>{};
  }

  Status open_pull(const json& comments) {
    AW_TRY(auto pull, existing_pull());
    if (pull) {
      out.pull_url = pull->html_url;
      out.already.push_back("pull");
      return {};
    }
    if (any_marked(comments, "compare")) {
      out.already.push_back("compare");
      return {};
    }
    const Request* pr = nullptr;
    for (const Request& r : in.requests)
      if (r.type == "create_pull_request") pr = &r;
    // The request's title was sanitized by the check (with the owner's link hosts); any other
    // goes through the same title rules here, whatever its source (a prompt's first line, the
    // issue's title).
    SanitizeOptions o;
    o.repo = s.owner_repo;
    o.max_chars = 200;
    std::string title = pr ? pr->title : sanitize_title(in.fallback_title, o);
    if (!pr && in.issue > 0) {
      std::string target = fmt::format("{}/issues/{}", repo_path, in.issue);
      AW_TRY(json ij, s.gh.get(target));
      AW_TRY(ForgeIssue issue, issue_from_json(ij, "GET " + target));
      title = "awaywork: " + sanitize_title(issue.title, o);
    }
    if (title.empty()) title = "awaywork: unit " + in.unit.unit_id;
    std::string footer = pull_footer(in.unit, in.issue, in.closing_keyword);
    json req = {{"title", defuse_marker_forms(title)},
                {"body", marked(pr ? pr->body : "", footer, "pull")},
                {"head", out.branch.branch},
                {"base", in.base_ref},
                {"draft", true}};
    std::string target = repo_path + "/pulls";
    auto sent = s.gh.call("POST", target, &req);
    if (!sent)
      return fail(
          "the branch {} was pushed, but the pull request was not opened: {}; try again "
          "later: {}",
          out.branch.branch, sent.error().message, finish_hint());
    ApiReply& r = *sent;
    if (r.status == 201) {
      AW_TRY(ForgePull p, pull_from_json(r.body, "POST " + target));
      out.pull_url = p.html_url;
      out.posted.push_back("pull");
      return {};
    }
    std::string said = json_text(r.body);
    if (r.status == 422 && said.find("Draft pull requests are not supported") != std::string::npos)
      return compare_instead(title);
    if (r.status >= 500)  // the hint is said after "try again later"
      return fail("the branch {} was pushed, but the pull request was not opened: {}",
                  out.branch.branch, s.gh.describe("POST", target, r, finish_hint()));
    return fail(
        "the branch {} was pushed, but the pull request was not opened: {}; run "
        "`awaywork apply {}` again to finish (it finds what is already there)",
        out.branch.branch, s.gh.describe("POST", target, r), in.unit.unit_id);
  }

  // The repository refuses drafts: a ready pull request would ask for review of unreviewed
  // work, so awaywork comments the compare link instead.
  Status compare_instead(const std::string& title) {
    out.compare_url =
        fmt::format("{}/compare/{}...{}?expand=1", s.repo.html_url, in.base_ref, out.branch.branch);
    if (in.issue == 0)
      return fail(
          "the branch {} was pushed; this repository refuses draft pull requests, "
          "open one from {}",
          out.branch.branch, out.compare_url);
    std::string body = fmt::format(
        "awaywork pushed `{}` for this issue ({}). This repository does not allow draft pull "
        "requests, so none was opened: compare and open one here: {}",
        out.branch.branch, sanitize_text(title, {}, 256), out.compare_url);
    return post_comment(marked(body, pull_footer(in.unit, 0, false), "compare"), "compare");
  }

  Status post_comment(const std::string& body, const std::string& item) {
    AW_CHECK(
        write(fmt::format("{}/issues/{}/comments", repo_path, in.issue), json{{"body", body}}));
    out.posted.push_back(item);
    return {};
  }

  Status comments(const json& existing) {
    return post_comments(
        in, out, [&](const std::string& item) { return any_marked(existing, item); },
        [&](const Request& r, const std::string& item) {
          return post_comment(marked(r.body, "", item), item);
        });
  }

  Status labels() {
    std::set<std::string> wanted = wanted_labels(in);
    if (wanted.empty()) return {};
    std::string target = fmt::format("{}/issues/{}", repo_path, in.issue);
    AW_TRY(json ij, s.gh.get(target));
    AW_TRY(ForgeIssue issue, issue_from_json(ij, "GET " + target));
    for (const auto& l : issue.labels) wanted.erase(l);
    if (wanted.empty()) {
      out.already.push_back("labels");
      return {};
    }
    AW_CHECK(write(target + "/labels",
                   json{{"labels", std::vector<std::string>(wanted.begin(), wanted.end())}}));
    out.posted.push_back("labels");
    return {};
  }

  Status new_issues() {
    std::vector<const Request*> asked;
    for (const Request& r : in.requests)
      if (r.type == "create_issue") asked.push_back(&r);
    if (asked.empty()) return {};
    AW_TRY(json list, s.gh.get_all(repo_path + "/issues?state=all&per_page=100"));
    for (size_t k = 0; k < asked.size(); ++k) {
      std::string item = fmt::format("issue-{}", k + 1);
      if (any_marked(list, item)) {
        out.already.push_back(item);
        continue;
      }
      json req = {{"title", defuse_marker_forms(asked[k]->title)},
                  {"body", marked(asked[k]->body, "", item)}};
      std::vector<std::string> labels;
      for (const auto& l : asked[k]->labels)
        if (std::find(in.allowed_labels.begin(), in.allowed_labels.end(), l) !=
            in.allowed_labels.end())
          labels.push_back(l);
      if (!labels.empty()) req["labels"] = labels;
      AW_CHECK(write(repo_path + "/issues", req));
      out.posted.push_back(item);
    }
    return {};
  }
};

}  // namespace

Result<ForgePublished> publish_to_forge(ForgeSession& s, const ForgePublishInput& in) {
  PublishRun p{s, in, {}, "/repos/" + s.owner_repo, ""};
  AW_CHECK(p.push_branch());
  json existing = json::array();
  if (in.issue > 0) {
    AW_TRY(existing, p.issue_comments());
  }
  if (in.fork_pull > 0) {
    AW_CHECK(p.compare_on_fork(existing));
  } else {
    AW_CHECK(p.open_pull(existing));
  }
  if (in.issue > 0) {
    AW_CHECK(p.comments(existing));
    AW_CHECK(p.labels());
  }
  AW_CHECK(p.new_issues());
  return p.out;
}

}  // namespace aw
