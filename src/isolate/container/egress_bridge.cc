#include "isolate/container/egress_bridge.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "base/fs.h"
#include "isolate/container/container_launcher.h"

namespace aw {

namespace {

constexpr const char* kProgram = "/aw-bridge";

// Where pair i's socket is mounted inside the bridge container.
std::string inner_socket(size_t i) {
  return fmt::format("/aw-bridge-{}.sock", i);
}

// --mount is a CSV field list: a comma, quote or newline in a path would add fields.
bool bridge_mountable(const std::string& path) {
  return !path.empty() && path[0] == '/' && path.find_first_of(",\"\n\r") == std::string::npos;
}

Status check_pairs(const std::vector<BridgePair>& pairs) {
  if (pairs.empty()) return fail("bridge: no {{port, socket}} pair to relay");
  if (pairs.size() > kMaxBridgePairs)
    return fail("bridge: {} pairs, at most {}", pairs.size(), kMaxBridgePairs);
  for (size_t i = 0; i < pairs.size(); ++i) {
    if (pairs[i].port == 0) return fail("bridge: port 0 for {}", pairs[i].socket);
    if (!bridge_mountable(pairs[i].socket))
      return fail("bridge: {} cannot be mounted", pairs[i].socket);
    for (size_t j = 0; j < i; ++j)
      if (pairs[j].port == pairs[i].port) return fail("bridge: port {} twice", pairs[i].port);
  }
  return {};
}

// Is 127.0.0.1:port in LISTEN state (0A) in the network namespace of pid?
bool listening(const std::string& tcp, uint16_t port) {
  return tcp.find(fmt::format("0100007F:{:04X} 00000000:0000 0A", port)) != std::string::npos;
}

bool all_listening(int pid, const std::vector<BridgePair>& pairs) {
  auto tcp = read_file(fmt::format("/proc/{}/net/tcp", pid), 1 << 20);
  return tcp && std::all_of(pairs.begin(), pairs.end(),
                            [&](const BridgePair& b) { return listening(*tcp, b.port); });
}

}  // namespace

std::string bridge_proxy_url(uint16_t port) {
  return fmt::format("http://127.0.0.1:{}", port);
}

Result<std::vector<std::string>> bridge_run_args(const BridgePlan& p) {
  AW_CHECK(check_pairs(p.pairs));
  if (!bridge_mountable(p.program)) return fail("bridge: {} cannot be mounted", p.program);
  if (p.image.empty() || p.image[0] == '-') return fail("bridge: image name '{}'", p.image);
  std::vector<std::string> a = {"run", "-d", "--name=" + p.name};
  auto hard = hardening_args(p.engine);
  a.insert(a.end(), hard.begin(), hard.end());
  if (!p.seccomp_profile.empty()) a.push_back("--security-opt=seccomp=" + p.seccomp_profile);
  a.insert(a.end(),
           {"--user", fmt::format("{}:{}", p.uid, p.gid), "--network", "none", "--read-only",
            "--ipc", "private", "--pids-limit", "64", "--memory", "67108864",
            "--label=awaywork.unit=" + p.unit, "--label=awaywork.role=bridge",
            fmt::format("--mount=type=bind,source={},target={},readonly", p.program, kProgram)});
  for (size_t i = 0; i < p.pairs.size(); ++i)
    a.push_back(
        fmt::format("--mount=type=bind,source={},target={}", p.pairs[i].socket, inner_socket(i)));
  a.insert(a.end(), {std::string("--entrypoint=") + kProgram, p.image});
  for (size_t i = 0; i < p.pairs.size(); ++i) {
    a.push_back(std::to_string(p.pairs[i].port));
    a.push_back(inner_socket(i));
  }
  return a;
}

Status start_bridge(const BridgePlan& p) {
  AW_TRY(auto args, bridge_run_args(p));
  AW_TRY(auto o, engine_command(p.engine, args, std::chrono::seconds(60)));
  if (o.exit_code != 0) {
    (void)remove_container(p.engine, p.name);
    return fail("bridge container {}: {}", p.name, o.err.empty() ? o.out : o.err);
  }
  // Its PID on the host: the listening sockets show in that process's network namespace.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  std::string last;
  while (std::chrono::steady_clock::now() < deadline) {
    auto st = engine_command(p.engine,
                             {"inspect", "--format", "{{.State.Pid}} {{.State.Status}}", p.name},
                             std::chrono::seconds(10));
    if (st && st->exit_code == 0) {
      int pid = std::atoi(st->out.c_str());
      last = st->out;
      if (pid > 0 && all_listening(pid, p.pairs)) return {};
      if (st->out.find("exited") != std::string::npos) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  (void)remove_container(p.engine, p.name);
  std::string ports;
  for (const auto& b : p.pairs) ports += (ports.empty() ? "" : ", ") + std::to_string(b.port);
  return fail("bridge container {} did not listen on 127.0.0.1 port(s) {} ({})", p.name, ports,
              last);
}

}  // namespace aw
