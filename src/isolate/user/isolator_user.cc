// isolation user: the phases run as the worker Unix user (DESIGN.md section 3), through the
// building blocks of isolate/user/. The clone and the HOME each live in a unit folder
// /tmp/awaywork-XXXXXX (the only paths the sudoers chown rule matches); the shadow git dir stays
// in the owner's run folder and is never handed over. Around every phase the two folders are
// handed to the worker and taken back (handoff.h); the phase itself runs under a warden
// (warden.h) that kills whatever the worker left, which the owner's keeper could not.
//
// With the OS sandbox (sandbox: preferred or required), the worker builds it: sudo runs
// `awaywork __sandbox-exec PLAN -- argv` as the worker (isolate/sandbox/sandbox_exec.h), which
// makes its own unprivileged user namespace and the view around the phase; the plan and that
// helper sit in a folder of the owner's the worker cannot change (worker_sandbox.h); the cgroup
// limits are set by the owner's warden before sudo. The inference proxy's socket is made in that
// folder and opened to the worker alone, so the worker's sandbox bridges it like isolation none's
// does.
#include "isolate/user/isolator_user.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <limits.h>
#include <stdlib.h>

#include <cstdlib>
#include <memory>
#include <optional>

#include "base/fs.h"
#include "config/host_env.h"
#include "config/paths.h"
#include "isolate/sandbox/sandbox.h"
#include "isolate/sandbox/unit_view.h"
#include "isolate/static_program.h"
#include "isolate/user/handoff.h"
#include "isolate/user/leftovers.h"
#include "isolate/user/locations.h"
#include "isolate/user/socket_grant.h"
#include "isolate/user/user_checks.h"
#include "isolate/user/warden.h"
#include "isolate/user/worker_lock.h"
#include "isolate/user/worker_programs.h"
#include "isolate/user/worker_sandbox.h"
#include "proc/capture.h"
#include "proxy/egress_proxy.h"

namespace aw {

namespace {

// The sandbox over the worker, when the config asks for it and the machine can build it.
struct SandboxChoice {
  SandboxConfig config;
  SandboxPaths base;  // the owner's paths to hide; the unit's are added in ready()
  std::string unit_id;
};

class UserIsolator : public Isolator {
 public:
  UserIsolator(WorkerUser worker, uid_t uid, gid_t gid, int lock, std::string note,
               std::optional<SandboxChoice> sandbox, EgressProxyOptions egress)
      : note_(std::move(note)),
        sandbox_(std::move(sandbox)),
        egress_options_(std::move(egress)),
        lock_(lock) {
    handoff_.worker = std::move(worker);
    handoff_.owner_uid = uid;
    handoff_.owner_gid = gid;
  }

  ~UserIsolator() override {
    stop_egress();
    unlock_worker(lock_);
  }
  UserIsolator(const UserIsolator&) = delete;
  UserIsolator& operator=(const UserIsolator&) = delete;

