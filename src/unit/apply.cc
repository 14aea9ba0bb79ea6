#include "unit/apply.h"

#include <unistd.h>

#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "base/fs.h"
#include "base/json_read.h"
#include "check/sanitize.h"
#include "secrets/store.h"

namespace aw {

namespace {

// The task is not always the owner's own words (a tracker, a plugin, a workflow pasting an issue
// into the action's prompt): a title or commit subject made from it goes through the same rules
// as every title awaywork posts (check/sanitize.h), and a commit's never holds a closing keyword's
// reference.
std::string title_of_task(const std::string& prompt, size_t max_chars, bool commit) {
  SanitizeOptions o;
  o.max_chars = max_chars;
  o.commit = commit;
  return task_title(prompt, o);
}

}  // namespace

Result<std::string> askpass_program() {
  char buf[4096];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return fail("cannot find awaywork's own binary (/proc/self/exe)");
  return std::string(buf, static_cast<size_t>(n));
}

std::string commit_message(const ApplyInput& in) {
  std::string title = title_of_task(in.prompt, 60, true);
  if (title.empty()) title = "unit " + in.unit_id;
  return sanitize_commit_message(fmt::format("awaywork: {}\n\nUnit {} on {} at {}.\n", title,
                                             in.unit_id, in.label, in.base_commit.substr(0, 12)));
}

std::string task_title_of(const std::string& prompt, size_t max_chars) {
  return title_of_task(prompt, max_chars, false);
}

void note_applied(const Applied& a, UnitRecord& u) {
  u.branch = a.result.branch;
  u.commit = a.result.commit;
  if (!a.pull_url.empty()) u.pull_request = a.pull_url;
  if (!a.compare_url.empty())
    u.notes.push_back(
        "the repository refuses draft pull requests: the compare link was "
        "commented instead: " +
        a.compare_url);
  if (!a.posted.empty()) u.notes.push_back(fmt::format("posted: {}", fmt::join(a.posted, ", ")));
  if (!a.already.empty())
    u.notes.push_back(
        fmt::format("already there (found by marker): {}", fmt::join(a.already, ", ")));
}

Result<std::vector<Request>> load_checked_requests(const std::string& file) {
  std::vector<Request> out;
  auto text = read_file(file, 16u << 20);
  if (!text) return out;  // no requests were kept
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (!j.is_array()) return fail("{} is not a list of requests", file);
  for (size_t i = 0; i < j.size(); ++i) {
    JsonRead r(j[i], file, fmt::format("[{}]", i));  // base/json_read.h: no throw on a bad type
    if (!r.json().is_object()) return fail("{}: a request is not an object", file);
    Request q;
    AW_TRY(q.type, r.str_or("type", ""));
    AW_TRY(q.title, r.str_or("title", ""));
    AW_TRY(q.body, r.str_or("body", ""));
    AW_TRY(q.message, r.str_or("message", ""));
    AW_TRY(q.labels, r.strings_or("labels"));
    out.push_back(std::move(q));
  }
  return out;
}

Result<Applied> apply_checked(const ApplyInput& in, Publisher* pub) {
  if (pub) return pub->publish(in);
  // Git's own publisher would make the branch in the mirror: a forge's repository is its own.
  if (!in.repo.forge.path().empty())
    return fail("a forge repository's apply needs its forge session");
  return GitPublisher().publish(in);
}

Result<Applied> GitPublisher::publish(const ApplyInput& in) {
  PublishRequest req;
  std::unique_ptr<SecretStore> secrets;
  PublishConfig pub = in.repo.publish;
  // A url: repository's source is awaywork's mirror: its branch goes back to the remote.
  if (pub.url.empty() && !in.repo.url.empty()) pub.url = in.repo.url;
  if (pub.url.empty()) {
    req.target = local_target(in.source, in.base_ref);
  } else {
    req.target.url = pub.url;
    if (!in.repo.url.empty()) req.target.borrow_objects_of = in.source.git_dir;
    req.target.branch = pub.branch.empty() ? in.base_ref : pub.branch;
    req.target.credential = pub.credential;
    if (!pub.user.empty()) req.target.username = pub.user;
    if (!pub.credential.empty()) {
      AW_TRY(secrets, with_context(open_secret_store(default_secret_store_paths()),
                                   "the secret store (for " + pub.credential + ")"));
      req.target.secrets = secrets.get();
      AW_TRY(req.askpass, askpass_program());
    }
  }
  req.unit_id = in.unit_id;
  req.base_commit = in.base_commit;
  req.patch = in.patch;
  req.checked_paths = in.paths;
  req.message = commit_message(in);
  req.scratch_dir = in.scratch_dir;
  AW_TRY(PublishResult r, aw::publish(req));  // git/git.h, not this member
  return Applied{r, req.target.url.empty() ? req.target.git_dir : req.target.url, "", "", {}, {}};
}

}  // namespace aw
