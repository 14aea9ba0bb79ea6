#include "isolate/user/socket_grant.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "base/fs.h"

namespace aw {

namespace {

// The kernel's system.posix_acl_access value (linux/posix_acl_xattr.h), little-endian: a version
// word, then entries sorted by tag (and by id among ACL_USER entries).
constexpr uint32_t kAclVersion = 2;
constexpr uint16_t kUserObj = 0x01, kUser = 0x02, kGroupObj = 0x04, kMask = 0x10, kOther = 0x20;
constexpr uint16_t kRw = 4 | 2;
constexpr uint32_t kNoId = 0xffffffffu;

void put16(std::vector<unsigned char>& b, uint16_t v) {
  b.push_back(v & 0xff), b.push_back(v >> 8);
}
void put32(std::vector<unsigned char>& b, uint32_t v) {
  for (int i = 0; i < 4; ++i) b.push_back((v >> (8 * i)) & 0xff);
}

std::vector<unsigned char> acl_for(uid_t uid) {
  std::vector<unsigned char> b;
  put32(b, kAclVersion);
  auto entry = [&](uint16_t tag, uint16_t perm, uint32_t id) {
    put16(b, tag), put16(b, perm), put32(b, id);
  };
  entry(kUserObj, kRw, kNoId);
  entry(kUser, kRw, static_cast<uint32_t>(uid));
  entry(kGroupObj, 0, kNoId);
  entry(kMask, kRw, kNoId);
  entry(kOther, 0, kNoId);
  return b;
}

}  // namespace

Status grant_socket_to(const std::string& path, uid_t uid) {
  // Held by an O_PATH fd: what is checked is what gets the ACL (set through /proc/self/fd, which
  // names that inode).
  int fd = ::open(path.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return fail("open {}: {}", path, errno_text(errno));
  struct stat st {};
  Status result;
  if (::fstat(fd, &st) != 0) {
    result = fail("stat {}: {}", path, errno_text(errno));
  } else if (!S_ISSOCK(st.st_mode) || st.st_uid != ::geteuid()) {
    result = fail("{} is not a socket of uid {}: not opened to another user", path, ::geteuid());
  } else {
    auto acl = acl_for(uid);
    std::string via = fmt::format("/proc/self/fd/{}", fd);
    if (::setxattr(via.c_str(), "system.posix_acl_access", acl.data(), acl.size(), 0) != 0)
      result = fail(
          "give uid {} access to {} by a POSIX ACL: {}{}", uid, path, errno_text(errno),
          errno == EOPNOTSUPP ? " (the file system of /tmp has no ACLs: mount it with acl)" : "");
  }
  ::close(fd);
  return result;
}

}  // namespace aw
