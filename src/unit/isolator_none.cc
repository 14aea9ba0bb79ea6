// isolation none: the phases run as the owner, in the unit's run folder, with the OS sandbox over
// them when the config asks for it and the machine can build it (isolate/sandbox/sandbox.h).
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <optional>

#include "base/fs.h"
#include "config/paths.h"
#include "isolate/sandbox/sandbox.h"
#include "proxy/egress_proxy.h"
#include "unit/isolated_run.h"
#include "unit/isolator.h"
#include "unit/steps.h"

namespace aw {

namespace {

std::string real_path(const std::string& path) {
  char buf[PATH_MAX];
  return ::realpath(path.c_str(), buf) ? std::string(buf) : std::string();
}

// The phase's PATH is the owner's (build_env keeps it).
std::string phase_path() {
  const char* path = std::getenv("PATH");
  return path ? path : "/usr/local/bin:/usr/bin:/bin";
}

// What the sandbox needs that outlives one phase: the plan, the unit's network namespace and,
// for network: allowlist, the egress proxy with its log.
struct SandboxState {
  SandboxPlan plan;
  std::vector<SandboxPlan::ReadOnly> agent_readable;  // lent to the agent phases only
  std::optional<UnitNetns> netns;
  std::unique_ptr<EgressProxy> proxy;
  std::FILE* proxy_log = nullptr;

  ~SandboxState() {
    proxy.reset();  // joins the proxy's thread before its log closes
    if (proxy_log) std::fclose(proxy_log);
  }
};

class NoneIsolator : public Isolator {
 public:
  NoneIsolator(std::string note, std::optional<SandboxPaths> sandbox, SandboxConfig config,
               std::string unit_id, bool lend_prompt)
      : note_(std::move(note)),
        sandbox_paths_(std::move(sandbox)),
        config_(std::move(config)),
        unit_id_(std::move(unit_id)),
        lend_prompt_(lend_prompt) {}

  Result<UnitPaths> layout(const RunDir& dir) override {
    auto p = run_folder_layout(dir);
    if (p) paths_ = *p;
    run_root_ = dir.root;
    return p;
  }

  Status ready(const Clone&, const UnitPaths& paths) override {
    if (!sandbox_paths_) return {};
    return with_context(start_sandbox(paths), "sandbox");
  }

  Status before_phase() override { return {}; }

  // The run folder is the owner's and inside the hidden state folder: the lent copy is reachable
  // only through its read-only bind.
  Result<bool> lend_folder(const LentFolder& folder) override {
    if (!sandbox_) return false;
    AW_TRY(std::string dir, write_lent_folder(run_root_, folder));
    (folder.agent_only ? sandbox_->agent_readable : sandbox_->plan.readable)
        .push_back({dir, folder.target, folder.why});
    return true;
  }

  Result<bool> lend_path(const std::string& path) override {
    if (!sandbox_) return false;
    std::string real = real_path(path);
    if (real.empty()) return fail("{} does not exist", path);
    sandbox_->plan.readable.push_back({real, path, "plugin"});
    return true;
  }

  Result<Launcher> launcher(const PhasePlan& phase, int) override {
    if (!sandbox_) return Launcher{};
    SandboxPlan plan = sandbox_->plan;
    if (phase.agent)
      plan.readable.insert(plan.readable.end(), sandbox_->agent_readable.begin(),
                           sandbox_->agent_readable.end());
    if (!phase.argv.empty()) lend_program(phase.argv[0], phase_path(), plan);
    return make_sandbox_launcher(plan);
  }

  // A sandboxed phase has its own network namespace: the socket is bridged onto 127.0.0.1:port
  // there (network host has none: loopback is the host's).
  Result<bool> bridge_socket(const std::string& socket, uint16_t port) override {
    if (!sandbox_ || sandbox_->plan.network == Network::host) return false;
    sandbox_->plan.bridges.push_back({socket, port});
    return true;
  }

  std::vector<std::pair<std::string, std::string>> extra_env() const override {
    if (!sandbox_ || sandbox_->plan.network != Network::allowlist) return {};
    std::string url = fmt::format("http://127.0.0.1:{}", sandbox_->plan.proxy_port);
    return {{"HTTP_PROXY", url}, {"HTTPS_PROXY", url}, {"http_proxy", url}, {"https_proxy", url}};
  }

  // The phase's namespaces died with its init; what remains are the unit's v1 cgroups, which
  // only go once empty.
  Status after_phase(int, std::vector<std::string>&) override {
    if (sandbox_) oom_kills_ = oom_.sweep_after_phase();
    return {};
  }

  int oom_kills_in_phase() const override { return oom_kills_; }

  // The unit's HOME and TMPDIR go with it; the clone stays for inspection.
  void finish(bool lost) override {
    sandbox_.reset();  // stops the proxy, closes the unit's network namespace
    if (lost || paths_.home.empty()) return;
    (void)remove_tree(paths_.home);
    (void)remove_tree(paths_.tmp);
  }

  std::string sandbox_note() const override { return note_; }

