#include "plugin/worker_call.h"

#include <sys/stat.h>
#include <unistd.h>

#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "isolate/user/socket_grant.h"
#include "isolate/user/warden.h"
#include "isolate/user/worker_lock.h"
#include "plugin/program_path.h"

namespace aw {

namespace {

bool has(const struct stat& st, const WorkerUser& w, mode_t u, mode_t g, mode_t o) {
  if (st.st_uid == w.uid) return st.st_mode & u;
  if (st.st_gid == w.gid) return st.st_mode & g;
  return st.st_mode & o;
}

// As worker_sandbox.cc's: a sticky folder others may write (/tmp, /var/tmp) lets nobody rename
// another's entry, so it counts as not writable.
bool writable(const struct stat& st, const WorkerUser& w) {
  if (!has(st, w, S_IWUSR, S_IWGRP, S_IWOTH)) return false;
  return st.st_uid == w.uid || !(S_ISDIR(st.st_mode) && (st.st_mode & S_ISVTX));
}

// Why the worker cannot read path by its mode bits (every folder above it searchable, itself
// readable, a folder also searchable) or, with unchanged, could change it or a folder above it;
// "" when it can read it and (unchanged) not change it. The worker is in no other group
// (user_checks.h), so its uid, its own group and "others" are all there is to look at.
std::string unreachable(const std::string& path, const WorkerUser& w, bool unchanged) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return fmt::format("{} does not exist", path);
  bool dir = S_ISDIR(st.st_mode);
  if (!has(st, w, S_IRUSR, S_IRGRP, S_IROTH) || (dir && !has(st, w, S_IXUSR, S_IXGRP, S_IXOTH)))
    return fmt::format("{} is not readable by {}", path, w.name);
  if (unchanged && writable(st, w)) return fmt::format("{} is writable by {}", path, w.name);
  for (std::string d = path.substr(0, path.rfind('/')); !d.empty(); d = d.substr(0, d.rfind('/'))) {
    if (::stat(d.c_str(), &st) != 0 || !has(st, w, S_IXUSR, S_IXGRP, S_IXOTH))
      return fmt::format("{} cannot enter {}", w.name, d);
    if (unchanged && writable(st, w)) return fmt::format("{} is writable by {}", d, w.name);
  }
  if (::stat("/", &st) != 0 || !has(st, w, S_IXUSR, S_IXGRP, S_IXOTH))
    return fmt::format("{} cannot enter /", w.name);
  return "";
}

bool under(const std::string& path, const std::string& root) {
  return path == root || path.starts_with(root + "/");
}

// This boot's id: a data folder recorded in another boot is never reused (after a reboot
// cleared /tmp, a folder of that name may be anyone's, with an inode number that happens to match).
std::string boot_id() {
  std::string id = read_or_empty("/proc/sys/kernel/random/boot_id");
  while (!id.empty() && (id.back() == '\n' || id.back() == ' ')) id.pop_back();
  return id;
}

// The plugin's data folder under isolation user, the owner's and closed, ready to hand over.
Result<UnitFolder> data_folder(const std::string& plugin_dir, const WorkerUser& w, uid_t uid,
                               gid_t gid) {
  std::string record = worker_data_record(plugin_dir);
  if (auto r = recorded_worker_data(record, w, uid)) {
    if (r->handed) {
      // A call ended without taking it back (awaywork died): nothing of the worker's may still
      // run in it when it comes back. Under the worker lock, no unit's phase runs.
      AW_CHECK(kill_worker_processes(w));
      AW_CHECK(hand_back(r->folder, uid, gid));
      AW_CHECK(verify_same(r->folder));
      AW_CHECK(record_worker_data(record, w, r->folder, false));
    }
    AW_CHECK(verify_same(r->folder));
    AW_CHECK(close_permissions({r->folder}, uid));
    return r->folder;
  }
  AW_TRY(UnitFolder f, make_unit_folder());
  AW_CHECK(record_worker_data(record, w, f, false));
  return f;
}

}  // namespace

bool held_by_a_unit(const Error& lock_error) {
  // lock_worker's own words for a unit holder (isolate/user/worker_lock.cc), at the start of its
  // message: awaywork's text alone, no plugin has run. A plugin holder it waited for, a lock file
  // it could not open are other words, and stay failures. Pinned by tests/plugin's
  // source_defer_watch_test.cc against the real lock.
  return lock_error.message.starts_with("another unit is running as worker ");
}

