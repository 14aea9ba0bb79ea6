#include "unit/apply.h"

#include <unistd.h>

#include "secrets/store.h"

namespace aw {

namespace {

// The askpass git execs for a credential is awaywork itself (git/askpass.cc).
Result<std::string> self_path() {
  char buf[4096];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return fail("cannot find awaywork's own binary (/proc/self/exe)");
  return std::string(buf, static_cast<size_t>(n));
}

std::string commit_message(const ApplyInput& in) {
  std::string title = in.prompt.substr(0, in.prompt.find('\n')).substr(0, 60);
  return fmt::format("awaywork: {}\n\nUnit {} on {} at {}.\n", title, in.unit_id, in.label,
                     in.base_commit.substr(0, 12));
}

}  // namespace

Result<Applied> apply_checked(const ApplyInput& in) {
  PublishRequest req;
  std::unique_ptr<SecretStore> secrets;
  const PublishConfig& pub = in.repo.publish;
  if (pub.url.empty()) {
    req.target = local_target(in.source, in.base_ref);
  } else {
    req.target.url = pub.url;
    req.target.branch = pub.branch.empty() ? in.base_ref : pub.branch;
    req.target.credential = pub.credential;
    if (!pub.user.empty()) req.target.username = pub.user;
    if (!pub.credential.empty()) {
      AW_TRY(secrets, with_context(open_secret_store(default_secret_store_paths()),
                                   "the secret store (for " + pub.credential + ")"));
      req.target.secrets = secrets.get();
      AW_TRY(req.askpass, self_path());
    }
  }
  req.unit_id = in.unit_id;
  req.base_commit = in.base_commit;
  req.patch = in.patch;
  req.checked_paths = in.paths;
  req.message = commit_message(in);
  req.scratch_dir = in.scratch_dir;
  AW_TRY(PublishResult r, publish(req));
  return Applied{r, req.target.url.empty() ? req.target.git_dir : req.target.url};
}

}  // namespace aw
