#include "serve/token.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/random.h"

namespace aw {

namespace {

constexpr size_t kBytes = 32;  // 256 bits

bool well_formed(const std::string& t) {
  if (t.size() != 2 * kBytes) return false;
  for (char c : t)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

}  // namespace

Result<std::string> load_or_make_token(const std::string& state_dir) {
  std::string dir = state_dir + "/serve";
  AW_CHECK(make_dirs(dir, 0700));
  std::string path = dir + "/token";
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode) || st.st_uid != ::geteuid() || (st.st_mode & 077) != 0)
      return fail(
          "{} must be a regular file of yours with mode 0600; remove it and start again "
          "(a new token is made)",
          path);
    AW_TRY(std::string text, read_file(path, 4096));
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
    if (!well_formed(text))
      return fail("{} does not hold a token made by awaywork; remove it and start again", path);
    return text;
  }
  AW_TRY(std::string token, random_hex(kBytes));
  AW_CHECK(with_context(write_file(path, token + "\n", 0600), path));
  return token;
}

}  // namespace aw