  // The clone goes INTO its unit folder (make_clone refuses an existing folder), so the worker
  // can never rename the folder the chown rule names; HOME is a unit folder of its own.
  Result<UnitPaths> layout(const RunFolder& run) override {
    run_root_ = run.root;
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

  // A run without a repository (awaywork probe, isolate/probe/isolated_run.h) brings an empty
  // folder and no identity: take it now.
  Status ready(const CloneDir& clone, const UnitPaths& paths) override {
    work_id_ = clone.id;
    if (clone.id == DirId{}) {
      no_repository_ = true;
      AW_TRY(work_id_, dir_id(paths.work));
    }
    if (!sandbox_) return {};
    return with_context(start_sandbox(paths), "sandbox");
  }

  Status can_run(const std::vector<PhasePlan>& phases) override {
    std::vector<WorkerProgram> programs;
    for (const auto& p : phases)
      if (!p.argv.empty()) programs.push_back({p.name + " phase", p.argv[0]});
    return programs_runnable(programs, phase_path(), handoff_.worker);
  }

  // Lent from the helper folder (the owner's, 711): the worker reads the files, never writes.
  Result<bool> lend_folder(const LentFolder& folder) override {
    if (!files_) return false;
    AW_TRY(std::string dir, write_lent_folder(files_->dir(), folder));
    (folder.agent_only ? agent_readable_ : plan_.readable)
        .push_back({dir, folder.target, folder.why});
    return true;
  }

  Result<bool> lend_path(const std::string& path) override {
    if (!files_) return false;
    char buf[PATH_MAX];
    if (!::realpath(path.c_str(), buf)) return fail("{} does not exist", path);
    // The worker builds its own sandbox, so it must reach what is bound: a file of the owner's
    // (the unit's CA bundle, in the run folder, 0700) is copied into the helper folder (711,
    // reachable by name) and the copy bound at the path the phases were told.
    struct stat st {};
    if (::stat(buf, &st) == 0 && S_ISREG(st.st_mode)) {
      AW_TRY(std::string text, read_file(buf, size_t{16} << 20));
      std::string name = std::string(buf).substr(std::string(buf).rfind('/') + 1);
      LentFolder copy;
      copy.target = path;
      copy.files = {{name, std::move(text)}};
      AW_TRY(std::string dir, write_lent_folder(files_->dir(), copy));
      plan_.readable.push_back({dir + "/" + name, path, "lent"});
      return true;
    }
    plan_.readable.push_back({buf, path, "plugin"});
    return true;
  }

  // The worker runs awaywork's static relay, copied executable into a lent folder the worker may
  // read and bound at its own path: not awaywork itself, which a build tree makes larger than a
  // lent copy may be, and whose libraries the worker's view need not hold.
  Result<Argv> mcp_relay() override {
    AW_TRY(std::string program, with_context(static_program("aw_mcp_relay_static"),
                                             "isolation user runs the MCP relay as the worker"));
    if (program.starts_with("/usr/") || !files_) return Argv{program};  // or no sandbox's view
    AW_TRY(std::string text, read_file(program, size_t{16} << 20));
    const std::string name = "aw_mcp_relay_static";
    LentFolder copy;
    copy.target = program;
    copy.files = {{name, std::move(text)}};
    AW_TRY(std::string dir, write_lent_folder(files_->dir(), copy));
    if (::chmod((dir + "/" + name).c_str(), 0755) != 0)
      return fail("chmod {}/{}: {}", dir, name, errno_text(errno));
    plan_.readable.push_back({dir + "/" + name, program, "lent"});
    return Argv{program};
  }

  Status before_phase() override {
    handed_ = true;
    return aw::before_phase(handoff_);
  }

  Result<Launcher> launcher(const PhasePlan& phase, int index) override {
    if (!files_) return make_warded_worker_launcher(handoff_.worker, report_path(index));
    SandboxPlan plan = plan_;
    if (phase.agent)
      plan.readable.insert(plan.readable.end(), agent_readable_.begin(), agent_readable_.end());
    if (!phase.argv.empty()) lend_program(phase.argv[0], phase_path(), plan);
    // Each bridged socket listens by now (the proxy starts before the first phase); the worker's
    // bridge connects as the worker. Idempotent, so every phase simply sets it again.
    for (const auto& b : active_bridges(plan))
      AW_CHECK(with_context(grant_socket_to(b.socket, handoff_.worker.uid), "bridge"));
    AW_TRY(std::string plan_file, files_->write_plan(plan, index));
    return make_warded_worker_launcher(handoff_.worker, report_path(index),
                                       WorkerSandbox{files_->helper(), plan_file}, plan);
  }

  // Sandboxed in its own network, the worker reaches the proxy through a socket in the owner's
  // helper folder (711: reachable by name, not listable) under a name of 128 random bits, which
  // only the worker's plan holds; the launcher opens that socket to the worker alone (a POSIX
  // ACL entry) once it listens. The run token still authenticates every request.
  // Unsandboxed (or network host), the worker shares the host's loopback: the socket stays in
  // the owner's run folder.
  Result<SocketBridge> bridge_socket(const std::string& fallback, uint16_t port) override {
    if (!files_ || plan_.network == Network::host) return SocketBridge{fallback, false};
    AW_TRY(std::string socket, files_->socket_path("inference"));
    plan_.bridges.push_back({socket, port});
    return SocketBridge{socket, true};
  }

  // The worker's phase gets its variables by value (unit_env): no names to pass on.
  void add_agent_env_names(const std::vector<std::string>&) override {}

  // The worker's phase is watched by its warden, which reports after the phase (after_phase).
  std::optional<std::string> lost_while_running() const override { return std::nullopt; }

  // The worker's own name, not the owner's, in USER and LOGNAME; in network allowlist the way
  // out, the egress proxy bridged inside.
  std::vector<std::pair<std::string, std::string>> extra_env() const override {
    std::vector<std::pair<std::string, std::string>> env = {{"USER", handoff_.worker.name},
                                                            {"LOGNAME", handoff_.worker.name}};
    if (!files_ || plan_.network != Network::allowlist) return env;
    std::string url = fmt::format("http://127.0.0.1:{}", plan_.proxy_port);
    for (const char* k : {"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"})
      env.emplace_back(k, url);
    return env;
  }

  Result<int> after_phase(int index, std::vector<std::string>& notes) override {
    int oom_kills = 0;
    if (files_ && oom_) oom_kills = oom_->sweep_after_phase();  // the unit's v1 groups, once empty
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
    return oom_kills;
  }

  // HOME goes with the unit unless it was lost; the clone's folder stays for inspection, like
  // the clone of isolation none (its path is in the run folder's isolation.json).
  std::vector<std::string> finish(bool lost) override {
    if (handoff_.folders.size() < 2) {  // layout failed half-way: nothing ran
      for (const auto& f : handoff_.folders) (void)remove_unit_folder(f);
      return {};
    }
    if (handed_ && !take_back()) lost = true;  // a phase ended before after_phase ran
    if (!lost) {
      (void)remove_unit_folder(handoff_.folders[1]);
      if (!work_id_ || no_repository_) (void)remove_unit_folder(handoff_.folders[0]);
    }
    write_locations(!lost);
    sweep_leftovers();
    stop_egress();
    files_.reset();
    return std::move(end_notes_);
  }

  std::string sandbox_note() const override { return note_; }

 private:
  Status start_sandbox(const UnitPaths& paths) {
    SandboxPaths sp = sandbox_->base;
    sp.clone = paths.work;
    sp.home = paths.home;  // the prompt file is in it
    sp.provider_state = {paths.tmp, paths.outputs};
    AW_TRY(plan_, make_plan(sandbox_->config, sp));
    plan_.cgroup_name = sandbox_->unit_id;
    oom_.emplace(plan_.cgroup_name);
    AW_TRY(files_, WorkerSandboxFiles::make(handoff_.worker, self_exe()));
    if (plan_.network == Network::allowlist) AW_CHECK(start_egress());
    // The policy was decided before the unit existed; this catches what only the real paths
    // can show.
    return sandbox_available(plan_);
  }

  // What the worker left outside the unit's folders goes before the next unit can meet it, once
  // its processes are proved gone (a live one could plant again behind the sweep).
  void sweep_leftovers() {
    if (auto gone = kill_worker_processes(handoff_.worker); !gone) {
      end_notes_.push_back("the worker's leftovers were not swept: " + gone.error().message);
      return;
    }
    std::unique_ptr<WorkerSandboxFiles> own;
    if (!files_) {
      auto f = WorkerSandboxFiles::make(handoff_.worker, self_exe());
      if (!f) {
        end_notes_.push_back("the worker's leftovers were not swept: " + f.error().message);
        return;
      }
      own = std::move(*f);
    }
    std::vector<std::string> keep;
    for (const auto& f : handoff_.folders) keep.push_back(f.path);
    auto swept = sweep_worker_leftovers(handoff_.worker, (files_ ? files_ : own)->helper(), keep);
    end_notes_.push_back(swept ? describe_sweep(handoff_.worker.name, *swept)
                               : "the worker's leftovers: " + swept.error().message);
  }

  // network allowlist: awaywork's egress proxy listens in the helper folder under a random name,
  // like the inference proxy's socket; launcher() opens it to the worker alone (an ACL entry).
  Status start_egress() {
    AW_TRY(std::string sock, files_->socket_path("egress"));
    egress_log_ = std::fopen((run_root_ + "/egress.log").c_str(), "ae");
    std::FILE* log = egress_log_;
    EgressProxyOptions o = egress_options_;  // the unit's injected secrets and placeholders
    o.socket_path = sock;
    o.allow = plan_.allow;
    o.log = [log](const std::string& line) {
      if (log) std::fprintf(log, "%s\n", line.c_str()), std::fflush(log);
    };
    AW_TRY(egress_, with_context(EgressProxy::start(std::move(o)), "egress proxy"));
    plan_.proxy_socket = sock;
    return {};
  }

  void stop_egress() {
    egress_.reset();  // joins the proxy's thread before its log closes
    if (egress_log_) std::fclose(egress_log_);
    egress_log_ = nullptr;
  }

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
  std::optional<SandboxChoice> sandbox_;
  EgressProxyOptions egress_options_;  // the unit's share (IsolationSpec::egress)
  SandboxPlan plan_;
  std::vector<SandboxPlan::ReadOnly> agent_readable_;  // lent to the agent phases only
  std::unique_ptr<WorkerSandboxFiles> files_;          // set when the phases run sandboxed
  std::unique_ptr<EgressProxy> egress_;                // network allowlist
  std::FILE* egress_log_ = nullptr;
  bool no_repository_ = false;
  Handoff handoff_;
  UnitPaths paths_;
  std::string run_root_;
  DirId outputs_id_{};
  std::optional<DirId> work_id_;
  bool handed_ = false;
  std::vector<std::string> end_notes_;
  int lock_;
  std::optional<SandboxOomCount> oom_;  // with the sandbox: its v1 memory group's OOM kills
};

// The sandbox decision, before the unit exists: a note for the record, and the choice when the
// phases run sandboxed. `required` refuses (an Error) what cannot be built.
Result<std::string> decide_sandbox(const Config& cfg, const IsolationSpec* spec,
                                   const std::string& unit_id,
                                   std::optional<SandboxChoice>& choice) {
  if (cfg.sandbox.mode == SandboxMode::off) return std::string("unsandboxed: sandbox mode off");
  SandboxPaths sp = spec ? sandbox_unit_paths(cfg, *spec) : sandbox_base_paths(cfg);
  sp.root_owner = false;  // the worker is never root: the kernel refuses it root's files
  AW_TRY(SandboxPlan plan, with_context(make_plan(cfg.sandbox, sp), "sandbox"));
  // Tried as the owner: the worker's kernel features are the same, and the limits are the
  // owner's to set (the warden applies them before sudo). The egress proxy of network allowlist
  // is awaywork's own, started with the unit (the worker reaches its socket by an ACL entry).
  SandboxPlan policy = plan;
  if (policy.network == Network::allowlist) policy.network = Network::none;
  AW_TRY(std::string reason, sandbox_decision(policy));
  if (!reason.empty()) return reason;
  choice = SandboxChoice{cfg.sandbox, sp, unit_id};
  return sandboxed_note(plan);
}

Result<std::unique_ptr<Isolator>> make(const Config& cfg, const IsolationSpec* spec,
                                       const std::string& unit_id, bool for_probe,
                                       std::vector<std::string>* warnings) {
  AW_TRY(UserCheckInput in, current_owner(cfg.worker_user));
  // On a hosted runner or in the image a missing worker means the lock never ran: say how to get
  // it there rather than doctor's useradd.
  if (!lookup_worker(cfg.worker_user))
    if (auto why = missing_worker_refusal(host_kind(std::getenv)); !why.empty()) return fail(why);
  if (for_probe) {
    AW_TRY(auto w, user_handoff_ready(in));
    if (warnings) *warnings = std::move(w);
  } else {
    AW_CHECK(user_isolation_ready(in));
  }
  std::optional<SandboxChoice> choice;
  AW_TRY(std::string note, decide_sandbox(cfg, spec, unit_id, choice));
  if (spec && (!choice || cfg.sandbox.network != Network::allowlist))
    AW_CHECK(injection_needs_egress(*spec, note));
  AW_TRY(WorkerUser worker, lookup_worker(cfg.worker_user));
  AW_TRY(int lock, lock_worker(state_dir_of(cfg), worker.name));
  return std::unique_ptr<Isolator>(new UserIsolator(std::move(worker), in.owner_uid, in.owner_gid,
                                                    lock, std::move(note), std::move(choice),
                                                    spec ? spec->egress : EgressProxyOptions{}));
}

}  // namespace

Result<std::unique_ptr<Isolator>> make_user_isolator(const Config& cfg, const IsolationSpec& spec,
                                                     const std::string& unit_id) {
  return make(cfg, &spec, unit_id, false, nullptr);
}

Result<std::unique_ptr<Isolator>> make_user_isolator_for_probe(const Config& cfg,
                                                               const std::string& unit_id,
                                                               std::vector<std::string>* warnings) {
  return make(cfg, nullptr, unit_id, true, warnings);
}

}  // namespace aw
