// Lending the owner's Codex auth.json to a unit and taking back only a genuine refresh.
#include "secrets/codex_login.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/fs.h"
#include "base/sha256.h"
#include "base/unique_fd.h"

namespace aw {

namespace {

// auth.json is a few kilobytes; anything larger is not one.
constexpr size_t kMaxAuthBytes = 1u << 20;

using Fd = UniqueFd;

struct FileRead {
  std::string bytes;
  struct stat st {};
};

// Reads path without following a final link: a regular file, at most kMaxAuthBytes.
Result<FileRead> read_no_follow(const std::string& path) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (fd.get() < 0)
    return fail("{}: {}", path, errno == ELOOP ? "is a symbolic link" : errno_text(errno).c_str());
  FileRead r;
  if (::fstat(fd.get(), &r.st) != 0) return fail("{}: fstat: {}", path, errno_text(errno));
  if (!S_ISREG(r.st.st_mode)) return fail("{}: not a regular file", path);
  if (static_cast<size_t>(r.st.st_size) > kMaxAuthBytes)
    return fail("{}: larger than {} bytes", path, kMaxAuthBytes);
  char buf[8192];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail("{}: read: {}", path, errno_text(errno));
    if (n == 0) break;
    r.bytes.append(buf, static_cast<size_t>(n));
    if (r.bytes.size() > kMaxAuthBytes)
      return fail("{}: larger than {} bytes", path, kMaxAuthBytes);
  }
  return r;
}