std::string worker_data_record(const std::string& plugin_dir) {
  return plugin_dir + "/worker-data.json";
}

std::optional<RecordedWorkerData> recorded_worker_data(const std::string& record,
                                                       const WorkerUser& w, uid_t owner) {
  auto text = read_file(record, 4096);
  if (!text) return std::nullopt;
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  auto str = [&](const char* k) {
    return j.contains(k) && j[k].is_string() ? j[k].get<std::string>() : std::string();
  };
  if (str("worker") != w.name || str("boot") != boot_id() || boot_id().empty()) return std::nullopt;
  if (!j.contains("dev") || !j["dev"].is_number_unsigned() || !j.contains("ino") ||
      !j["ino"].is_number_unsigned())
    return std::nullopt;
  RecordedWorkerData r;
  r.folder = UnitFolder{str("path"), DirId{static_cast<dev_t>(j["dev"].get<uint64_t>()),
                                           static_cast<ino_t>(j["ino"].get<uint64_t>())}};
  // A record without the word (written before it was kept) says taken back.
  r.handed = j.contains("handed") && j["handed"].is_boolean() && j["handed"].get<bool>();
  if (!is_unit_path(r.folder.path)) return std::nullopt;
  // lstat, never following a link: the name in /tmp is anyone's to make once it is gone.
  struct stat st {};
  if (::lstat(r.folder.path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) ||
      st.st_dev != r.folder.id.dev || st.st_ino != r.folder.id.ino)
    return std::nullopt;
  // Device and inode alone are not proof: a /tmp cleaner may have removed the folder and another
  // local user made one of that name that got the same inode number back, and hand_back's
  // `chown -R` as root would then take their tree. Only the owner the record says it has is ours:
  // the owner's when taken back, the worker's while handed.
  bool ours = r.handed ? st.st_uid == w.uid : st.st_uid == owner;
  if (!ours) return std::nullopt;
  return r;
}

Status record_worker_data(const std::string& record, const WorkerUser& w, const UnitFolder& f,
                          bool handed) {
  nlohmann::json j = {{"worker", w.name},
                      {"path", f.path},
                      {"dev", static_cast<uint64_t>(f.id.dev)},
                      {"ino", static_cast<uint64_t>(f.id.ino)},
                      {"boot", boot_id()},
                      {"handed", handed}};
  return replace_file(record, j.dump() + "\n", 0600);
}

Result<std::unique_ptr<WorkerCall>> WorkerCall::open(const PluginConfig& p, const PluginWorker& w,
                                                     const std::string& plugin_dir) {
  // The owner's folders: the worker can neither reach nor write them, and awaywork changes
  // neither their owner nor their ACLs (they are the owner's files, in use outside the plugin).
  if (!p.write.empty())
    return fail(
        "plugin {}: plugins.{}.write cannot be lent under isolation user: the plugin runs as the "
        "worker {}, which can neither reach nor write your folders ({}), and awaywork changes "
        "neither their owner nor their ACLs; fix: remove plugins.{}.write (its data folder, its "
        "$HOME, is always writable and kept between calls), or run it under isolation: none",
        p.name, p.name, w.name, fmt::join(p.write, ", "), p.name);
  std::unique_ptr<WorkerCall> c(new WorkerCall());
  c->owner_uid_ = ::getuid();
  c->owner_gid_ = ::getgid();
  // The lock first: a worker busy with a unit is "not now" whatever else the call would meet, and
  // says so before anything is looked at (the lock is a file of the owner's; the destructor
  // releases it when a later step fails).
  if (!worker_locked_here(w.state_dir, w.name)) {
    auto lock = lock_worker(w.state_dir, w.name, kPluginHolder + p.name);
    if (!lock) {
      if (w.unit_busy && held_by_a_unit(lock.error())) w.unit_busy();
      return fail(
          "plugin {} did not run: under isolation user it runs as the worker {}, and {}; it "
          "runs once the worker is free (a source is asked again at the next poll)",
          p.name, w.name, lock.error().message);
    }
    c->lock_ = *lock;
  }
  AW_TRY(c->worker_,
         with_context(lookup_worker(w.name),
                      fmt::format("plugin {}: under isolation user it runs as the worker {}",
                                  p.name, w.name)));
  AW_TRY(c->data_, with_context(data_folder(plugin_dir, c->worker_, c->owner_uid_, c->owner_gid_),
                                fmt::format("plugin {}: its data folder", p.name)));
  c->record_ = worker_data_record(plugin_dir);
  AW_TRY(c->files_, with_context(WorkerSandboxFiles::make(c->worker_,
                                                          w.helper.empty() ? self_exe() : w.helper),
                                 fmt::format("plugin {}: the worker's sandbox helper", p.name)));
  return c;
}

