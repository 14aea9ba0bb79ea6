#include "isolate/user/handoff.h"

#include <stdlib.h>
#include <unistd.h>

#include <cerrno>

#include "isolate/user/sudoers.h"
#include "proc/capture.h"

namespace aw {

namespace {

constexpr const char* kSudo = "/usr/bin/sudo";

// sudo's own environment: nothing of the caller's.
std::vector<std::string> sudo_env() {
  return {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C"};
}

Status run_sudo(std::vector<std::string> argv) {
  std::string shown;
  for (const auto& a : argv) shown += (shown.empty() ? "" : " ") + a;
  AW_TRY(Captured c, capture({std::move(argv), sudo_env(), "/", ""}));
  if (c.exit_code != 0)
    return fail("`{}` exited {}: {}", shown, c.exit_code, c.err.empty() ? c.out : c.err);
  return {};
}

std::string folder_list(const std::vector<UnitFolder>& folders) {
  std::string s;
  for (const auto& f : folders) s += (s.empty() ? "" : ", ") + f.path;
  return s;
}

Status lost(const Handoff& h, const Error& e) {
  return fail("unit lost: {}; nothing of it is published; folders left for inspection: {}",
              e.message, folder_list(h.folders));
}

}  // namespace

bool is_unit_path(const std::string& path) {
  const std::string prefix = "/tmp/awaywork-";
  if (path.size() != prefix.size() + 6 || path.compare(0, prefix.size(), prefix) != 0) return false;
  for (size_t i = prefix.size(); i < path.size(); ++i) {
    char c = path[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) return false;
  }
  return true;
}

Result<UnitFolder> make_unit_folder() {
  char tmpl[] = "/tmp/awaywork-XXXXXX";
  if (!::mkdtemp(tmpl)) return fail("mkdtemp /tmp/awaywork-XXXXXX: {}", errno_text(errno));
  std::string path = tmpl;
  if (!is_unit_path(path))
    return fail("mkdtemp made {}, which the sudoers rules do not match", path);
  AW_TRY(DirId id, dir_id(path));
  return UnitFolder{path, id};
}

Status hand_to_worker(const UnitFolder& f, const WorkerUser& worker) {
  if (!is_unit_path(f.path)) return fail("{} is not a unit folder /tmp/awaywork-XXXXXX", f.path);
  if (!is_plain_user_name(worker.name)) return fail("bad worker name '{}'", worker.name);
  return with_context(
      run_sudo({kSudo, "-n", chown_path(), "-R", "-h", "-P", worker.name + ":", f.path}),
      "hand " + f.path + " to " + worker.name);
}

Status hand_back(const UnitFolder& f, uid_t uid, gid_t gid) {
  if (!is_unit_path(f.path)) return fail("{} is not a unit folder /tmp/awaywork-XXXXXX", f.path);
  return with_context(run_sudo({kSudo, "-n", chown_path(), "-R", "-h", "-P",
                                fmt::format("{}:{}", uid, gid), f.path}),
                      "take back " + f.path);
}

Status verify_same(const UnitFolder& f) {
  auto id = dir_id(f.path);
  if (!id) return fail("{} was replaced: {}", f.path, id.error().message);
  if (!(*id == f.id))
    return fail("{} was replaced by another directory (device/inode {}/{} instead of {}/{})",
                f.path, id->dev, id->ino, f.id.dev, f.id.ino);
  return {};
}

Status before_phase(const Handoff& h) {
  for (const auto& f : h.folders) {
    if (auto s = verify_same(f); !s) return lost(h, s.error());
    if (auto s = hand_to_worker(f, h.worker); !s) return lost(h, s.error());
  }
  return {};
}

Status after_phase(const Handoff& h) {
  if (auto s = kill_worker_processes(h.worker); !s) return lost(h, s.error());
  // Every folder is taken back before any is judged, so that a lost unit is left owned by the
  // owner (inspectable, removable) as far as the chown can reach.
  Status first_error;
  for (const auto& f : h.folders)
    if (auto s = hand_back(f, h.owner_uid, h.owner_gid); !s && first_error) first_error = s;
  if (!first_error) return lost(h, first_error.error());
  for (const auto& f : h.folders)
    if (auto s = verify_same(f); !s) return lost(h, s.error());
  if (auto s = close_permissions(h.folders, h.owner_uid); !s) return lost(h, s.error());
  return {};
}

Status remove_unit_folder(const UnitFolder& f) {
  if (!is_unit_path(f.path)) return fail("{} is not a unit folder", f.path);
  AW_CHECK(verify_same(f));
  return remove_tree(f.path);
}

}  // namespace aw
