// The compatibility env file: read only when nobody else can read it, since it holds tokens.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "base/fs.h"
#include "config/paths.h"
#include "secrets/store.h"

namespace aw {

namespace {

// "KEY=VALUE" (after an optional "export "), one pair of matching quotes stripped.
Status parse_line(std::string line, size_t number, std::map<std::string, std::string>& out) {
  if (!line.empty() && line.back() == '\r') line.pop_back();
  size_t start = line.find_first_not_of(" \t");
  if (start == std::string::npos || line[start] == '#') return {};
  line = line.substr(start);
  if (line.rfind("export ", 0) == 0) line = line.substr(7);
  size_t eq = line.find('=');
  if (eq == std::string::npos) return fail("line {} is not KEY=VALUE", number);
  std::string key = line.substr(0, eq), value = line.substr(eq + 1);
  if (!check_secret_name(key))
    return fail("line {}: the name before '=' is not a variable name", number);
  if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
      value.back() == value.front())
    value = value.substr(1, value.size() - 2);
  out[key] = value;
  return {};
}

}  // namespace

std::string default_env_file_path() {
  return default_config_dir() + "/env";
}

Result<std::map<std::string, std::string>> read_env_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
  if (fd < 0 && errno == ENOENT) return std::map<std::string, std::string>{};
  if (fd < 0 && errno == ELOOP)
    return fail("{} is a symbolic link; it is not read (replace it with the file itself)", path);
  if (fd < 0) return fail("open {}: {}", path, errno_text(errno));
  struct stat st {};
  int ok = ::fstat(fd, &st);
  ::close(fd);
  if (ok != 0 || !S_ISREG(st.st_mode)) return fail("{} is not a regular file", path);
  if (st.st_uid != ::geteuid())
    return fail("{} belongs to uid {}, not to you; it is not read (fix: chown {} {})", path,
                st.st_uid, ::geteuid(), path);
  if (st.st_mode & 077)
    return fail(
        "{} has mode {:04o}: others can read the tokens in it, so it is not read; fix: chmod 600 "
        "{}",
        path, st.st_mode & 07777, path);
  AW_TRY(auto text, read_file(path, 1u << 20));
  std::map<std::string, std::string> out;
  size_t number = 0, pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    AW_CHECK(with_context(parse_line(text.substr(pos, nl - pos), ++number, out), path));
    pos = nl + 1;
  }
  return out;
}

}  // namespace aw