 private:
  Status start_sandbox(const UnitPaths& paths) {
    SandboxPaths sp = *sandbox_paths_;
    sp.clone = paths.work;
    sp.home = paths.home;
    // TMPDIR and the outputs folder live in the run folder, inside the hidden state folder:
    // writable paths stay reachable below a hidden one.
    sp.provider_state.push_back(paths.tmp);
    sp.provider_state.push_back(paths.outputs);
    AW_TRY(SandboxPlan plan, make_plan(config_, sp));
    plan.cgroup_name = unit_id_;
    if (lend_prompt_ && !paths.prompt_file.empty()) {
      std::string real = real_path(paths.prompt_file);
      if (real.empty()) return fail("the prompt file {} is missing", paths.prompt_file);
      plan.readable.push_back({real, real, "prompt"});
    }
    auto state = std::make_unique<SandboxState>();
    if (plan.network != Network::host)
      if (auto ns = UnitNetns::create()) state->netns.emplace(std::move(*ns));
    if (state->netns) plan.unit_netns_fd = state->netns->fd();
    if (plan.network == Network::allowlist) {
      std::string sock = run_root_ + "/egress.sock";
      state->proxy_log = std::fopen((run_root_ + "/egress.log").c_str(), "ae");
      std::FILE* log = state->proxy_log;
      EgressProxyOptions o;
      o.socket_path = sock;
      o.allow = plan.allow;
      o.log = [log](const std::string& line) {
        if (log) std::fprintf(log, "%s\n", line.c_str()), std::fflush(log);
      };
      AW_TRY(state->proxy, with_context(EgressProxy::start(std::move(o)), "egress proxy"));
      plan.proxy_socket = sock;
    }
    // The policy was decided before the unit existed; this catches what only the real paths
    // and the running proxy can show.
    AW_CHECK(sandbox_available(plan));
    state->plan = std::move(plan);
    sandbox_ = std::move(state);
    return {};
  }

  std::string note_;
  std::optional<SandboxPaths> sandbox_paths_;  // set when the phases run sandboxed
  SandboxConfig config_;
  std::string unit_id_;
  bool lend_prompt_ = false;
  UnitPaths paths_;
  std::string run_root_;
  std::unique_ptr<SandboxState> sandbox_;
  SandboxOomCount oom_{unit_id_};
  int oom_kills_ = 0;
};

}  // namespace

std::string sandboxed_note(const SandboxPlan& plan) {
  std::string note = fmt::format("sandboxed: network {}", to_string(plan.network));
  if (plan.network == Network::allowlist)
    note += fmt::format(" ({} allowed host(s) through the egress proxy)", plan.allow.size());
  return note + view_note(plan);
}

std::string view_note(const SandboxPlan& plan) {
  auto lines = home_in_view(plan, plan.owner_home);
  std::erase_if(lines, [](const std::string& l) { return l.rfind("the unit's own", 0) == 0; });
  if (lines.empty()) return "";
  std::string out = "; of the homes in view (read-only): ";
  for (size_t i = 0; i < lines.size(); ++i) out += (i ? ", " : "") + lines[i];
  return out;
}

SandboxPaths sandbox_base_paths(const Config& cfg) {
  SandboxPaths sp;
  sp.owner_home = home_dir();
  sp.config_dir = default_config_dir();
  sp.state_dir = state_dir_of(cfg);
  if (!cfg.file.empty()) sp.secret_files.push_back(cfg.file);
  sp.path_value = phase_path();
  sp.root_owner = ::geteuid() == 0;
  return sp;
}

SandboxPaths sandbox_unit_paths(const Config& cfg, const Target& target) {
  SandboxPaths sp = sandbox_base_paths(cfg);
  auto add = [&](const Argv& argv) {
    if (!argv.empty() && !argv[0].empty()) sp.programs.push_back(argv[0]);
  };
  add(target.repo.setup);
  add(target.agent.command);
  for (const auto& c : target.repo.checks) add(c);
  return sp;
}

Result<UnitPaths> run_folder_layout(const RunDir& dir) {
  UnitPaths p{dir.work, dir.root + "/home", dir.root + "/tmp", dir.root + "/outputs",
              dir.root + "/prompt.md"};
  for (const auto* sub : {&p.home, &p.tmp, &p.outputs})
    if (::mkdir(sub->c_str(), 0700) != 0) return fail("create {}: {}", *sub, errno_text(errno));
  return p;
}

Result<std::unique_ptr<Isolator>> make_none_isolator(const Config& cfg, const Target& target,
                                                     const std::string& unit_id) {
  SandboxPaths sp = sandbox_unit_paths(cfg, target);
  bool lend_prompt = target.agent.prompt == PromptMode::file;
  if (cfg.sandbox.mode == SandboxMode::off)
    return std::unique_ptr<Isolator>(new NoneIsolator("unsandboxed: sandbox mode off", std::nullopt,
                                                      cfg.sandbox, unit_id, false));
  // Decided before the unit exists, so that `required` refuses it with nothing to clean up. The
  // unit's folders are not made yet: they do not change what the kernel can do. The egress
  // proxy is awaywork's own and is started with the unit, so it is not a missing feature here.
  AW_TRY(SandboxPlan plan, with_context(make_plan(cfg.sandbox, sp), "sandbox"));
  SandboxPlan policy = plan;
  if (policy.network == Network::allowlist) policy.network = Network::none;
  AW_TRY(std::string reason, sandbox_decision(policy));
  if (!reason.empty())
    return std::unique_ptr<Isolator>(
        new NoneIsolator(reason, std::nullopt, cfg.sandbox, unit_id, false));
  return std::unique_ptr<Isolator>(
      new NoneIsolator(sandboxed_note(plan), sp, cfg.sandbox, unit_id, lend_prompt));
}

}  // namespace aw
