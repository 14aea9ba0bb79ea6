// isolation user: the phases run as the worker Unix user (DESIGN.md section 3), through the
// building blocks of isolate/user/. The clone and the HOME each live in a unit folder
// /tmp/awaywork-XXXXXX (the only paths the sudoers chown rule matches); the shadow git dir stays
// in the owner's run folder and is never handed over. Around every phase the two folders are
// handed to the worker and taken back (handoff.h); the phase itself runs under a warden
// (warden.h) that kills whatever the worker left, which the owner's keeper could not.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <optional>

#include "base/fs.h"
#include "isolate/user/handoff.h"
#include "isolate/user/locations.h"
#include "isolate/user/user_checks.h"
#include "isolate/user/warden.h"
#include "isolate/user/worker_lock.h"
#include "unit/isolator.h"
#include "unit/steps.h"

namespace aw {

namespace {

class UserIsolator : public Isolator {
 public:
  UserIsolator(WorkerUser worker, uid_t uid, gid_t gid, int lock, std::string note)
      : note_(std::move(note)), lock_(lock) {
    handoff_.worker = std::move(worker);
    handoff_.owner_uid = uid;
    handoff_.owner_gid = gid;
  }

  ~UserIsolator() override { ::close(lock_); }
  UserIsolator(const UserIsolator&) = delete;
  UserIsolator& operator=(const UserIsolator&) = delete;

  // The clone goes INTO its unit folder (make_clone refuses an existing folder), so the worker
  // can never rename the folder the chown rule names; HOME is a unit folder of its own.
  Result<UnitPaths> layout(const RunDir& dir) override {
    run_root_ = dir.root;
    AW_TRY(UnitFolder clone, make_unit_folder());
    handoff_.folders.push_back(clone);
    AW_TRY(UnitFolder home, make_unit_folder());
    handoff_.folders.push_back(home);
    paths_ = {clone.path + "/work", home.path, home.path + "/tmp", home.path + "/outputs",
              home.path + "/prompt.md"};
    for (const auto* sub : {&paths_.tmp, &paths_.outputs})
      if (::mkdir(sub->c_str(), 0700) != 0) return fail("create {}: {}", *sub, errno_text(errno));
    AW_TRY(outputs_id_, dir_id(paths_.outputs));
    write_locations(false);
    return paths_;
  }

  Status ready(const Clone& clone, const UnitPaths&) override {
    work_id_ = clone.work_id;
    return {};
  }

  Status before_phase() override {
    handed_ = true;
    return aw::before_phase(handoff_);
  }

  Result<Launcher> launcher(const PhasePlan&, int index) override {
    return make_warded_worker_launcher(handoff_.worker, report_path(index));
  }

  // The worker's own name, not the owner's, in USER and LOGNAME.
  std::vector<std::pair<std::string, std::string>> extra_env() const override {
    return {{"USER", handoff_.worker.name}, {"LOGNAME", handoff_.worker.name}};
  }

  Status after_phase(int index, std::vector<std::string>& notes) override {
    WardenReport rep = read_warden_report(report_path(index));
    AW_CHECK(take_back());
    if (!rep.failure.empty())
      return fail("unit lost: the worker's processes could not be proved gone: {}", rep.failure);
    if (rep.killed > 0) {
      std::string names;
      for (const auto& n : rep.names) names += (names.empty() ? "" : ", ") + n;
      notes.push_back(
          fmt::format("the phase left {} process(es) of worker {} running ({}); "
                      "killed, and none survived",
                      rep.killed, handoff_.worker.name, names));
    }
    // What collect reads must still be what layout made: a link or another folder in their
    // place loses the unit (git's own checks come next, in the pipeline).
    auto out = dir_id(paths_.outputs);
    if (!out || !(*out == outputs_id_))
      return fail("unit lost: {} was replaced; folders left for inspection: {}, {}", paths_.outputs,
                  handoff_.folders[0].path, handoff_.folders[1].path);
    if (work_id_) {
      auto w = dir_id(paths_.work);
      if (!w || !(*w == *work_id_))
        return fail("unit lost: the clone {} was replaced; folders left for inspection: {}, {}",
                    paths_.work, handoff_.folders[0].path, handoff_.folders[1].path);
    }
    return {};
  }

  // HOME goes with the unit unless it was lost; the clone's folder stays for inspection, like
  // the clone of isolation none (its path is in the run folder's isolation.json).
  void finish(bool lost) override {
    if (handoff_.folders.size() < 2) {  // layout failed half-way: nothing ran
      for (const auto& f : handoff_.folders) (void)remove_unit_folder(f);
      return;
    }
    if (handed_ && !take_back()) lost = true;  // a phase ended before after_phase ran
    if (!lost) {
      (void)remove_unit_folder(handoff_.folders[1]);
      if (!work_id_) (void)remove_unit_folder(handoff_.folders[0]);  // no clone was made
    }
    write_locations(!lost);
  }

  std::string sandbox_note() const override { return note_; }

 private:
  Status take_back() {
    handed_ = false;
    return aw::after_phase(handoff_);
  }

  std::string report_path(int index) const {
    return fmt::format("{}/warden-{}.txt", run_root_, index);
  }

  // Where the unit's folders are, for the owner who looks at the run folder.
  // Crash recovery reads it too (isolate/user/locations.h).
  void write_locations(bool home_removed) {
    UserUnitLocations l{handoff_.worker.name, paths_.work, paths_.home, home_removed,
                        handoff_.folders};
    (void)aw::write_locations(run_root_ + "/isolation.json", l);
  }

  std::string note_;
  Handoff handoff_;
  UnitPaths paths_;
  std::string run_root_;
  DirId outputs_id_{};
  std::optional<DirId> work_id_;
  bool handed_ = false;
  int lock_;
};

}  // namespace

Result<std::unique_ptr<Isolator>> make_user_isolator(const Config& cfg, const Target&,
                                                     const std::string&) {
  if (cfg.sandbox.mode == SandboxMode::required)
    return fail(
        "sandbox mode `required`, but isolation `user` does not layer the OS sandbox "
        "yet; set `sandbox: {{mode: preferred}}` to run as the worker unsandboxed "
        "(recorded on the unit)");
  AW_TRY(UserCheckInput in, current_owner(cfg.worker_user));
  AW_CHECK(user_isolation_ready(in));
  AW_TRY(WorkerUser worker, lookup_worker(cfg.worker_user));
  AW_TRY(int lock, lock_worker(state_dir_of(cfg), worker.name));
  return std::unique_ptr<Isolator>(
      new UserIsolator(std::move(worker), in.owner_uid, in.owner_gid, lock,
                       "unsandboxed: isolation user does not layer the OS sandbox yet"));
}

}  // namespace aw