int64_t mtime_ns(const struct stat& st) {
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

Status write_bytes(int fd, const std::string& data, const std::string& path) {
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = ::write(fd, data.data() + off, data.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail("{}: write: {}", path, errno_text(errno));
    off += static_cast<size_t>(n);
  }
  return {};
}

std::string folder_of(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// Replace path with data: a fresh temporary file beside it (never through a link), 0600, synced,
// renamed over path (rename replaces a link at path instead of following it).
Status replace_login_file(const std::string& path, const std::string& data) {
  std::string tmp = path + ".awaywork-XXXXXX";
  int raw = ::mkostemp(tmp.data(), O_CLOEXEC);
  if (raw < 0) return fail("{}: create a temporary file: {}", tmp, errno_text(errno));
  Fd fd(raw);
  auto cleanup_fail = [&](Status s) {
    ::unlink(tmp.c_str());
    return s;
  };
  if (::fchmod(fd.get(), 0600) != 0)
    return cleanup_fail(fail("{}: chmod: {}", tmp, errno_text(errno)));
  if (auto ok = write_bytes(fd.get(), data, tmp); !ok) return cleanup_fail(ok);
  if (::fsync(fd.get()) != 0) return cleanup_fail(fail("{}: fsync: {}", tmp, errno_text(errno)));
  if (::rename(tmp.c_str(), path.c_str()) != 0)
    return cleanup_fail(fail("{}: rename: {}", path, errno_text(errno)));
  Fd dir(::open(folder_of(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir.get() >= 0) (void)::fsync(dir.get());
  return {};
}

// Holds an exclusive flock on a lock file for its lifetime.
class FileLock {
 public:
  static Result<FileLock> take(const std::string& path) {
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return fail("lock {}: {}", path, errno_text(errno));
    // Blocking: the only holders are other units returning their copy, for milliseconds.
    while (::flock(fd, LOCK_EX) != 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      return fail("lock {}: {}", path, errno_text(err));
    }
    return FileLock(fd);
  }
  FileLock(FileLock&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  FileLock& operator=(FileLock&&) = delete;
  ~FileLock() {
    if (fd_ >= 0) ::close(fd_);  // closing releases the flock
  }

 private:
  explicit FileLock(int fd) : fd_(fd) {}
  int fd_;
};

nlohmann::json parse_object(const std::string& text) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  return j.is_object() ? j : nlohmann::json();
}

// A member as JSON (null when absent), for "same value" comparisons.
nlohmann::json member(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it == j.end() ? nlohmann::json() : *it;
}

std::string account_of(const nlohmann::json& j) {
  auto tokens = member(j, "tokens");
  if (!tokens.is_object()) return "";
  auto id = member(tokens, "account_id");
  return id.is_string() ? id.get<std::string>() : "";
}

Result<int64_t> last_refresh_of(const nlohmann::json& j) {
  auto v = member(j, "last_refresh");
  if (!v.is_string()) return fail("no last_refresh timestamp");
  return parse_rfc3339(v.get<std::string>());
}

// Why the unit's login is not a genuine refresh of the lent one; "" when it is.
std::string why_not_a_refresh(const nlohmann::json& lent, const nlohmann::json& unit) {
  if (unit.is_null()) return "the unit's auth.json is not a JSON object";
  if (member(lent, "auth_mode") != member(unit, "auth_mode")) return "the auth_mode differs";
  auto lent_key = member(lent, "OPENAI_API_KEY"), unit_key = member(unit, "OPENAI_API_KEY");
  if (lent_key.is_null() != unit_key.is_null()) return "an OPENAI_API_KEY was added or removed";
  if (lent_key != unit_key) return "the OPENAI_API_KEY differs";
  std::string account = account_of(lent);
  if (account.empty()) return "the lent login has no tokens.account_id to compare";
  if (account_of(unit) != account) return "tokens.account_id differs (another account)";
  auto before = last_refresh_of(lent);
  if (!before) return "the lent login's last_refresh is unreadable: " + before.error().message;
  auto after = last_refresh_of(unit);
  if (!after) return "the unit's last_refresh is unreadable: " + after.error().message;
  if (*after <= *before) return "last_refresh is not newer than the lent one";
  return "";
}

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

int to_int(std::string_view s) {
  int n = 0;
  for (char c : s) n = n * 10 + (c - '0');
  return n;
}

}  // namespace

Result<int64_t> parse_rfc3339(const std::string& text) {
  std::string_view s = text;
  auto bad = [&] { return fail("'{}' is not an RFC 3339 timestamp", text); };
  // YYYY-MM-DDTHH:MM:SS
  if (s.size() < 20 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') ||
      s[13] != ':' || s[16] != ':')
    return bad();
  for (auto [at, len] : {std::pair{0, 4}, {5, 2}, {8, 2}, {11, 2}, {14, 2}, {17, 2}})
    if (!all_digits(s.substr(at, len))) return bad();
  std::tm tm{};
  tm.tm_year = to_int(s.substr(0, 4)) - 1900;
  tm.tm_mon = to_int(s.substr(5, 2)) - 1;
  tm.tm_mday = to_int(s.substr(8, 2));
  tm.tm_hour = to_int(s.substr(11, 2));
  tm.tm_min = to_int(s.substr(14, 2));
  tm.tm_sec = to_int(s.substr(17, 2));
  if (tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 || tm.tm_min > 59 ||
      tm.tm_sec > 60)
    return bad();
  size_t i = 19;
  int64_t nanos = 0;
  if (i < s.size() && s[i] == '.') {
    size_t start = ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    if (i == start) return bad();
    std::string_view frac = s.substr(start, std::min<size_t>(i - start, 9));
    nanos = to_int(frac);
    for (size_t k = frac.size(); k < 9; ++k) nanos *= 10;
  }
  int64_t offset = 0;
  std::string_view zone = s.substr(i);
  if (zone == "Z" || zone == "z") {
    offset = 0;
  } else if (zone.size() == 6 && (zone[0] == '+' || zone[0] == '-') && zone[3] == ':' &&
             all_digits(zone.substr(1, 2)) && all_digits(zone.substr(4, 2))) {
    offset = (to_int(zone.substr(1, 2)) * 60 + to_int(zone.substr(4, 2))) * 60;
    if (zone[0] == '-') offset = -offset;
  } else {
    return bad();
  }
  int64_t secs = static_cast<int64_t>(::timegm(&tm)) - offset;
  return secs * 1000000000 + nanos;
}

Result<Lease> lend_codex_login(const std::string& owner_auth_path,
                               const std::string& unit_codex_home) {
  AW_TRY(FileRead owner, with_context(read_no_follow(owner_auth_path), "Codex login"));
  if (owner.st.st_uid != ::geteuid())
    return fail("Codex login {}: owned by uid {}, not by you (uid {}); refusing to lend it",
                owner_auth_path, owner.st.st_uid, ::geteuid());
  AW_TRY(DirId home, with_context(dir_id(unit_codex_home), "the unit's CODEX_HOME"));
  (void)home;
  std::string unit_path = unit_codex_home + "/auth.json";
  Fd out(::open(unit_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (out.get() < 0) return fail("lend the Codex login to {}: {}", unit_path, errno_text(errno));
  if (::fchmod(out.get(), 0600) != 0)
    return fail("lend the Codex login to {}: chmod: {}", unit_path, errno_text(errno));
  AW_CHECK(write_bytes(out.get(), owner.bytes, unit_path));
  Lease lease;
  lease.owner_path = owner_auth_path;
  lease.unit_path = unit_path;
  lease.lent_sha256 = sha256_hex(owner.bytes);
  lease.lent_bytes = std::move(owner.bytes);
  lease.dev = owner.st.st_dev;
  lease.ino = owner.st.st_ino;
  lease.mtime_ns = mtime_ns(owner.st);
  return lease;
}

Result<std::string> return_codex_login(const Lease& lease, const std::string& unit_auth_path) {
  const std::string kept = "the owner's Codex login is unchanged";
  // O_NOFOLLOW guards the file's own name; its folder must not have become a link either.
  if (auto home = dir_id(folder_of(unit_auth_path)); !home)
    return fmt::format("not saved: the unit's CODEX_HOME: {}; {}", home.error().message, kept);
  auto unit = read_no_follow(unit_auth_path);
  if (!unit) return fmt::format("not saved: {}; {}", unit.error().message, kept);
  if (unit->bytes == lease.lent_bytes)
    return fmt::format("not saved: the unit did not refresh the Codex login; {}", kept);
  std::string why = why_not_a_refresh(parse_object(lease.lent_bytes), parse_object(unit->bytes));
  if (!why.empty())
    return fmt::format("not saved: the unit's Codex login is not a genuine refresh ({}); {}", why,
                       kept);

  // From here to the rename, no other unit's return runs (Codex itself does not take this lock:
  // the byte comparison right before the rename is what keeps an owner's own refresh).
  AW_TRY(FileLock lock, FileLock::take(lease.owner_path + ".awaywork-lock"));
  auto now = read_no_follow(lease.owner_path);
  if (!now) return fmt::format("not saved: the owner's file: {}; {}", now.error().message, kept);
  if (now->bytes != lease.lent_bytes)
    return fmt::format(
        "not saved: the owner's Codex login changed since it was lent (refreshed "
        "or replaced elsewhere: sha256 {} now, {} lent); {}",
        sha256_hex(now->bytes).substr(0, 12), lease.lent_sha256.substr(0, 12), kept);
  if (now->st.st_uid != ::geteuid())
    return fmt::format("not saved: the owner's file is no longer owned by uid {}; {}", ::geteuid(),
                       kept);
  AW_CHECK(with_context(replace_login_file(lease.owner_path, unit->bytes),
                        "save the refreshed Codex login"));
  return fmt::format(
      "saved the unit's refreshed Codex login (same account, newer last_refresh) "
      "to {}",
      lease.owner_path);
}

}  // namespace aw
