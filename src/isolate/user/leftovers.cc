#include "isolate/user/leftovers.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <functional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/fs.h"
#include "base/inert.h"
#include "base/json_write.h"
#include "base/random.h"
#include "base/unique_fd.h"
#include "isolate/user/ipc_leftovers.h"
#include "isolate/user/shared_places.h"
#include "proc/capture.h"

namespace aw {

namespace {

using json = nlohmann::json;

constexpr const char* kMode = "__sweep-worker";
// Deeper folders of the worker's are moved up to the root and removed from there: the walk holds
// one descriptor per level, and a planted chain of thousands of levels must not exhaust them.
constexpr int kMaxDepth = 48;
// A walk of other users' trees goes no deeper (a tree the worker could not write into anyway).
constexpr int kMaxWalkDepth = 64;
constexpr size_t kMaxNames = 4096;  // reported, per list

using Fd = UniqueFd;

// The entry names of a folder, read before anything in it changes.
std::vector<std::string> names_in(int dfd) {
  std::vector<std::string> out;
  int dup = ::fcntl(dfd, F_DUPFD_CLOEXEC, 0);
  DIR* d = dup < 0 ? nullptr : ::fdopendir(dup);
  if (!d) {
    if (dup >= 0) ::close(dup);
    return out;
  }
  while (struct dirent* e = ::readdir(d))
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0)
      out.emplace_back(e->d_name);
  ::closedir(d);
  return out;
}

int open_dir_at(int dfd, const std::string& name) {
  return ::openat(dfd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

using OnOwned = std::function<void(int dfd, const std::string& name, const std::string& path,
                                   const struct stat& st)>;

// May uid/gid search the folder st (mode bits; the worker has no group but its own)? What it
// cannot enter it cannot have written into: neither walk goes there (the owner's would otherwise
// read every private tree of other users, root's most of all).
bool searchable(const struct stat& st, uid_t uid, gid_t gid) {
  mode_t bit = st.st_uid == uid ? S_IXUSR : st.st_gid == gid ? S_IXGRP : S_IXOTH;
  return (st.st_mode & bit) != 0;
}

// Calls on_owned for each top-most entry owned by uid below dfd; enters nothing else's folders
// that lie on another file system, in keep, that uid/gid cannot search or this process cannot
// open.
void walk(int dfd, const std::string& path, uid_t uid, gid_t gid, dev_t dev,
          const std::vector<std::string>& keep, int depth, const OnOwned& on_owned) {
  if (depth > kMaxWalkDepth) return;
  for (const auto& name : names_in(dfd)) {
    std::string child = path == "/" ? "/" + name : path + "/" + name;
    if (std::find(keep.begin(), keep.end(), child) != keep.end()) continue;
    struct stat st {};
    if (::fstatat(dfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (st.st_uid == uid) {
      on_owned(dfd, name, child, st);
      continue;
    }
    if (!S_ISDIR(st.st_mode) || st.st_dev != dev || !searchable(st, uid, gid)) continue;
    Fd c(open_dir_at(dfd, name));
    if (c.fd >= 0) walk(c.fd, child, uid, gid, dev, keep, depth + 1, on_owned);
  }
}

void walk_roots(uid_t uid, gid_t gid, const std::vector<std::string>& roots,
                const std::vector<std::string>& keep, const OnOwned& on_owned) {
  for (const auto& root : roots) {
    Fd r(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    struct stat st {};
    if (r.fd < 0 || ::fstat(r.fd, &st) != 0) continue;  // absent here (no /dev/shm)
    walk(r.fd, root, uid, gid, st.st_dev, keep, 0, on_owned);
  }
}

// The worker's removal of the entries it owns below one root. A folder is opened up first (its mode
// may deny its own owner; its sticky bit would keep others' files in it), emptied, then removed; a
// folder too deep is moved up to the root under a fresh name and taken from there.
class Removal {
 public:
  Removal(int top, dev_t dev) : top_(top), dev_(dev) {}

  void entry(int dfd, const std::string& name, const struct stat& st, int depth) {
    if (!S_ISDIR(st.st_mode) || st.st_dev != dev_) {
      ::unlinkat(dfd, name.c_str(), S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0);
      return;
    }
    if (depth >= kMaxDepth) {
      // A name the agent cannot have planted in advance. Without randomness the folder stays
      // (going deeper would spend a descriptor a level); the owner's half reports it as remaining.
      auto tag = random_hex(8);
      if (!tag) return;
      std::string fresh = ".awaywork-sweep-" + *tag;
      if (::renameat(dfd, name.c_str(), top_, fresh.c_str()) == 0) {
        queued_.push_back(fresh);
        return;
      }
    }
    {
      Fd c(open_dir_at(dfd, name));
      if (c.fd >= 0) {
        struct stat cs {};
        if (::fstat(c.fd, &cs) == 0 && cs.st_uid == ::geteuid()) ::fchmod(c.fd, 0700);
        for (const auto& n : names_in(c.fd)) {
          struct stat s {};
          if (::fstatat(c.fd, n.c_str(), &s, AT_SYMLINK_NOFOLLOW) == 0)
            entry(c.fd, n, s, depth + 1);
        }
      }
    }
    ::unlinkat(dfd, name.c_str(), AT_REMOVEDIR);
  }

  void drain() {
    while (!queued_.empty()) {
      std::string n = std::move(queued_.front());
      queued_.pop_front();
      struct stat s {};
      if (::fstatat(top_, n.c_str(), &s, AT_SYMLINK_NOFOLLOW) == 0) entry(top_, n, s, 0);
    }
  }

 private:
  int top_;
  dev_t dev_;
  std::deque<std::string> queued_;
};

// A path as the record may hold it: a planted name is hostile (control characters, bidi, invalid
// UTF-8), so it is kept inert_line (base/inert.h), which is idempotent: the owner applies it again
// to what the worker's half printed.
void push_capped(std::vector<std::string>& v, const std::string& path) {
  if (v.size() < kMaxNames) v.push_back(inert_line(path));
}

std::vector<std::string> names_of(const json& j, const char* key) {
  std::vector<std::string> out;
  if (j.is_object() && j.contains(key) && j[key].is_array())
    for (const auto& n : j[key])
      if (n.is_string() && out.size() < kMaxNames) out.push_back(inert_line(n.get<std::string>()));
  return out;
}

std::string joined(const std::vector<std::string>& names, size_t at_most) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < at_most; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > at_most) out += fmt::format(" and {} more", names.size() - at_most);
  return out;
}

}  // namespace

std::vector<std::string> entries_owned_by(uid_t uid, gid_t gid,
                                          const std::vector<std::string>& roots,
                                          const std::vector<std::string>& keep) {
  std::vector<std::string> out;
  walk_roots(uid, gid, roots, keep,
             [&](int, const std::string&, const std::string& path, const struct stat&) {
               push_capped(out, path);
             });
  return out;
}

Result<LeftoverSweep> sweep_worker_leftovers(const WorkerUser& worker, const std::string& helper,
                                             const std::vector<std::string>& keep,
                                             const std::optional<std::vector<std::string>>& given) {
  SharedPlaces found;
  if (given)
    found.roots = *given;
  else
    found = shared_places(worker.uid, worker.gid);
  const std::vector<std::string>& roots = found.roots;
  // The first sudoers rule: the removal has the worker's rights and no more.
  std::vector<std::string> argv = {"/usr/bin/sudo", "-n", "-u", worker.name, "--", helper, kMode};
  for (const auto& k : keep) argv.insert(argv.end(), {"--keep", k});
  argv.push_back("--");
  argv.insert(argv.end(), roots.begin(), roots.end());
  AW_TRY(Captured c, capture({argv, {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C"}, "/", ""}));
  json said = json::parse(c.out, nullptr, false);
  if (c.exit_code != 0 || !said.is_object())
    return fail("the sweep as {} failed (exit {}): {}", worker.name, c.exit_code,
                inert_line(c.err.substr(0, 500)));
  LeftoverSweep out;
  out.removed = names_of(said, "removed");
  out.places = roots;
  out.incomplete = found.incomplete;
  // The proof is the owner's own walk and its own read of /proc/sysvipc; the worker's second
  // pass is what the owner cannot see.
  std::vector<std::string> left = entries_owned_by(worker.uid, worker.gid, roots, keep);
  for (const auto& o : ipc_objects_of(worker.uid)) left.push_back(describe_ipc(o));
  for (auto& n : names_of(said, "left"))
    if (std::find(left.begin(), left.end(), n) == left.end()) left.push_back(std::move(n));
  if (!left.empty())
    return fail("{} entr{} of worker {} remain after the sweep: {}", left.size(),
                left.size() == 1 ? "y" : "ies", worker.name, joined(left, 20));
  return out;
}

std::string describe_sweep(const std::string& worker, const LeftoverSweep& s) {
  std::string cut = s.incomplete.empty() ? "" : " (" + s.incomplete + ")";
  if (s.removed.empty())
    return fmt::format(
        "worker {} left nothing in the {} world-writable folder{} ({}) nor in SysV IPC{}", worker,
        s.places.size(), s.places.size() == 1 ? "" : "s", joined(s.places, 12), cut);
  return fmt::format(
      "worker {} left {} entr{} outside the unit's folders; removed, and none remain: {}{}", worker,
      s.removed.size(), s.removed.size() == 1 ? "y" : "ies", joined(s.removed, 40), cut);
}

std::optional<int> sweep_worker_main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], kMode) != 0) return std::nullopt;
  std::vector<std::string> keep, roots;
  int i = 2;
  for (; i < argc && std::strcmp(argv[i], "--") != 0; ++i) {
    if (std::strcmp(argv[i], "--keep") != 0 || i + 1 >= argc) {
      std::fprintf(stderr, "usage: awaywork %s [--keep PATH]... -- ROOT...\n", kMode);
      return 2;
    }
    keep.emplace_back(argv[++i]);
  }
  for (++i; i < argc; ++i) roots.emplace_back(argv[i]);
  json removed = json::array();
  uid_t me = ::geteuid();
  gid_t group = ::getegid();
  for (const auto& root : roots) {
    Fd r(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    struct stat st {};
    if (r.fd < 0 || ::fstat(r.fd, &st) != 0) continue;
    Removal rm(r.fd, st.st_dev);
    walk(r.fd, root, me, group, st.st_dev, keep, 0,
         [&](int dfd, const std::string& name, const std::string& path, const struct stat& s) {
           if (removed.size() < kMaxNames) removed.push_back(inert_line(path));
           rm.entry(dfd, name, s, 0);
         });
    rm.drain();
  }
  // The worker's SysV objects, in the machine's IPC namespace (this process's: sudo gives it no
  // other); its processes are gone, so none is attached or waited on.
  for (const auto& o : remove_ipc_objects_of(me))
    if (removed.size() < kMaxNames) removed.push_back(describe_ipc(o));
  json left = json::array();
  for (const auto& p : entries_owned_by(me, group, roots, keep)) left.push_back(p);
  for (const auto& o : ipc_objects_of(me)) left.push_back(describe_ipc(o));
  std::printf("%s\n", json_text(json{{"removed", removed}, {"left", left}}).c_str());
  return 0;
}

}  // namespace aw
