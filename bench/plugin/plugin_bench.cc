// plugin_bench [RUNS] (root: a plugin always runs with its cgroup limits): issue 28's figure, one
// plugin call (call_plugin: the checks before it, the sandbox's start, the JSON-RPC round trip,
// the exit and the proof nothing survives), against the same programs run bare, medians of RUNS
// interleaved rounds (load on the shared machine spreads over every case):
//   bare /bin/true            fork + execve + waitpid
//   bare node -e 0            the same for node (when a node is on PATH)
//   bare sh plugin            the shell plugin below, fork + exec, the request on stdin
//   plugin call, sh           call_plugin of that plugin (runtime exec)
//   bare node plugin          the node plugin below, bare
//   plugin call, node (exec)  call_plugin of it through its #!/usr/bin/node line (runtime exec)
//   plugin call, node runtime call_plugin of it as `runtime: node` (node's permission model on top)
// and the ratios of each call to its bare floors. A long-lived plugin's call overhead is not
// measured: awaywork starts a process per call and kills it after (plugin/call.h says why).
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "../common/bench_time.h"
#include "base/fs.h"
#include "isolate/sandbox/sandbox.h"
#include "plugin/approval.h"
#include "plugin/call.h"
#include "plugin/protocol.h"

namespace {

using aw::bench::Case;
using aw::bench::measure;
using aw::bench::median;

// fork + exec + wait, stdin from `in` ("" = /dev/null), stdout and stderr to /dev/null.
bool spawn(const std::vector<std::string>& args, const std::string& in = "") {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t p = ::fork();
  if (p == 0) {
    int i = ::open(in.empty() ? "/dev/null" : in.c_str(), O_RDONLY);
    int o = ::open("/dev/null", O_WRONLY);
    if (i < 0 || o < 0) ::_exit(126);
    ::dup2(i, 0), ::dup2(o, 1), ::dup2(o, 2);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  int st = 0;
  ::waitpid(p, &st, 0);
  return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

// The first node on PATH, "" when there is none.
std::string find_node() {
  const char* path = std::getenv("PATH");
  std::string rest = path ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= rest.size()) {
    size_t end = rest.find(':', start);
    if (end == std::string::npos) end = rest.size();
    std::string candidate = rest.substr(start, end - start) + "/node";
    if (end > start && ::access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  int runs = argc > 1 ? std::atoi(argv[1]) : 50;
  if (::geteuid() != 0) {
    std::fprintf(stderr, "plugin_bench: run as root (a plugin's cgroup limits need it)\n");
    return 2;
  }
  char tmpl[] = "/var/tmp/aw-plugin-bench-XXXXXX";  // not /tmp: the plugin's /tmp is private
  if (!::mkdtemp(tmpl)) return 1;
  std::string dir = tmpl, owner = dir + "/owner", state = dir + "/state";
  std::string sh_dir = dir + "/sh-plugin", node_dir = dir + "/node-plugin",
              noderun_dir = dir + "/node-runtime";
  for (const auto& d : {owner, state, dir + "/config", sh_dir, node_dir, noderun_dir})
    if (!aw::make_dirs(d)) return 1;
  std::string request = dir + "/request.json";
  (void)aw::write_file(request, aw::rpc_request("unit_ended", {{"unit", "u-1"}}));
  const std::string reply = R"({"jsonrpc":"2.0","id":1,"result":{}})";
  (void)aw::write_file(sh_dir + "/plugin.sh",
                       "#!/bin/sh\nread -r req\nprintf '%s\\n' '" + reply + "'\n", 0755);
  std::string node_js =
      "let s = '';\nprocess.stdin.on('data', (d) => (s += d)).on('end', () => "
      "process.stdout.write('" +
      reply + "\\n'));\n";
  std::string node = find_node();
  if (!node.empty()) {
    (void)aw::write_file(node_dir + "/plugin.js", "#!" + node + "\n" + node_js, 0755);
    (void)aw::write_file(noderun_dir + "/plugin.js", node_js, 0644);
    (void)aw::write_file(noderun_dir + "/awaywork-plugin.json",
                         R"({"name": "bench", "version": "1.0.0", "kinds": ["notifier"],
"entry": "plugin.js", "runtime": "node"})",
                         0644);
  }

  aw::PluginHost host;
  host.run = true;
  host.base.owner_home = owner;
  host.base.state_dir = state;
  host.base.config_dir = dir + "/config";
  host.base.root_owner = true;
  host.plugins_dir = state + "/plugins";
  auto plugin = [&](const std::string& name, const std::string& program) {
    aw::PluginConfig p;
    p.name = name;
    p.command = {program};
    p.timeout_ms = 20000;
    p.memory_bytes = 256ull << 20;  // node's heap needs more than a shell
    p.processes = 32;
    return p;
  };
  auto call = [&host](const aw::PluginConfig& p) {
    return [&host, p] {
      auto r = aw::call_plugin(p, host, "unit_ended", {{"unit", "u-1"}});
      if (!r) std::fprintf(stderr, "%s\n", r.error().message.c_str());
      return bool(r);
    };
  };

  std::vector<Case> cases;
  cases.push_back({"bare /bin/true", [] { return spawn({"/bin/true"}); }, {}});
  aw::PluginConfig sh = plugin("bench-sh", sh_dir + "/plugin.sh");
  cases.push_back(
      {"bare sh plugin", [sh, request] { return spawn({sh.command[0]}, request); }, {}});
  cases.push_back({"plugin call, sh", call(sh), {}});
  std::vector<aw::PluginConfig> approve = {sh};
  bool node_runtime = false;
  if (!node.empty()) {
    aw::PluginConfig nd = plugin("bench-node", node_dir + "/plugin.js");
    aw::PluginConfig nr = plugin("bench-node-runtime", noderun_dir + "/plugin.js");
    cases.push_back({"bare node -e 0", [node] { return spawn({node, "-e", "0"}); }, {}});
    cases.push_back({"bare node plugin",
                     [node, nd, request] {
                       return spawn({node, nd.command[0]}, request);
                     },
                     {}});
    cases.push_back({"plugin call, node (exec)", call(nd), {}});
    approve.push_back(nd);
    // runtime: node needs a node with a permission model (20 or later): without it the case is
    // left out with the reason.
    auto first = aw::approve_plugin(nr, host.plugins_dir).and_then([&](auto&&) {
      return aw::call_plugin(nr, host, "unit_ended", {});
    });
    if (first) {
      cases.push_back({"plugin call, node runtime", call(nr), {}});
      node_runtime = true;
    } else {
      std::printf("runtime node: not measured: %s\n", first.error().message.c_str());
    }
  }
  for (const auto& p : approve)
    if (auto ok = aw::approve_plugin(p, host.plugins_dir); !ok) {
      std::fprintf(stderr, "approve %s: %s\n", p.name.c_str(), ok.error().message.c_str());
      return 1;
    }

  measure(cases, runs);
  (void)aw::sweep_sandbox_cgroups();
  (void)aw::remove_tree(dir);

  auto med = [&](const std::string& name) {
    for (const auto& c : cases)
      if (c.name == name) return median(c.ms);
    return 0.0;
  };
  std::printf("runs per case: %d, interleaved (medians)\n", runs);
  for (const auto& c : cases) std::printf("%-28s %8.3f ms\n", c.name.c_str(), median(c.ms));
  double call_sh = med("plugin call, sh");
  std::printf("plugin call, sh / bare /bin/true      %6.2fx   overhead %+.3f ms\n",
              call_sh / med("bare /bin/true"), call_sh - med("bare /bin/true"));
  std::printf("plugin call, sh / bare sh plugin      %6.2fx   overhead %+.3f ms\n",
              call_sh / med("bare sh plugin"), call_sh - med("bare sh plugin"));
  if (!node.empty()) {
    double call_node = med("plugin call, node (exec)");
    std::printf("plugin call, node / bare node -e 0    %6.2fx   overhead %+.3f ms\n",
                call_node / med("bare node -e 0"), call_node - med("bare node -e 0"));
    std::printf("plugin call, node / bare node plugin  %6.2fx   overhead %+.3f ms\n",
                call_node / med("bare node plugin"), call_node - med("bare node plugin"));
    if (node_runtime) {
      double rt = med("plugin call, node runtime");
      std::printf("node runtime / node (exec)            %6.2fx   overhead %+.3f ms\n",
                  rt / call_node, rt - call_node);
    }
  } else {
    std::printf("node: not on PATH, its cases were left out\n");
  }
  std::printf(
      "long-lived plugin: not measured; awaywork starts a process per call and kills it after "
      "(plugin/call.h)\n");
  return 0;
}
