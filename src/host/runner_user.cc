#include "host/runner_user.h"

#include <pwd.h>
#include <sys/stat.h>

namespace aw {

namespace {

std::string owner_of(const char* path) {
  struct stat st {};
  if (!path || *path != '/' || ::stat(path, &st) != 0 || st.st_uid == 0) return "";
  struct passwd* pw = ::getpwuid(st.st_uid);
  return pw ? pw->pw_name : "";
}

}  // namespace

Result<std::string> find_runner(const std::string& flag, const EnvLookup& env) {
  std::string name = flag;
  if (name.empty())
    if (const char* s = env("SUDO_USER"); s && *s && std::string(s) != "root") name = s;
  if (name.empty()) name = owner_of(env("GITHUB_WORKSPACE"));
  if (name.empty()) name = owner_of(env("RUNNER_TEMP"));
  if (name.empty())
    return fail(
        "who is the runner? name the user the job's steps run as: --runner USER (or run it "
        "through sudo, which sets SUDO_USER)");
  struct passwd* pw = ::getpwnam(name.c_str());
  if (!pw) return fail("runner user '{}' does not exist", name);
  if (pw->pw_uid == 0) return fail("the runner must not be root (--runner USER)");
  return name;
}

}  // namespace aw
