#include "isolate/user/locations.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include <nlohmann/json.hpp>

#include "base/fs.h"
#include "base/json_read.h"
#include "base/json_write.h"

namespace aw {

Status write_locations(const std::string& file, const UserUnitLocations& l) {
  nlohmann::json folders = nlohmann::json::array();
  for (const auto& f : l.folders)
    folders.push_back({{"path", f.path},
                       {"dev", static_cast<uint64_t>(f.id.dev)},
                       {"ino", static_cast<uint64_t>(f.id.ino)}});
  nlohmann::json j = {{"isolation", "user"},
                      {"worker", l.worker},
                      {"clone", l.clone},
                      {"home", l.home},
                      {"home_removed", l.home_removed},
                      {"folders", folders}};
  return write_file(file, json_text(j, 2) + "\n", 0600);
}

// Read through JsonRead (base/json_read.h): a wrongly typed field is an Error naming it, never a
// throw (the file is in the unit's run folder, read again by crash recovery).
Result<UserUnitLocations> read_locations(const std::string& file) {
  AW_TRY(std::string text, read_file(file, 1 << 20));
  auto j = nlohmann::json::parse(text, nullptr, false);
  JsonRead r(j, file);
  if (!j.is_object() || !j.contains("isolation") || j["isolation"] != "user")
    return fail("{}: not the locations of a user unit", file);
  UserUnitLocations l;
  AW_TRY(l.worker, r.str_or("worker", ""));
  AW_TRY(l.clone, r.str_or("clone", ""));
  AW_TRY(l.home, r.str_or("home", ""));
  AW_TRY(l.home_removed, r.bool_or("home_removed", false));
  AW_TRY(std::vector<JsonRead> folders, r.array_or("folders"));
  for (const JsonRead& f : folders) {
    AW_TRY(std::string path, f.str("path"));
    AW_TRY(uint64_t dev, f.uint_in<uint64_t>("dev"));
    AW_TRY(uint64_t ino, f.uint_in<uint64_t>("ino"));
    l.folders.push_back({path, DirId{static_cast<dev_t>(dev), static_cast<ino_t>(ino)}});
  }
  return l;
}

namespace {

// Mode 700 on the folder itself, never through a link.
Status close_top(const UnitFolder& f) {
  int fd = ::open(f.path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return fail("open {}: {}", f.path, errno_text(errno));
  int rc = ::fchmod(fd, 0700);
  int e = errno;
  ::close(fd);
  if (rc != 0) return fail("chmod 700 {}: {}", f.path, errno_text(e));
  return {};
}

}  // namespace

Result<std::string> reclaim_abandoned(const UserUnitLocations& l, uid_t owner_uid,
                                      gid_t owner_gid) {
  AW_TRY(WorkerUser worker, lookup_worker(l.worker));
  std::vector<std::string> said;
  if (auto k = kill_worker_processes(worker); !k)
    said.push_back("the worker's processes could not be proved gone: " + k.error().message);
  else
    said.push_back("no process of worker " + worker.name + " left");
  for (const auto& f : l.folders) {
    struct stat st {};
    if (::lstat(f.path.c_str(), &st) != 0 && errno == ENOENT) continue;  // removed with the unit
    if (auto s = hand_back(f, owner_uid, owner_gid); !s) {
      said.push_back(s.error().message);
      continue;
    }
    if (auto s = verify_same(f); !s) {
      said.push_back(s.error().message + " (left as it is)");
      continue;
    }
    if (auto s = close_top(f); !s) {
      said.push_back(s.error().message);
      continue;
    }
    said.push_back("took back " + f.path + " (mode 700, left for inspection)");
  }
  std::string text;
  for (const auto& s : said) text += (text.empty() ? "" : "; ") + s;
  return text;
}

}  // namespace aw
