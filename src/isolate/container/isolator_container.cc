// isolation container: every phase in a fresh container of the repository's image (DESIGN.md
// section 3). The container sees only the clone, so everything a phase uses lives in
// <clone>/.away/ (HOME, TMPDIR, outputs, the prompt); make_patch never collects `.away/`.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <thread>

#include "base/fs.h"
#include "isolate/container/container_launcher.h"
#include "isolate/container/egress_bridge.h"
#include "isolate/container/engine.h"
#include "isolate/container/engine_watch.h"
#include "isolate/container/isolator_container.h"
#include "isolate/container/seccomp_profile.h"
#include "isolate/container/setid.h"
#include "isolate/static_program.h"
#include "proxy/egress_proxy.h"
#include "proxy/unit_ca.h"

namespace aw {

namespace {

bool is_real_dir(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// `.away` and its folders as real folders again. Called only when no container of the unit runs:
// whatever a phase planted there (a link to a host path, a file) is removed, never followed, so
// that collecting requests.jsonl and removing HOME stay inside the clone.
Status restore_away(const std::string& clone, std::vector<std::string>& notes) {
  for (const char* sub : {"/.away", "/.away/home", "/.away/tmp", "/.away/outputs"}) {
    std::string p = clone + sub;
    struct stat st {};
    if (::lstat(p.c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) {
      if (::unlink(p.c_str()) != 0) return fail("remove {}: {}", p, errno_text(errno));
      notes.push_back(fmt::format("removed {} (not a folder: a phase replaced it)", p));
    }
    if (!is_real_dir(p) && ::mkdir(p.c_str(), 0700) != 0)
      return fail("mkdir {}: {}", p, errno_text(errno));
  }
  return {};
}

// More CPUs than the machine has is an engine error, not a limit.
double fitting_cpus(double want) {
  double have = std::max(1u, std::thread::hardware_concurrency());
  return std::min(want, have);
}

class ContainerIsolator : public Isolator {
 public:
  ContainerIsolator(const Config& cfg, const IsolationSpec& t, std::string unit, Engine engine,
                    std::string image, ContainerExtras extras, Result<std::string> bridge_program)
      : unit_(std::move(unit)),
        image_(std::move(image)),
        allow_(cfg.sandbox.allow),
        egress_options_(t.egress),
        bridge_program_(std::move(bridge_program)) {
    plan_.engine = std::move(engine);
    plan_.image = image_;
    plan_.uid = ::getuid();
    plan_.gid = ::getgid();
    plan_.unit = unit_;
    plan_.memory_bytes = cfg.sandbox.limits.memory_bytes;
    plan_.pids = cfg.sandbox.limits.pids;
    plan_.cpus = cfg.sandbox.limits.cpus > 0 ? fitting_cpus(cfg.sandbox.limits.cpus) : 0;
    plan_.network = cfg.sandbox.network;
    agent_env_ = t.agent.env;
    // The profile's variables and secrets go to every phase by name, like the agent's own.
    for (const auto& [name, _] : t.profile.vars) profile_names_.push_back(name);
    for (const auto& name : t.profile.secrets) profile_names_.push_back(name);
    // An injected secret's placeholder goes by name too (the phase env holds it, never a value).
    for (const auto& [_, name] : t.egress.placeholders) profile_names_.push_back(name);
    // The unit's CA bundle (a path, no secret) goes to every phase by value: by name it would
    // sit in the engine client's own environment, where SSL_CERT_FILE steers the client
    // (container_launcher.cc refuses it), and a setup or check phase needs it as the agent does.
    if (t.egress.ca) ca_names_ = ca_bundle_env_names();
    prompt_file_mode_ = t.agent.prompt == PromptMode::file;
    plan_.readonly_files = std::move(extras.lend_readonly);
    plan_.weaken_for_test = std::move(extras.weaken_for_test);
  }

  ~ContainerIsolator() override {
    stop_bridge();
    egress_.reset();
  }

  // The clone's folder must not exist before make_clone, so the folders under .away/ are made in
  // ready(). The pipeline writes the prompt before ready(), so it goes to the run folder first
  // and ready() copies it in (host_prompt_).
  Result<UnitPaths> layout(const RunFolder& dir) override {
    std::string away = dir.work + "/.away";
    paths_ = UnitPaths{dir.work, away + "/home", away + "/tmp", away + "/outputs",
                       dir.root + "/prompt.md"};
    host_prompt_ = paths_.prompt_file;
    inner_prompt_ = away + "/prompt.md";
    plan_.clone = dir.work;
    plan_.home = paths_.home;
    run_root_ = dir.root;
    // One profile per unit, in its run folder (the engine's client reads it, the phase cannot).
    std::string profile = dir.root + "/seccomp.json";
    if (auto w = write_seccomp_profile(profile); w)
      plan_.seccomp_profile = profile;
    else
      seccomp_note_ = ", the engine's default seccomp profile (" + w.error().message + ")";
    return paths_;
  }

  Status ready(const CloneDir& clone, const UnitPaths&) override {
    AW_CHECK(prepare_home(clone.work));
    std::vector<std::string> notes;
    AW_CHECK(restore_away(clone.work, notes));
    AW_TRY(std::string prompt, read_file(host_prompt_));
    AW_CHECK(write_file(inner_prompt_, prompt, 0600));
    // .away is not the agent's work for git run inside: the clone's .git/info/exclude says so
    // (written with the clone, put back after every phase; git/clone.cc).
    clone_ = clone.work;
    if (plan_.network == Network::allowlist) AW_CHECK(start_egress());
    return {};
  }

  // The image runs every program a phase names, or the phase fails as any command would.
  Status can_run(const std::vector<PhasePlan>&) override { return {}; }

  // Each phase is a fresh container: nothing to hand over before it.
  Status before_phase() override { return {}; }

  // The socket goes into the unit's bridge container, never into a phase's: the bridge relays
  // 127.0.0.1:port of the namespace the phases join (network none: the only port there is).
  // The caller starts its proxy after this; the bridge starts at the next launcher().
  // The socket stays in the owner's run folder, which the bridge container binds.
  Result<SocketBridge> bridge_socket(const std::string& socket, uint16_t port) override {
    // network host: the host's loopback is theirs
    if (plan_.network == Network::host) return SocketBridge{socket, false};
    if (!bridge_program_)
      return fail("isolation container reaches the inference proxy through its bridge: {}",
                  bridge_program_.error().message);
    for (const auto& p : pairs_)
      if (p.port == port) return fail("port {} is bridged already (to {})", port, p.socket);
    if (pairs_.size() >= kMaxBridgePairs)
      return fail("the bridge relays at most {} sockets", kMaxBridgePairs);
    pairs_.push_back({port, socket});
    return SocketBridge{socket, true};
  }

  // The engine's daemon binds from the run folder, which the container never sees.
  Result<bool> lend_folder(const LentFolder& folder) override {
    AW_TRY(std::string dir, write_lent_folder(run_root_, folder));
    (folder.agent_only ? agent_files_ : plan_.readonly_files).emplace_back(dir, folder.target);
    return true;
  }

  Result<bool> lend_path(const std::string& path) override {
    plan_.readonly_files.emplace_back(path, path);
    return true;
  }

  // awaywork itself cannot run in the image (its libraries are the host's): the static relay,
  // lent read-only into the agent's containers only (no other phase starts an MCP server) at a
  // fixed path, so that the MCP config names no path of the host's.
  Result<Argv> mcp_relay() override {
    if (!mcp_relay_lent_) {
      AW_TRY(
          std::string program,
          with_context(static_program("aw_mcp_relay_static"),
                       "isolation container runs the MCP relay lent into the agent's container"));
      agent_files_.emplace_back(std::move(program), kContainerMcpRelay);
      mcp_relay_lent_ = true;
    }
    return Argv{kContainerMcpRelay};
  }

  void add_agent_env_names(const std::vector<std::string>& names) override {
    for (const auto& n : names)
      if (std::find(ca_names_.begin(), ca_names_.end(), n) == ca_names_.end())
        agent_env_.push_back(n);  // the CA bundle's variables cross by value (launcher)
  }

  Result<Launcher> launcher(const PhasePlan& phase, int index) override {
    ContainerPlan plan = plan_;
    // What the pipeline's phase env sets, as seen inside; nothing else of the owner's
    // environment crosses (LANG, PATH... come from the image).
    plan.placeholders = {{"TMPDIR", paths_.tmp},
                         {"AWAYWORK_UNIT", unit_},
                         {"AWAYWORK_OUTPUTS", paths_.outputs},
                         {"AWAYWORK_PHASE", phase.name}};
    plan.placeholders.insert(plan.placeholders.end(), kPhaseGitEnv.begin(), kPhaseGitEnv.end());
    if (phase.agent && prompt_file_mode_) {
      plan.placeholders.emplace_back("AWAYWORK_PROMPT_FILE", inner_prompt_);
      // The clone's copy again from the run folder's: a later round's task, and never what a
      // phase before left there (restore_away made .away a real folder after it).
      AW_TRY(std::string prompt, read_file(host_prompt_));
      AW_CHECK(write_file(inner_prompt_, prompt, 0600));
    }
    AW_CHECK(ensure_bridge());
    plan.proxy_network = bridge_;
    if (plan.network == Network::allowlist) {
      if (!egress_ || bridge_.empty())
        return fail("network allowlist: the egress bridge is not running");
      std::string url = bridge_proxy_url(kProxyPort);
      for (const char* n : {"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"})
        plan.placeholders.emplace_back(n, url);
    }
    // The agent's own variables by name only: their values stay in the client's environment.
    plan.secret_names = profile_names_;
    if (phase.agent) {
      plan.secret_names.insert(plan.secret_names.end(), agent_env_.begin(), agent_env_.end());
      plan.readonly_files.insert(plan.readonly_files.end(), agent_files_.begin(),
                                 agent_files_.end());
    }
    // Checked now, as any launcher is; made again per request below with the CA bundle's values.
    AW_CHECK(make_container_launcher(plan, container_name(index)));
    watch_ = std::make_unique<EngineWatch>(plan_.engine, container_name(index));
    // `{prompt_file}` in the agent's argv was filled with the run folder's copy; inside, the
    // prompt is the clone's.
    return Launcher([plan = std::move(plan), name = container_name(index), host = host_prompt_,
                     in = inner_prompt_, ca = ca_names_](const ExecRequest& req) -> Result<pid_t> {
      ExecRequest r = req;
      for (auto& a : r.argv)
        for (size_t p = 0; (p = a.find(host, p)) != std::string::npos; p += in.size())
          a.replace(p, host.size(), in);
      // The phase env's CA bundle variables (the pipeline sets them for every phase), as seen
      // inside: the bundle is lent at its own path (lend_path).
      ContainerPlan with = plan;
      for (const auto& n : ca)
        for (const auto& kv : r.env)
          if (kv.size() > n.size() && kv.compare(0, n.size(), n) == 0 && kv[n.size()] == '=')
            with.placeholders.emplace_back(n, kv.substr(n.size() + 1));
      AW_TRY(Launcher inner, make_container_launcher(with, name));
      return inner(r);
    });
  }

  // The container goes first, whatever the phase did: until the engine has proved it gone,
  // something may still write in the clone.
  // No memory group of awaywork's: the engine's own limits count what they kill (the runner's
  // PhaseResult::oom_kills).
  Result<int> after_phase(int index, std::vector<std::string>& notes) override {
    watch_.reset();  // its last question first: removing is the next one
    if (auto gone = remove_container(plan_.engine, container_name(index)); !gone)
      return fail("container {} could not be removed within limits.engine_silence ({:g} s): {}",
                  container_name(index), static_cast<double>(plan_.engine.silence.count()) / 1000.0,
                  gone.error().message);
    AW_CHECK(restore_away(clone_, notes));
    AW_TRY(int dropped, drop_setid_bits(clone_));
    if (dropped > 0)
      notes.push_back(fmt::format("cleared setuid/setgid bits on {} file(s)", dropped));
    return 0;
  }

  // HOME and TMPDIR go with the unit; outputs and the clone stay for inspection.
  std::vector<std::string> finish(bool lost) override {
    stop_bridge();  // first: it holds the proxies' sockets
    egress_.reset();
    if (lost || clone_.empty() || !is_real_dir(clone_ + "/.away")) return {};
    for (const auto* dir : {&paths_.home, &paths_.tmp})
      if (is_real_dir(*dir)) (void)remove_tree(*dir);
    return {};
  }

  // Variables cross into the container by name only (launcher), never by value.
  std::vector<std::pair<std::string, std::string>> extra_env() const override { return {}; }

  // The engine's client is the phase's main process: a hung engine hangs the phase silently.
  std::optional<std::string> lost_while_running() const override {
    return watch_ ? watch_->silent() : std::nullopt;
  }

  std::string sandbox_note() const override {
    std::string note = fmt::format("sandboxed: container {} {}, network {}",
                                   to_string(plan_.engine.kind), image_, to_string(plan_.network));
    if (plan_.network == Network::allowlist)
      note += fmt::format(" ({} allowed host(s) through the egress proxy)", allow_.size());
    return note + seccomp_note_;
  }

 private:
  static constexpr uint16_t kProxyPort = 3128;
  // Where aw_mcp_relay_static is inside the agent's containers (beside `awaywork probe`'s
  // /.awaywork/probe).
  static constexpr const char* kContainerMcpRelay = "/.awaywork/mcp-relay";

  Status start_egress() {
    std::string sock = run_root_ + "/egress.sock";
    EgressProxyOptions o = egress_options_;  // the unit's injected secrets and placeholders
    o.socket_path = sock;
    o.allow = allow_;
    AW_TRY(auto e, start_logged_egress(std::move(o), run_root_ + "/egress.log"));
    pairs_.push_back({kProxyPort, sock});
    egress_ = std::move(e);
    return {};
  }

  // The bridge relays every pair recorded so far. Started before the first phase rather than in
  // ready(): the inference proxy is bridged (and its socket made) after ready(). A pair added
  // later restarts it; no phase container runs then (after_phase removed the last one).
  Status ensure_bridge() {
    if (pairs_.empty() || (!bridge_.empty() && bridged_ == pairs_.size())) return {};
    stop_bridge();
    BridgePlan b;
    b.engine = plan_.engine;
    b.image = image_;
    b.name = fmt::format("aw-{}-bridge", unit_);
    b.unit = unit_;
    b.program = *bridge_program_;
    b.pairs = pairs_;
    b.uid = plan_.uid;
    b.gid = plan_.gid;
    b.seccomp_profile = plan_.seccomp_profile;
    AW_CHECK(start_bridge(b));
    bridge_ = b.name;
    bridged_ = pairs_.size();
    return {};
  }

  void stop_bridge() {
    if (!bridge_.empty()) (void)remove_container(plan_.engine, bridge_);
    bridge_.clear();
    bridged_ = 0;
  }

  std::string container_name(int index) const { return fmt::format("aw-{}-{}", unit_, index); }

  std::string unit_, image_;
  std::vector<std::string> allow_;
  EgressProxyOptions egress_options_;   // the unit's share (IsolationSpec::egress)
  Result<std::string> bridge_program_;  // aw_bridge_static, or why it is missing
  std::string run_root_, seccomp_note_;
  // network: allowlist: the unit's egress proxy (in this process, on a unix socket in the run
  // folder), relayed by the unit's bridge container. Outlives every phase; gone with the unit.
  std::unique_ptr<LoggedEgress> egress_;
  std::vector<BridgePair> pairs_;  // what the bridge relays: egress (allowlist), inference
  std::string bridge_;             // the running bridge container, "" = none
  size_t bridged_ = 0;             // how many of pairs_ it relays
  ContainerPlan plan_;
  std::vector<std::string> agent_env_;
  std::vector<std::pair<std::string, std::string>> agent_files_;  // lent to the agent phases only
  std::vector<std::string> profile_names_;
  std::vector<std::string> ca_names_;  // the CA bundle's variables, when the unit has a CA
  bool prompt_file_mode_ = false;
  bool mcp_relay_lent_ = false;  // aw_mcp_relay_static is in agent_files_
  UnitPaths paths_;
  std::string host_prompt_, inner_prompt_, clone_;
  std::unique_ptr<EngineWatch> watch_;  // while a phase runs
};

}  // namespace

Result<std::unique_ptr<Isolator>> make_container_isolator(const Config& cfg,
                                                          const IsolationSpec& target,
                                                          const std::string& unit_id) {
  return make_container_isolator_with(cfg, target, unit_id, {});
}

Result<std::unique_ptr<Isolator>> make_container_isolator_with(const Config& cfg,
                                                               const IsolationSpec& target,
                                                               const std::string& unit_id,
                                                               ContainerExtras extras) {
  // Allowlist needs the bridge from the start; none only once a proxy is bridged (inference).
  auto bridge = static_program("aw_bridge_static");
  if (!bridge && cfg.sandbox.network == Network::allowlist)
    return fail("isolation container with network allowlist needs its egress bridge: {}",
                bridge.error().message);
  if (cfg.sandbox.network != Network::allowlist)
    AW_CHECK(injection_needs_egress(target, "the unit's network is not allowlist"));
  std::string image = target.repo.image.empty() ? cfg.container_image : target.repo.image;
  if (image.empty())
    return fail(
        "isolation container needs an image: set `image:` under repos.{} (or "
        "`container_image:` for every repository) in {}",
        target.repo.name.empty() ? target.label : target.repo.name,
        cfg.file.empty() ? "the config" : cfg.file);
  AW_TRY(Engine engine, find_engine(cfg.container_engine,
                                    std::chrono::milliseconds(cfg.limits.engine_silence_ms)));
  if (auto ok = image_present(engine, image); !ok)
    return fail(
        "image {} is not present in {} ({}); nothing is pulled at run time: `{} pull "
        "{}`, `{} load -i FILE.tar` or `{} import ROOTFS.tar {}` (the test image: "
        "scripts/test-image)",
        image, to_string(engine.kind), ok.error().message, to_string(engine.kind), image,
        to_string(engine.kind), to_string(engine.kind), image);
  return std::unique_ptr<Isolator>(new ContainerIsolator(cfg, target, unit_id, std::move(engine),
                                                         std::move(image), std::move(extras),
                                                         std::move(bridge)));
}

}  // namespace aw
