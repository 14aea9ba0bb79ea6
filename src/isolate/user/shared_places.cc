#include "isolate/user/shared_places.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "base/fs.h"
#include "base/mountinfo.h"
#include "base/unique_fd.h"
#include "isolate/user/leftovers.h"

namespace aw {

namespace {

using Clock = std::chrono::steady_clock;

bool under(const std::string& path, const std::string& top) {
  return path == top || path.rfind(top + "/", 0) == 0;
}

// Mode bits for uid and its only group (the worker is in no other group): one class applies.
bool mode_allows(const struct stat& st, uid_t uid, gid_t gid, mode_t user_bits) {
  mode_t bits = st.st_uid == uid ? user_bits : st.st_gid == gid ? user_bits >> 3 : user_bits >> 6;
  return (st.st_mode & bits) == bits;
}
bool searchable_by(const struct stat& st, uid_t uid, gid_t gid) {
  return mode_allows(st, uid, gid, S_IXUSR);
}
bool writable(const struct stat& st, uid_t uid, gid_t gid) {
  return mode_allows(st, uid, gid, S_IWUSR | S_IXUSR);
}

// Can uid/gid get to path at all: every folder above it searchable (links are not taken: the
// mount table's paths have none).
bool reachable(const std::string& path, uid_t uid, gid_t gid) {
  std::string at = "/";
  std::istringstream parts(path);
  std::string part;
  while (true) {
    struct stat st {};
    if (::lstat(at.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return false;
    if (!std::getline(parts, part, '/')) return true;
    while (part.empty())
      if (!std::getline(parts, part, '/')) return true;
    if (!searchable_by(st, uid, gid)) return false;
    at = at == "/" ? "/" + part : at + "/" + part;
  }
}

class Search {
 public:
  Search(uid_t uid, gid_t gid, const SharedPlacesLimits& lim)
      : uid_(uid), gid_(gid), lim_(lim), until_(Clock::now() + lim.budget) {}

  // The folder dfd (at path, on dev): a place, or searched below.
  void folder(int dfd, const std::string& path, const struct stat& st, int depth) {
    if (stopped()) return;
    if (writable(st, uid_, gid_)) {
      add(path);
      return;
    }
    if (!searchable_by(st, uid_, gid_) || depth > lim_.max_depth) return;
    int dup = ::fcntl(dfd, F_DUPFD_CLOEXEC, 0);
    DIR* d = dup < 0 ? nullptr : ::fdopendir(dup);
    if (!d) {
      if (dup >= 0) ::close(dup);
      return;  // not listable by this process: what it cannot list it cannot search
    }
    while (struct dirent* e = ::readdir(d)) {
      if (!std::strcmp(e->d_name, ".") || !std::strcmp(e->d_name, "..")) continue;
      if (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN) continue;  // no stat for every file
      struct stat cs {};
      if (::fstatat(dfd, e->d_name, &cs, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(cs.st_mode) ||
          cs.st_dev != st.st_dev)
        continue;  // a link, or another mount (searched as its own)
      if (++seen_ > lim_.max_folders) {
        why_ = fmt::format("it stopped after {} folders", lim_.max_folders);
        break;
      }
      UniqueFd c(::openat(dfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (!c) continue;
      // Appended in place: GCC 12's -O3 -Wrestrict misreads "/" + std::string(...).
      std::string child = path == "/" ? std::string() : path;
      child.append("/").append(e->d_name);
      folder(c.fd, child, cs, depth + 1);
      if (stopped()) break;
    }
    ::closedir(d);
  }

  void add(const std::string& path) {
    if (std::find(found_.begin(), found_.end(), path) != found_.end()) return;
    if (found_.size() >= lim_.max_places) {
      why_ = fmt::format("it stopped at {} places", lim_.max_places);
      return;
    }
    found_.push_back(path);
  }

  bool stopped() {
    if (!why_.empty()) return true;
    if ((seen_ & 1023) == 0 && Clock::now() > until_)
      why_ = fmt::format("it stopped after {} s", lim_.budget.count() / 1000);
    return !why_.empty();
  }

  std::vector<std::string> found_;
  std::string why_;

 private:
  uid_t uid_;
  gid_t gid_;
  SharedPlacesLimits lim_;
  Clock::time_point until_;
  size_t seen_ = 0;
};

}  // namespace

std::vector<MountEntry> parse_mountinfo(const std::string& text) {
  // ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPEROPTIONS
  std::vector<MountEntry> out;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream f(line);
    std::vector<std::string> w;
    for (std::string s; f >> s;) w.push_back(s);
    auto dash = std::find(w.begin(), w.end(), "-");
    if (w.size() < 6 || dash == w.end() || dash - w.begin() < 6 || dash + 1 == w.end()) continue;
    MountEntry m;
    m.path = mountinfo_unescape(w[4]);
    m.type = *(dash + 1);
    std::istringstream opts(w[5]);
    for (std::string o; std::getline(opts, o, ',');)
      if (o == "ro") m.read_only = true;
    if (!m.path.empty() && m.path[0] == '/') out.push_back(std::move(m));
  }
  return out;
}

bool mount_to_search(const MountEntry& m) {
  if (m.read_only) return false;
  if (under(m.path, "/proc") || under(m.path, "/sys")) return false;
  if (under(m.path, "/dev") && !under(m.path, "/dev/shm") && !under(m.path, "/dev/mqueue"))
    return false;
  // Pseudo file systems (nothing a user leaves there outlives its processes, or only root
  // writes), network and host shares (slow to walk, and not this machine's to sweep), fuse
  // (without allow_other only its own user reaches it) and read-only images.
  static const char* const skip[] = {
      "proc",    "sysfs",       "cgroup",   "cgroup2", "devpts",     "devtmpfs", "debugfs",
      "tracefs", "securityfs",  "pstore",   "bpf",     "configfs",   "fusectl",  "hugetlbfs",
      "autofs",  "binfmt_misc", "efivarfs", "nsfs",    "rpc_pipefs", "nfsd",     "selinuxfs",
      "smackfs", "nfs",         "nfs4",     "cifs",    "smb3",       "smbfs",    "ncpfs",
      "ceph",    "glusterfs",   "lustre",   "gpfs",    "afs",        "9p",       "virtiofs",
      "vboxsf",  "vmhgfs",      "drvfs",    "fuse",    "squashfs",   "iso9660",  "udf",
      "erofs",   "cramfs"};
  for (const char* s : skip)
    if (m.type == s) return false;
  return m.type.rfind("fuse.", 0) != 0;
}

SharedPlaces find_shared_places(uid_t uid, gid_t gid, const std::vector<MountEntry>& mounts,
                                const SharedPlacesLimits& limits) {
  Search s(uid, gid, limits);
  std::vector<std::string> paths;
  for (const auto& m : mounts)
    if (mount_to_search(m) && std::find(paths.begin(), paths.end(), m.path) == paths.end())
      paths.push_back(m.path);
  std::sort(paths.begin(), paths.end());
  for (const auto& p : paths) {
    if (!reachable(p, uid, gid)) continue;
    UniqueFd fd(::open(p.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    struct stat st {};
    if (!fd || ::fstat(fd.fd, &st) != 0) continue;
    s.folder(fd.fd, p, st, 0);
    if (s.stopped()) break;
  }
  SharedPlaces out;
  // The usual three come first and always (the sweep's floor, whatever the search found).
  for (const auto& r : leftover_roots()) {
    struct stat st {};
    if (::lstat(r.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) out.roots.push_back(r);
  }
  std::sort(s.found_.begin(), s.found_.end());
  for (auto& f : s.found_)
    if (std::find(out.roots.begin(), out.roots.end(), f) == out.roots.end())
      out.roots.push_back(std::move(f));
  if (!s.why_.empty())
    out.incomplete = "the search for world-writable folders was cut short: " + s.why_;
  return out;
}

SharedPlaces shared_places(uid_t uid, gid_t gid) {
  // A few minutes: a folder opened to everyone later is found by the next unit after that; the
  // search under the lock, so two units ending together walk once.
  static std::mutex mutex;
  static std::optional<SharedPlaces> cached;
  static uid_t cached_uid = 0;
  static gid_t cached_gid = 0;
  static Clock::time_point at;
  std::lock_guard<std::mutex> lock(mutex);
  if (cached && cached_uid == uid && cached_gid == gid &&
      Clock::now() - at < std::chrono::minutes(10))
    return *cached;
  cached = find_shared_places(uid, gid, parse_mountinfo(read_or_empty("/proc/self/mountinfo")));
  cached_uid = uid;
  cached_gid = gid;
  at = Clock::now();
  return *cached;
}

}  // namespace aw
