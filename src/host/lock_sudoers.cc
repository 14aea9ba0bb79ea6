// The runner's two sudoers lines, the very ones `doctor --print-setup` prints (isolate/user/
// sudoers.h), installed only after visudo accepted them and the whole configuration with them.
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

#include "base/fs.h"
#include "host/lock.h"
#include "isolate/user/sudoers.h"
#include "isolate/user/worker.h"
#include "proc/capture.h"

namespace aw {

namespace {

const std::vector<std::string> kSudoersEnv = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C"};

Status visudo_check(std::vector<std::string> argv) {
  AW_TRY(Captured c, capture({argv, kSudoersEnv, "/", ""}));
  if (c.exit_code != 0) return fail("visudo refused it: {}{}", c.out, c.err);
  return {};
}

}  // namespace

Status lock_sudoers(const std::string& worker, const std::string& runner,
                    std::vector<LockChange>& out) {
  struct passwd* pw = ::getpwnam(runner.c_str());
  if (!pw) return fail("runner user '{}' does not exist", runner);
  if (!is_plain_user_name(runner) || !is_plain_user_name(worker))
    return fail("user names '{}' / '{}' cannot be written into sudoers lines", runner, worker);
  if (::access("/usr/sbin/visudo", X_OK) != 0)
    return fail("/usr/sbin/visudo is missing: apt-get install -y sudo");
  auto lines = sudoers_lines({runner, pw->pw_uid, pw->pw_gid, worker});
  std::string text = lines[0] + "\n" + lines[1] + "\n";
  std::string file = sudoers_file(worker);
  struct stat st {};
  if (read_or_empty(file) == text && ::lstat(file.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
      st.st_uid == 0 && (st.st_mode & 07777) == 0440)
    return {};
  // A dot in the name: sudo's includedir skips it while it is only a candidate.
  std::string tmp = "/etc/sudoers.d/.awaywork-lock.tmp";
  AW_CHECK(replace_file(tmp, text, 0440));
  Status s = visudo_check({"/usr/sbin/visudo", "-c", "-q", "-f", tmp});
  if (s && ::rename(tmp.c_str(), file.c_str()) != 0)
    s = fail("install {}: {}", file, errno_text(errno));
  if (!s) {
    ::unlink(tmp.c_str());
    return s;
  }
  if (auto all = visudo_check({"/usr/sbin/visudo", "-c", "-q"}); !all) {
    ::unlink(file.c_str());
    return fail("with {} installed the sudoers configuration does not parse, so it was removed: {}",
                file, all.error().message);
  }
  out.push_back({LockStep::sudoers, fmt::format("{}: the two lines for {}", file, runner)});
  return {};
}

}  // namespace aw
