#include "isolate/container/egress_bridge.h"

#include <unistd.h>

#include <chrono>
#include <thread>

#include "base/fs.h"
#include "isolate/container/container_launcher.h"

namespace aw {

namespace {

constexpr const char* kProgram = "/aw-bridge";
constexpr const char* kSocket = "/aw-egress.sock";

// Is 127.0.0.1:port in LISTEN state (0A) in the network namespace of pid?
bool listening(int pid, uint16_t port) {
  auto tcp = read_file(fmt::format("/proc/{}/net/tcp", pid), 1 << 20);
  return tcp &&
         tcp->find(fmt::format("0100007F:{:04X} 00000000:0000 0A", port)) != std::string::npos;
}

}  // namespace

std::string bridge_proxy_url(uint16_t port) {
  return fmt::format("http://127.0.0.1:{}", port);
}

Result<std::vector<std::string>> bridge_run_args(const BridgePlan& p) {
  for (const auto* path : {&p.program, &p.socket})
    if (path->empty() || (*path)[0] != '/' || path->find_first_of(",\"\n\r") != std::string::npos)
      return fail("bridge: {} cannot be mounted", *path);
  if (p.image.empty() || p.image[0] == '-') return fail("bridge: image name '{}'", p.image);
  std::vector<std::string> a = {"run", "-d", "--name=" + p.name};
  auto hard = hardening_args(p.engine);
  a.insert(a.end(), hard.begin(), hard.end());
  if (!p.seccomp_profile.empty()) a.push_back("--security-opt=seccomp=" + p.seccomp_profile);
  a.insert(a.end(),
           {"--user", fmt::format("{}:{}", p.uid, p.gid), "--network", "none", "--read-only",
            "--ipc", "private", "--pids-limit", "64", "--memory", "67108864",
            "--label=awaywork.unit=" + p.unit, "--label=awaywork.role=egress-bridge",
            fmt::format("--mount=type=bind,source={},target={},readonly", p.program, kProgram),
            fmt::format("--mount=type=bind,source={},target={}", p.socket, kSocket),
            std::string("--entrypoint=") + kProgram, p.image, std::to_string(p.port), kSocket});
  return a;
}

Status start_bridge(const BridgePlan& p) {
  AW_TRY(auto args, bridge_run_args(p));
  AW_TRY(auto o, engine_command(p.engine, args, std::chrono::seconds(60)));
  if (o.exit_code != 0) {
    (void)remove_container(p.engine, p.name);
    return fail("bridge container {}: {}", p.name, o.err.empty() ? o.out : o.err);
  }
  // Its PID on the host: the listening socket shows in that process's network namespace.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  std::string last;
  while (std::chrono::steady_clock::now() < deadline) {
    auto st = engine_command(p.engine,
                             {"inspect", "--format", "{{.State.Pid}} {{.State.Status}}", p.name},
                             std::chrono::seconds(10));
    if (st && st->exit_code == 0) {
      int pid = std::atoi(st->out.c_str());
      last = st->out;
      if (pid > 0 && listening(pid, p.port)) return {};
      if (st->out.find("exited") != std::string::npos) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  (void)remove_container(p.engine, p.name);
  return fail("bridge container {} did not listen on 127.0.0.1:{} ({})", p.name, p.port, last);
}

}  // namespace aw
