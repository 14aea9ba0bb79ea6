// The checks `awaywork doctor` runs, per isolation (cli/ only parses, calls this and renders): the
// general ones here, for every isolation, and each isolation room's own in doctor's terms
// (isolate/sandbox/doctor.h, isolate/user/user_checks.h, isolate/container/doctor.h).
#include "doctor/checks/checks.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/fs.h"
#include "config/host_env.h"
#include "config/paths.h"
#include "isolate/container/doctor.h"
#include "isolate/sandbox/doctor.h"
#include "isolate/sandbox/unit_view.h"
#include "isolate/user/shared_folders.h"
#include "isolate/user/user_checks.h"
#include "isolate/user/worker_programs.h"
#include "proc/capture.h"
#include "provider/doctor.h"
#include "provider/provider.h"
#include "proxy/unit_ca.h"
#include "secrets/store.h"

namespace aw {

namespace {

Check state_dir_check(const Config& cfg) {
  std::string dir = state_dir_of(cfg);
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0)
    return {"state folder " + dir, true, "not created yet; the first unit makes it (0700)", ""};
  bool ok = S_ISDIR(st.st_mode) && (st.st_mode & 077) == 0 && st.st_uid == ::getuid();
  return {"state folder " + dir + " is private", ok,
          fmt::format("mode {:o}, owner uid {}", st.st_mode & 07777, st.st_uid),
          ok ? "" : fmt::format("chmod 700 '{}'", dir)};
}

Check git_check() {
  auto r = capture({{"/usr/bin/git", "--version"}, {"PATH=/usr/bin:/bin"}, "", ""});
  bool ok = r && r->exit_code == 0;
  return {"git is installed", ok, ok ? r->out.substr(0, r->out.find('\n')) : "not found",
          ok ? "" : "sudo apt-get install git"};
}

Check isolation_check(const Config& cfg) {
  bool none = cfg.isolation == Isolation::none;
  bool open = none && cfg.sandbox.mode == SandboxMode::off;
  return {"isolation " + std::string(to_string(cfg.isolation)), !open,
          open ? "isolation none with sandbox off: the agent runs as you, with your files and "
                 "network; there is no isolation at all"
               : fmt::format("sandbox {}{}", to_string(cfg.sandbox.mode),
                             host_isolation_note(host_kind(std::getenv))),
          open ? "set `isolation: user` or `sandbox: {mode: required}` in " +
                     (cfg.file.empty() ? default_config_path() : cfg.file)
               : ""};
}

// The container room's checks in doctor's terms. A warning passes (it does not stop a unit) but
// says so, with its fix, in the detail.
Registry::Provider container_provider(const Config& cfg) {
  return [&cfg] {
    ContainerSetup s;
    s.engine = cfg.container_engine;
    s.owner = ::getuid();
    // The static bridge is needed for allowlist, and for an agent that reaches the inference
    // proxy from a container (the bridge relays its port).
    bool inference = std::any_of(cfg.agents.begin(), cfg.agents.end(),
                                 [](const auto& a) { return !a.second.inference.empty(); });
    s.allowlist = cfg.sandbox.network == Network::allowlist ||
                  (inference && cfg.sandbox.network != Network::host);
    auto add = [](std::vector<std::string>& v, const std::string& x) {
      if (!x.empty() && std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
    };
    add(s.images, cfg.container_image);
    for (const auto& [name, repo] : cfg.repos) {
      add(s.images, repo.image.empty() ? cfg.container_image : repo.image);
      for (const auto& check : repo.checks)
        if (!check.empty()) add(s.programs, check[0]);
      if (!repo.setup.empty()) add(s.programs, repo.setup[0]);
    }
    for (const auto& [name, agent] : cfg.agents) {
      const ProviderSpec* p = find_provider(agent.provider);
      if (!agent.command.empty())
        add(s.programs, agent.command[0]);
      else if (p && !p->command.empty())
        add(s.programs, p->command[0]);
      for (const auto& [_, m] : agent.mcp)
        if (!m.outside) add(s.programs, m.command[0]);  // started inside (outside: on the host)
    }
    // A relative path runs from the clone, not the image: nothing to look for there.
    std::erase_if(s.programs, [](const std::string& p) {
      return p[0] != '/' && p.find('/') != std::string::npos;
    });
    std::vector<Check> out;
    for (const auto& c : check_container_setup(s)) {
      bool warn = c.level == ContainerCheck::warning;
      out.push_back({c.what, c.level != ContainerCheck::failure, warn ? "warning; " + c.fix : "",
                     warn ? "" : c.fix});
    }
    return out;
  };
}

// Where secrets live, and the compatibility env file (read only when 0600).
std::vector<Check> secret_checks() {
  std::vector<Check> out;
  auto store = open_secret_store(default_secret_store_paths());
  std::string why_not_ss;
  if (auto ss = secret_service_answers(); !ss)
    why_not_ss = "; Secret Service: " + ss.error().message;
  if (store)
    out.push_back({"secret store", true, (*store)->backend() + why_not_ss, ""});
  else
    out.push_back({"secret store", false, store.error().message,
                   "fix the store as the message says, or set AWAYWORK_SECRET_BACKEND"});
  std::string env_file = default_env_file_path();
  if (auto env = read_env_file(env_file); !env)
    out.push_back(
        {"env file " + env_file, false, env.error().message, "chmod 600 '" + env_file + "'"});
  return out;
}

// Where argv0 runs from: itself when it holds a '/', else its first executable match in
// path_value; "" when none.
std::string program_on_path(const std::string& argv0, const std::string& path_value) {
  if (argv0.find('/') != std::string::npos) return ::access(argv0.c_str(), X_OK) == 0 ? argv0 : "";
  for (size_t at = 0; at <= path_value.size();) {
    size_t end = path_value.find(':', at);
    if (end == std::string::npos) end = path_value.size();
    std::string candidate = path_value.substr(at, end - at) + "/" + argv0;
    if (end > at && ::access(candidate.c_str(), X_OK) == 0) return candidate;
    at = end + 1;
  }
  return "";
}

// The agent CLIs on the owner's PATH (and scripts/agent-clis' folder), with their versions: a
// provider a configured agent uses must answer `--version` (under isolation container they live
// in the image, which the container checks look at).
std::vector<Check> agent_checks(const Config& cfg) {
  std::vector<std::string> required;
  if (cfg.isolation != Isolation::container)
    for (const auto& [name, agent] : cfg.agents)
      if (!agent.provider.empty() && agent.provider != "command" && agent.command.empty())
        required.push_back(agent.provider);
  const char* path = std::getenv("PATH");
  std::string path_value = std::string(path ? path : "/usr/bin:/bin") + ":" + kAgentClisBin;
  auto out = agent_cli_checks(path_value, required);
  // The agent's MCP servers run where the agent does (isolation user: worker_checks; container:
  // the image checks); under none, the owner's PATH is the phases'.
  if (cfg.isolation == Isolation::none)
    for (const auto& [name, agent] : cfg.agents)
      for (const auto& [server, m] : agent.mcp) {
        std::string found = program_on_path(m.command[0], path_value);
        out.push_back({fmt::format("agent {}: MCP server {}", name, server), !found.empty(),
                       found.empty() ? m.command[0] + " is not found on PATH" : found,
                       found.empty()
                           ? "install " + m.command[0] + " or fix mcp: " + server + ": command:"
                           : ""});
      }
  return out;
}

// Whether the store (or the error opening it) holds name: c is ok, else it says why and how to
// set it (`what` is what `secret set` reads from stdin). The caller words an ok check's detail.
bool in_store(const Result<std::unique_ptr<SecretStore>>& store, const std::string& name,
              std::string_view what, Check& c) {
  if (!store) {
    c.detail = store.error().message;
    return false;
  }
  if (!(*store)->get(name)) {
    c.detail = "not in the secret store (" + (*store)->backend() + ")";
    c.fix = fmt::format("awaywork secret set {}   # {}, read from stdin", name, what);
    return false;
  }
  c.ok = true;
  return true;
}

// Each inference upstream's model credential is in the secret store.
std::vector<Check> inference_checks(const Config& cfg) {
  std::vector<Check> out;
  if (cfg.inference.empty()) return out;
  auto store = open_secret_store({});
  for (const auto& [name, ic] : cfg.inference) {
    Check c{fmt::format("inference {}: credential {}", name, ic.credential), false, "", ""};
    if (in_store(store, ic.credential, "the key", c))
      c.detail = fmt::format("{} API at {}, key in {}", ic.api, ic.url, (*store)->backend());
    out.push_back(std::move(c));
  }
  return out;
}

// Each secret the egress proxy adds (config `secrets:`, issue 27): by name, with its hosts, and
// whether the store holds it (a unit without it fails before any phase). Never a value.
std::vector<Check> injected_checks(const Config& cfg) {
  std::vector<Check> out;
  if (cfg.secrets.empty()) return out;
  auto store = open_secret_store({});
  for (const auto& [name, s] : cfg.secrets) {
    std::vector<std::string> hosts;
    for (const InjectRule& r : s.inject)
      if (std::find(hosts.begin(), hosts.end(), r.host) == hosts.end()) hosts.push_back(r.host);
    Check c{
        fmt::format("secret {}: added by the egress proxy for {}", name, fmt::join(hosts, ", ")),
        false, "", ""};
    if (in_store(store, name, "the value", c))
      c.detail = "in " + (*store)->backend() + "; the phases hold a placeholder";
    out.push_back(std::move(c));
  }
  return out;
}

// The phases trust the unit's CA through a bundle of the system's CAs and the unit's
// (proxy/unit_ca.h). Without a system bundle it holds the unit's CA alone: the bound hosts still
// work, but a client that reads only the bundle (pip, requests, git's CA file) fails to verify
// every other allowed https host. A warning, not a refusal: no secret is at risk (the phase trusts
// less, not more), OpenSSL clients still read the system's hashed folder and Node adds the
// bundle to its own CAs, and a unit whose allowed hosts are all bound works as it is.
std::vector<Check> ca_bundle_checks(const Config& cfg) {
  if (cfg.secrets.empty()) return {};
  std::vector<std::string> hosts;
  for (const auto& [_, s] : cfg.secrets)
    for (const InjectRule& r : s.inject) {
      std::string h = r.host;
      std::transform(h.begin(), h.end(), h.begin(),
                     [](unsigned char ch) { return std::tolower(ch); });
      hosts.push_back(std::move(h));
    }
  if (hosts.empty()) return {};
  Check c{"system CA bundle for the phases' trust (with the unit's CA)", true, "", ""};
  auto ca = UnitCa::make({hosts.front()});  // the same bundle a unit writes, made the same way
  if (!ca) {
    c.ok = false;
    c.detail = "the unit's CA cannot be made: " + ca.error().message;
  } else if (ca_bundle_text(**ca) == (*ca)->cert_pem()) {
    c.detail =
        "warning; no system CA bundle was found (OpenSSL's default file, "
        "/etc/ssl/certs/ca-certificates.crt, /etc/pki/tls/certs/ca-bundle.crt, /etc/ssl/cert.pem): "
        "the phases' bundle holds only the unit's CA, so pip, requests and git fail to verify an "
        "allowed https host without an injection rule; install the system's CA certificates "
        "(Debian: apt-get install ca-certificates)";
  } else {
    c.detail = "found; the unit's CA is added to it";
  }
  return {c};
}

// Every program a unit of this config runs, as its phases name it: each agent's (its command, or
// its provider's), each repository's setup and checks.
std::vector<WorkerProgram> unit_programs(const Config& cfg) {
  std::vector<WorkerProgram> out;
  auto agent = [&out](const std::string& name, const AgentConfig& a) {
    const ProviderSpec* spec = find_provider(a.provider.empty() ? "command" : a.provider);
    const Argv& argv = !a.command.empty() ? a.command : spec ? spec->command : a.command;
    if (!argv.empty()) out.push_back({"agent " + name, argv[0]});
    for (const auto& [server, m] : a.mcp)
      if (!m.outside)  // a server run outside is started by awaywork, as the owner
        out.push_back({"MCP server " + server + " of agent " + name, m.command[0]});
  };
  for (const auto& [name, a] : cfg.agents) agent(name, a);
  if (!cfg.default_agent.empty() && !cfg.agents.count(cfg.default_agent)) {
    AgentConfig a;
    a.provider = cfg.default_agent;  // a built-in provider's name needs no entry
    agent(cfg.default_agent, a);
  }
  for (const auto& [name, r] : cfg.repos) {
    if (!r.setup.empty()) out.push_back({"setup of repo " + name, r.setup[0]});
    for (size_t i = 0; i < r.checks.size(); ++i)
      if (!r.checks[i].empty())
        out.push_back({fmt::format("check {} of repo {}", i + 1, name), r.checks[i][0]});
  }
  return out;
}

// Under isolation user the worker runs every phase: each program must be found and runnable as
// the worker finds it (its PATH is the phases', the owner's); world-writable folders without the
// sticky bit (where the worker could replace others' files) are warnings.
std::vector<Check> worker_checks(const Config& cfg) {
  std::vector<Check> out{shared_folders_check()};
  if (cfg.sandbox.mode != SandboxMode::off) out.push_back(cgroup_check(cfg));
  auto worker = lookup_worker(cfg.worker_user);
  if (!worker) return out;  // user_checks says the worker is missing, with the fix
  const char* path = std::getenv("PATH");
  for (auto& c : program_checks(unit_programs(cfg), path ? path : "/usr/bin:/bin", *worker))
    out.push_back(std::move(c));
  return out;
}

}  // namespace

Registry doctor_registry(const Config& cfg) {
  Registry reg;
  for (const char* iso : {"none", "user", "container"}) {
    reg.add(iso, [&cfg] {
      std::vector<Check> all{git_check(), state_dir_check(cfg), isolation_check(cfg)};
      for (auto& c : secret_checks()) all.push_back(std::move(c));
      for (auto& c : agent_checks(cfg)) all.push_back(std::move(c));
      for (auto& c : inference_checks(cfg)) all.push_back(std::move(c));
      for (auto& c : injected_checks(cfg)) all.push_back(std::move(c));
      for (auto& c : ca_bundle_checks(cfg)) all.push_back(std::move(c));
      return all;
    });
  }
  reg.add("none", [&cfg] { return sandbox_checks(cfg, sandbox_base_paths(cfg)); });
  reg.add("user", user_provider(cfg.worker_user));
  reg.add("user", [&cfg] { return worker_checks(cfg); });
  reg.add("container", container_provider(cfg));
  return reg;
}

Result<std::string> doctor_setup(const Config& cfg) {
  return setup_for_current_owner(cfg.worker_user);
}

}  // namespace aw
