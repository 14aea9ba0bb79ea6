// The runner's own sudo rules in /etc/sudoers.d/ (a hosted runner has `runner ALL=(ALL)
// NOPASSWD:ALL` there): commented out, so that the runner holds exactly the two lines. isolation
// `user` refuses an owner with broader rules (doctor's sudoers check), and a runner that is root at
// will is one escape away for anything that reaches it. Only lines whose user is the runner by
// name are touched; every file is validated by visudo and put back when it does not parse.
#include <dirent.h>
#include <sys/stat.h>

#include <cstring>
#include <sstream>

#include <fmt/format.h>

#include "base/fs.h"
#include "host/lock.h"
#include "isolate/user/sudoers.h"
#include "proc/capture.h"

namespace aw {

namespace {

constexpr const char* kMark = "# awaywork host lock: ";

// The file without the runner's rules, and how many it had.
std::string without_rules_of(const std::string& text, const std::string& runner, int& removed) {
  std::istringstream in(text);
  std::string out;
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string first;
    words >> first;
    if (first == runner) {
      out += kMark + line + "\n";
      ++removed;
    } else {
      out += line + "\n";
    }
  }
  return out;
}

bool sudo_reads(const char* name) {
  // sudo's includedir skips names with a dot or ending in ~.
  return name[0] != '.' && !std::strchr(name, '.') && name[std::strlen(name) - 1] != '~';
}

}  // namespace

Status lock_runner_sudo(const std::string& worker, const std::string& runner,
                        std::vector<LockChange>& out) {
  DIR* d = ::opendir("/etc/sudoers.d");
  if (!d) return {};
  std::vector<std::string> files;
  while (struct dirent* e = ::readdir(d))
    if (sudo_reads(e->d_name)) files.push_back(std::string("/etc/sudoers.d/") + e->d_name);
  ::closedir(d);
  for (const auto& f : files) {
    struct stat st {};
    if (f == sudoers_file(worker) || ::lstat(f.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    AW_TRY(std::string text, read_file(f, 1 << 20));
    int removed = 0;
    std::string edited = without_rules_of(text, runner, removed);
    if (removed == 0) continue;
    AW_CHECK(replace_file(f, edited, st.st_mode & 07777));
    auto ok =
        capture({{"/usr/sbin/visudo", "-c", "-q"}, {"PATH=/usr/sbin:/usr/bin:/bin"}, "/", ""});
    if (!ok || ok->exit_code != 0) {
      AW_CHECK(replace_file(f, text, st.st_mode & 07777));
      return fail("{} without {}'s rules does not parse; put back as it was", f, runner);
    }
    out.push_back(
        {LockStep::sudoers, fmt::format("{}: commented out {} rule(s) of {}", f, removed, runner)});
  }
  return {};
}

}  // namespace aw