WorkerCall::~WorkerCall() {
  if (handed_) {  // the call did not get to finish(): take the folder back all the same
    (void)kill_worker_processes(worker_);
    handed_ = false;
    if (hand_back(data_, owner_uid_, owner_gid_) && verify_same(data_)) {
      (void)record_worker_data(record_, worker_, data_, false);
      (void)close_permissions({data_}, owner_uid_);
    }
  }
  files_.reset();  // the helper folder: the plan, the proxy's socket
  if (lock_ >= 0) unlock_worker(lock_);
}

Status WorkerCall::check_reach(const PluginConfig& p, const SandboxPlan& plan) const {
  for (const auto& r : plan.readable) {
    bool own = r.why == "plugin";
    if (!own && r.why != "readable:") continue;
    bool system = false;
    for (const auto& tree : plan.system) system = system || under(r.source, tree);
    if (system) continue;
    if (std::string why = unreachable(r.source, worker_, own); !why.empty())
      return fail(
          "plugin {}: under isolation user it runs as the worker {}, and {} ({} {}); fix: put "
          "it where the worker can read it{}, e.g. under /opt or /srv (your home stays closed to "
          "the worker), then point plugins.{}.{} there and run awaywork plugin approve {}",
          p.name, worker_.name, why, own ? "its folder" : "its read: path", r.source,
          own ? " and not change it (owned by you or root, not writable by the worker)" : "",
          p.name, own ? "command" : "read", p.name);
  }
  // The program itself, besides its folder: a file the worker could rewrite between the approval's
  // hash and the start would run as approved code.
  std::string program = plugin_program_realpath(p.command.empty() ? "" : p.command[0]);
  if (!program.empty())
    if (std::string why = unreachable(program, worker_, true); !why.empty())
      return fail(
          "plugin {}: under isolation user it runs as the worker {}, and {} (its program); fix: "
          "make it readable by the worker and writable only by you or root",
          p.name, worker_.name, why);
  return {};
}

Status WorkerCall::grant_socket(const std::string& socket) const {
  return grant_socket_to(socket, worker_.uid);
}

Result<Launcher> WorkerCall::launcher(const SandboxPlan& plan, const std::string& report) {
  AW_TRY(std::string plan_file, files_->write_plan(plan, 0));
  // Recorded before the chown: a later call that finds the folder the worker's (this process died
  // before taking it back) knows it handed it, and takes back nothing else.
  AW_CHECK(with_context(record_worker_data(record_, worker_, data_, true), "its data folder"));
  handed_ = true;  // set first: a chown that half-ran is taken back too
  AW_CHECK(with_context(hand_to_worker(data_, worker_), "its data folder"));
  return make_warded_worker_launcher(worker_, report, WorkerSandbox{files_->helper(), plan_file},
                                     plan);
}

Status WorkerCall::finish(const std::string& report) {
  WardenReport rep = read_warden_report(report);
  if (!rep.failure.empty()) (void)kill_worker_processes(worker_);
  handed_ = false;
  Status back = hand_back(data_, owner_uid_, owner_gid_);
  if (back) back = verify_same(data_);
  // Taken back: the record says so, or the next call would refuse the owner's folder as not ours.
  if (back) back = record_worker_data(record_, worker_, data_, false);
  if (back) back = close_permissions({data_}, owner_uid_);
  if (!rep.failure.empty())
    return fail("the worker's processes could not be proved gone after the call: {}", rep.failure);
  if (!back)
    return fail("its data folder {} could not be taken back from the worker: {}", data_.path,
                back.error().message);
  return {};
}

}  // namespace aw
