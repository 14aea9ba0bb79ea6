// The runner's home holds the checkout, the step scripts, RUNNER_TEMP and the GITHUB_ENV and
// GITHUB_PATH files: a worker able to write GITHUB_ENV sets variables for the job's later steps.
#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include <fmt/format.h>

#include "base/fs.h"
#include "host/lock.h"

namespace aw {

Status lock_home(const std::string& runner, std::vector<LockChange>& out) {
  struct passwd* pw = ::getpwnam(runner.c_str());
  if (!pw) return fail("runner user '{}' does not exist", runner);
  std::string home = pw->pw_dir;
  // Held open without following a link: the mode changed is the mode of what was checked.
  int fd = ::open(home.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return fail("the runner's home {}: {}", home, errno_text(errno));
  struct stat st {};
  Status result;
  if (::fstat(fd, &st) != 0) {
    result = fail("stat {}: {}", home, errno_text(errno));
  } else if (st.st_uid != pw->pw_uid) {
    result = fail("the runner's home {} belongs to uid {}, not {}", home, st.st_uid, runner);
  } else if (st.st_mode & 077) {
    mode_t mode = st.st_mode & 07700;
    if (::fchmod(fd, mode) != 0)
      result = fail("chmod {}: {}", home, errno_text(errno));
    else
      out.push_back(
          {LockStep::home, fmt::format("{}: {:04o} -> {:04o}", home, st.st_mode & 07777, mode)});
  }
  ::close(fd);
  return result;
}

}  // namespace aw
