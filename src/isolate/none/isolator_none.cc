#include "isolate/none/isolator_none.h"

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <optional>

#include "base/fs.h"
#include "isolate/sandbox/sandbox.h"
#include "isolate/sandbox/unit_view.h"
#include "proxy/egress_proxy.h"

namespace aw {

namespace {

// The path with every link resolved, "" when it does not exist. Named apart from view.cc's
// real_path: both are file-local, and a unity build (AW_UNITY) may batch them together.
std::string resolved_path(const std::string& path) {
  char buf[PATH_MAX];
  return ::realpath(path.c_str(), buf) ? std::string(buf) : std::string();
}

// What the sandbox needs that outlives one phase: the plan, the unit's network namespace and,
// for network: allowlist, the egress proxy with its log.
struct SandboxState {
  SandboxPlan plan;
  std::vector<SandboxPlan::ReadOnly> agent_readable;  // lent to the agent phases only
  std::optional<UnitNetns> netns;
  std::unique_ptr<LoggedEgress> egress;  // last: stopped before the namespace closes
};

class NoneIsolator : public Isolator {
 public:
  NoneIsolator(std::string note, std::optional<SandboxPaths> sandbox, SandboxConfig config,
               std::string unit_id, bool lend_prompt, EgressProxyOptions egress = {})
      : note_(std::move(note)),
        sandbox_paths_(std::move(sandbox)),
        config_(std::move(config)),
        unit_id_(std::move(unit_id)),
        lend_prompt_(lend_prompt),
        egress_(std::move(egress)) {}

  Result<UnitPaths> layout(const RunFolder& run) override {
    auto p = run_folder_layout(run);
    if (p) paths_ = *p;
    run_root_ = run.root;
    return p;
  }

  Status ready(const CloneDir&, const UnitPaths& paths) override {
    if (!sandbox_paths_) return {};
    return with_context(start_sandbox(paths), "sandbox");
  }

  // The phases run as the owner, who runs awaywork: whatever it finds, they find.
  Status can_run(const std::vector<PhasePlan>&) override { return {}; }

  // Nothing is handed over: the folders are the owner's throughout.
  Status before_phase() override { return {}; }

  // The variables reach the phase by value (unit_env): no names to pass on.
  void add_agent_env_names(const std::vector<std::string>&) override {}

  // The phase is the owner's process: nothing outside it can make the unit lost mid-phase.
  std::optional<std::string> lost_while_running() const override { return std::nullopt; }

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
    std::string real = resolved_path(path);
    if (real.empty()) return fail("{} does not exist", path);
    sandbox_->plan.readable.push_back({real, path, "plugin"});
    return true;
  }

  Result<Argv> mcp_relay() override { return awaywork_mcp_relay(*this); }

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
  // The socket stays in the owner's run folder.
  Result<SocketBridge> bridge_socket(const std::string& socket, uint16_t port) override {
    if (!sandbox_ || sandbox_->plan.network == Network::host) return SocketBridge{socket, false};
    sandbox_->plan.bridges.push_back({socket, port});
    return SocketBridge{socket, true};
  }

  std::vector<std::pair<std::string, std::string>> extra_env() const override {
    if (!sandbox_ || sandbox_->plan.network != Network::allowlist) return {};
    std::string url = fmt::format("http://127.0.0.1:{}", sandbox_->plan.proxy_port);
    return {{"HTTP_PROXY", url}, {"HTTPS_PROXY", url}, {"http_proxy", url}, {"https_proxy", url}};
  }

  // The phase's namespaces died with its init; what remains are the unit's v1 cgroups, which
  // only go once empty.
  Result<int> after_phase(int, std::vector<std::string>&) override {
    return sandbox_ ? oom_.sweep_after_phase() : 0;
  }

  // The unit's HOME and TMPDIR go with it; the clone stays for inspection.
  std::vector<std::string> finish(bool lost) override {
    sandbox_.reset();  // stops the proxy, closes the unit's network namespace
    if (lost || paths_.home.empty()) return {};
    (void)remove_tree(paths_.home);
    (void)remove_tree(paths_.tmp);
    return {};
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
      std::string real = resolved_path(paths.prompt_file);
      if (real.empty()) return fail("the prompt file {} is missing", paths.prompt_file);
      plan.readable.push_back({real, real, "prompt"});
    }
    auto state = std::make_unique<SandboxState>();
    if (plan.network != Network::host)
      if (auto ns = UnitNetns::create()) state->netns.emplace(std::move(*ns));
    if (state->netns) plan.unit_netns_fd = state->netns->fd();
    if (plan.network == Network::allowlist) {
      std::string sock = run_root_ + "/egress.sock";
      EgressProxyOptions o = egress_;  // the unit's injected secrets and placeholders
      o.socket_path = sock;
      o.allow = plan.allow;
      AW_TRY(state->egress, start_logged_egress(std::move(o), run_root_ + "/egress.log"));
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
  EgressProxyOptions egress_;
  UnitPaths paths_;
  std::string run_root_;
  std::unique_ptr<SandboxState> sandbox_;
  SandboxOomCount oom_{unit_id_};
};

}  // namespace

Result<std::unique_ptr<Isolator>> make_none_isolator(const Config& cfg, const IsolationSpec& spec,
                                                     const std::string& unit_id) {
  SandboxPaths sp = sandbox_unit_paths(cfg, spec);
  bool lend_prompt = spec.agent.prompt == PromptMode::file;
  if (cfg.sandbox.mode == SandboxMode::off) {
    AW_CHECK(injection_needs_egress(spec, "sandbox mode off"));
    return std::unique_ptr<Isolator>(new NoneIsolator("unsandboxed: sandbox mode off", std::nullopt,
                                                      cfg.sandbox, unit_id, false));
  }
  // Decided before the unit exists, so that `required` refuses it with nothing to clean up. The
  // unit's folders are not made yet: they do not change what the kernel can do. The egress
  // proxy is awaywork's own and is started with the unit, so it is not a missing feature here.
  AW_TRY(SandboxPlan plan, with_context(make_plan(cfg.sandbox, sp), "sandbox"));
  SandboxPlan policy = plan;
  if (policy.network == Network::allowlist) policy.network = Network::none;
  AW_TRY(std::string reason, sandbox_decision(policy));
  if (!reason.empty()) {
    AW_CHECK(injection_needs_egress(spec, reason));
    return std::unique_ptr<Isolator>(
        new NoneIsolator(reason, std::nullopt, cfg.sandbox, unit_id, false));
  }
  if (plan.network != Network::allowlist)
    AW_CHECK(injection_needs_egress(spec, "the sandbox's network is not allowlist"));
  return std::unique_ptr<Isolator>(
      new NoneIsolator(sandboxed_note(plan), sp, cfg.sandbox, unit_id, lend_prompt, spec.egress));
}

}  // namespace aw
