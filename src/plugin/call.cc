#include "plugin/call.h"

#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "base/fs.h"
#include "base/inert.h"
#include "base/random.h"
#include "config/paths.h"
#include "isolate/sandbox/sandbox.h"
#include "isolate/sandbox/unit_view.h"
#include "plugin/approval.h"
#include "plugin/disable.h"
#include "plugin/injected_secrets.h"
#include "plugin/manifest.h"
#include "plugin/node_runtime.h"
#include "plugin/program_path.h"
#include "plugin/protocol.h"
#include "plugin/sandbox_env.h"
#include "plugin/worker_call.h"
#include "plugin/write_paths.h"
#include "proxy/egress_proxy.h"

namespace aw {

namespace {

bool under(const std::string& path, const std::string& root) {
  return path == root || path.starts_with(root + "/");
}

// The folder of the plugin's program, lent read-only (a plugin is its folder); nothing when the
// system trees already hold it. Never the root or a whole home.
Status lend_plugin_folder(const PluginConfig& p, SandboxPlan& plan) {
  std::string program = plugin_program_realpath(p.command[0]);
  if (program.empty())
    return fail("plugin {}: its program {} does not exist; fix plugins.{}.command", p.name,
                p.command[0], p.name);
  std::string dir = program.substr(0, program.rfind('/'));
  for (const auto& tree : plan.system)
    if (under(dir, tree)) return {};
  if (dir.empty() || dir == "/" || dir == plugin_program_realpath(plan.owner_home) ||
      dir == "/home" || dir == "/root")
    return fail(
        "plugin {}: its program is straight in {}, which would lend the plugin all of it; put "
        "the plugin in a folder of its own, e.g. ~/plugins/{}/",
        p.name, dir.empty() ? "/" : dir, p.name);
  plan.readable.push_back({dir, dir, "plugin"});
  return {};
}

// What a call leaves: its folder (the proxy's socket) removed, its proxy stopped.
struct CallPlace {
  std::string dir;
  std::unique_ptr<EgressProxy> proxy;
  std::FILE* log = nullptr;
  ~CallPlace() {
    proxy.reset();  // joins the proxy's thread before its log closes
    if (log) std::fclose(log);
    if (!dir.empty()) (void)remove_tree(dir);
  }
};

// sock: in the call's folder, or under isolation user in the worker's helper folder.
// inj: the secrets it adds (plugin/injected_secrets.h), with their values: the proxy's alone.
Status start_proxy(const PluginConfig& p, const PluginHost& host, const std::string& plugin_dir,
                   const std::string& sock, const PluginInjection& inj, CallPlace& place,
                   SandboxPlan& plan) {
  place.log = std::fopen((plugin_dir + "/egress.log").c_str(), "ae");
  std::FILE* log = place.log;
  EgressProxyOptions o;
  o.socket_path = sock;
  o.allow = p.net;
  o.log = [log](const std::string& line) {
    if (log) std::fprintf(log, "%s\n", line.c_str()), std::fflush(log);
  };
  if (!host.test_static_hosts.empty()) {
    o.static_hosts = host.test_static_hosts;
    o.allow_private_upstream = true;
  }
  if (!host.test_upstream_ca.empty()) o.ca_file = host.test_upstream_ca;
  inj.into(o);
  AW_TRY(place.proxy, with_context(EgressProxy::start(std::move(o)), "egress proxy"));
  plan.proxy_socket = sock;
  return {};
}

// How the process ended, as an Error unless it exited 0.
Status ended_well(const PluginConfig& p, const PhaseResult& r, bool overflow,
                  const std::string& err_tail) {
  std::string tail = err_tail.empty() ? "" : fmt::format("; it printed on stderr: {}", err_tail);
  switch (r.end) {
    case PhaseEnd::failed_to_start:
      return fail("plugin {} did not start: {}", p.name, r.start_error);
    case PhaseEnd::timed_out:
      return fail("plugin {} timed out after {} s and was killed (plugins.{}.timeout)", p.name,
                  p.timeout_ms / 1000, p.name);
    case PhaseEnd::cancelled:
      if (overflow)
        return fail("plugin {} printed more than {} KiB and was killed; a reply is one JSON line",
                    p.name, kPluginReplyCap >> 10);
      return fail("plugin {} was stopped", p.name);
    case PhaseEnd::signaled:
      return fail("plugin {} was {}{}{}", p.name, describe(r),
                  r.oom_kills > 0 ? fmt::format(" at its memory limit ({} MiB, plugins.{}.memory)",
                                                p.memory_bytes >> 20, p.name)
                                  : "",
                  tail);
    case PhaseEnd::exited:
      if (r.exit_code != 0) return fail("plugin {} exited {}{}", p.name, r.exit_code, tail);
      return {};
  }
  return fail("plugin {} ended in an unknown way", p.name);
}

}  // namespace

PluginHost plugin_host(const Config& cfg) {
  PluginHost host;
  host.run = cfg.plugins.run;
  host.base = sandbox_base_paths(cfg);
  host.plugins_dir = state_dir_of(cfg) + "/plugins";
  for (const auto& [name, secret] : cfg.secrets)
    if (!secret.inject.empty()) host.inject[name] = secret.inject;
  // The config's isolation is the unit's (a unit's notifiers and checks) and, for a call tied to
  // no unit (a source polled by watch, its task_done), that of the units watch starts: the
  // boundary the owner chose for code that is not theirs to trust.
  if (cfg.isolation == Isolation::user)
    host.worker = PluginWorker{cfg.worker_user, state_dir_of(cfg), ""};
  return host;
}

Result<PluginCall> call_plugin(const PluginConfig& p, const PluginHost& host,
                               std::string_view method, const nlohmann::json& params) {
  if (!host.run)
    return fail(
        "plugin {} did not run: plugins are off on this machine (plugins: {{run: false}}); write "
        "plugins: {{run: true}} to run the plugins you declared",
        p.name);
  // The owner's switch for this one plugin, read before anything of it starts (plugin/disable.h).
  AW_TRY(bool disabled, plugin_disabled(host.plugins_dir, p.name));
  if (disabled)
    return fail(
        "plugin {} did not run: you disabled it (awaywork plugin disable {}); run awaywork plugin "
        "enable {} to run it again",
        p.name, p.name, p.name);
  if (p.command.empty()) return fail("plugin {} has no command", p.name);
  std::string plugin_dir = host.plugins_dir + "/" + p.name, data = plugin_dir + "/data";
  AW_CHECK(with_context(make_dirs(host.worker ? plugin_dir : data),
                        fmt::format("plugin {}: its data folder", p.name)));
  AW_TRY(std::string id, random_hex(4));
  std::unique_ptr<WorkerCall> as_worker;  // isolation user; released after place (its proxy)
  CallPlace place;
  place.dir = plugin_dir + "/call-" + id;
  AW_CHECK(make_dirs(place.dir));

  // The author's manifest bounds the owner's grant (plugin/manifest.h): a kind, a program or a
  // permission it does not ask for is refused before anything of it runs; its limits cap the
  // config's (the lower of the two applies).
  AW_TRY(std::optional<PluginManifest> manifest, manifest_of(p, host.base.owner_home));
  if (manifest) AW_CHECK(check_grant(p, *manifest));
  // What the call applies: p's grant with the manifest's limits and write: as real paths. p
  // itself stays what the owner approved.
  PluginConfig run = manifest ? bounded_limits(p, *manifest) : p;
  // Under isolation user the call runs as the worker (plugin/worker_call.h): its write: folders
  // refused, the worker taken, its data folder one the worker can be handed.
  if (host.worker) {
    AW_TRY(as_worker, WorkerCall::open(p, *host.worker, plugin_dir));
    data = as_worker->data();
  }
  AW_TRY(run.write, plugin_write_paths(p, host.base));

  // A declared secret the config's secrets: gives injection rules is added by the plugin's egress
  // proxy and never handed to it: the plugin holds its placeholder. The rest go by name.
  AW_TRY(PluginInjection inj, plugin_injection(p, host));
  SandboxEnvSpec env_spec{"plugin",    p.name,      "AWAYWORK_PLUGIN", p.env,
                          inj.by_name, host.secret, host.environ_from, data};
  AW_TRY(std::vector<std::string> env, sandbox_env(env_spec));
  env.insert(env.end(), inj.env.begin(), inj.env.end());
  SandboxConfig sc;
  sc.mode = SandboxMode::required;  // no unsandboxed fallback for plugin code
  sc.network = p.net.empty() ? Network::none : Network::allowlist;
  sc.allow = p.net;
  sc.readable = p.read;
  sc.writable = run.write;  // besides its data folder (sp.home below)
  sc.limits = Limits{run.memory_bytes, run.processes, 1.0, true};
  SandboxPaths sp = host.base;
  sp.clone.clear();
  sp.home = data;  // writable with its write: folders and the private /tmp, nothing else
  sp.provider_state.clear();
  sp.programs.clear();
  sp.path_value = kSandboxPath;
  if (as_worker) sp.root_owner = false;  // the worker is never root: root's files are not its
  AW_TRY(SandboxPlan plan,
         with_context(make_plan(sc, sp), fmt::format("plugin {}: its sandbox", p.name)));
  plan.cgroup_name = "plugin-" + p.name + "-" + id;
  AW_CHECK(lend_plugin_folder(p, plan));
  if (as_worker) AW_CHECK(as_worker->check_reach(p, plan));
  // The owner approved this code and these permissions by hash, or nothing of it runs: read last
  // before the call, after the folder is known to be the plugin's own (never a whole home).
  AW_TRY(Approval approval, plugin_approval(p, host.plugins_dir));
  if (approval.state != ApprovalState::current) return fail("{}", approval_refusal(p, approval));
  if (plan.network == Network::allowlist) {
    std::string sock = place.dir + "/egress.sock";
    if (as_worker) {
      AW_TRY(sock, as_worker->proxy_socket());
    }
    AW_CHECK(with_context(start_proxy(p, host, plugin_dir, sock, inj, place, plan),
                          fmt::format("plugin {}", p.name)));
    // The proxy's CA for the bound hosts, which the plugin's clients trust through the usual
    // variables: a bundle of certificates only, lent read-only (in the worker's helper folder
    // under isolation user, which the worker reaches by name; its key stays in this process).
    if (inj.ca) {
      AW_TRY(std::string hex, random_hex(8));
      std::string bundle =
          (as_worker ? as_worker->helper_dir() : place.dir) + "/ca-" + hex + ".pem";
      AW_CHECK(with_context(write_ca_bundle(bundle, *inj.ca),
                            fmt::format("plugin {}: its CA bundle", p.name)));
      plan.readable.push_back({bundle, bundle, "ca"});
      for (const std::string& name : ca_bundle_env_names()) env.push_back(name + "=" + bundle);
    }
    // The worker's sandbox connects as the worker: that one uid, by an ACL entry.
    if (as_worker)
      AW_CHECK(with_context(as_worker->grant_socket(sock), fmt::format("plugin {}", p.name)));
    std::string url = fmt::format("http://127.0.0.1:{}", plan.proxy_port);
    for (const char* name : {"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"})
      env.push_back(std::string(name) + "=" + url);
  }
  AW_CHECK(with_context(
      sandbox_available(plan),
      fmt::format("plugin {} did not run: its sandbox cannot be built (a plugin always "
                  "runs with its memory and process limits, whatever "
                  "sandbox.limits says)",
                  p.name)));

  std::string out, err;
  std::atomic<bool> overflow{false};
  PhaseSpec spec;
  spec.name = "plugin " + p.name;
  spec.argv = p.command;
  // runtime node: Node's permission model as a second layer inside the sandbox (node_runtime.h).
  if (manifest && manifest->runtime == "node") {
    AW_TRY(spec.argv, node_plugin_argv(run, data));
  }
  spec.env = std::move(env);
  spec.cwd = data;
  spec.stdin_data = rpc_request(method, params);
  spec.timeout = std::chrono::milliseconds(run.timeout_ms);
  spec.grace = std::chrono::milliseconds(500);
  std::string report = place.dir + "/warden.txt";  // the owner's: the warden writes it
  if (as_worker) {
    AW_TRY(spec.launcher,
           with_context(as_worker->launcher(plan, report), fmt::format("plugin {}", p.name)));
  } else {
    spec.launcher = make_sandbox_launcher(plan);
  }
  spec.on_output = [&](Stream s, std::string_view bytes) {
    if (s == Stream::err) {
      err.append(bytes);
      if (err.size() > 2 * kPluginStderrTail) err.erase(0, err.size() - kPluginStderrTail);
      return;
    }
    if (out.size() + bytes.size() > kPluginReplyCap + 1) {
      out.append(bytes.substr(0, kPluginReplyCap + 1 - out.size()));
      overflow = true;
    } else {
      out.append(bytes);
    }
  };
  spec.cancelled = [&] { return overflow.load(); };
  auto ran = run_phase(spec);
  SandboxOomCount oom(plan.cgroup_name);
  int oom_kills = oom.sweep_after_phase();
  // The data folder back from the worker, whatever the call did, before its outcome is read.
  Status back = as_worker ? as_worker->finish(report) : Status{};
  if (!ran) return tl::make_unexpected(ran.error());
  if (!back) return fail("plugin {}: {}", p.name, back.error().message);
  PluginCall call;
  call.phase = *ran;
  call.phase.oom_kills += oom_kills;
  if (err.size() > kPluginStderrTail) err.erase(0, err.size() - kPluginStderrTail);
  call.stderr_tail = inert(err);
  AW_CHECK(ended_well(run, call.phase, overflow, call.stderr_tail));
  AW_TRY(call.result, rpc_reply(out, p.name));
  return call;
}

}  // namespace aw
