// Finding and reading the config file. The file is the owner's own (unlike everything the agent
// touches), so a symlinked config from a dotfiles manager is followed.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "base/fs.h"
#include "config/config.h"
#include "config/paths.h"

namespace aw {
namespace {

// A config is a few kilobytes; this refuses a wrong path (a log, a device) quickly.
constexpr size_t kMaxConfigBytes = 1u << 20;

// Reads path; errno_out is set to the open error so that the caller can tell "missing" apart.
Result<std::string> read_config(const std::string& path, int& errno_out) {
  errno_out = 0;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) {
    errno_out = errno;
    return fail("{}: cannot open: {}", path, errno_text(errno_out));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return fail("{}: not a regular file; point --config at a YAML file", path);
  }
  std::string out;
  char buf[16384];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int e = errno;
      ::close(fd);
      return fail("{}: cannot read: {}", path, errno_text(e));
    }
    if (n == 0) break;
    if (out.size() + static_cast<size_t>(n) > kMaxConfigBytes) {
      ::close(fd);
      return fail("{}: larger than {} bytes; is this the right file?", path, kMaxConfigBytes);
    }
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

}  // namespace

std::string default_config_path() {
  std::string dir = default_config_dir();
  return dir.empty() ? "" : dir + "/config.yml";
}

Result<Config> load_config(const std::string& path, bool explicit_path) {
  int err = 0;
  auto text = read_config(path, err);
  if (!text && err == ENOENT && !explicit_path) return parse_config("", "");
  if (!text && err == ENOENT)
    return fail(
        "{}: no such file; create it (see examples/config.yml) or leave out --config to "
        "use {}",
        path, default_config_path());
  if (!text) return tl::unexpected(text.error());
  return parse_config(*text, path);
}

}  // namespace aw
