// Figures for `awaywork serve` with 10,000 units in the record:
//   the first page of GET /api/v1/units through the real server (target: median <= 20 ms),
//   against the same page made in-process (Store::page + unit_row JSON, no HTTP; the baseline,
//   same run): the ratio is what HTTP, the guard and the worker hand-off add.
// Run:  build/bench/serve/serve_bench
//       build/bench/serve/serve_bench --fill DIR   only make DIR/config.yml and a record of
//                                                  10,000 units (dashboard_bench.mjs uses it)
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../common/bench_time.h"
#include "record/store.h"
#include "serve/view.h"

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kUnits = 10000;

using aw::bench::median;

double pct(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(p * (v.size() - 1))];
}

aw::UnitRecord unit(int i) {
  static const char* states[] = {"done", "failed", "refused", "done", "interrupted", "timed_out"};
  aw::UnitRecord u;
  char id[64], at[64];
  int day = 1 + (i / 1440) % 28, min = i % 1440;
  std::snprintf(at, sizeof at, "2026-11-%02dT%02d:%02d:00.000Z", day, min / 60, min % 60);
  std::snprintf(id, sizeof id, "202611%02d-%02d%02d00-fix-the-thing-%04x", day, min / 60, min % 60,
                i & 0xffff);
  u.id = id;
  u.created_at = at;
  u.ended_at = at;
  u.state = aw::unit_from_json({{"state", states[i % 6]}})->state;
  u.repo = i % 3 ? "web" : "api";
  u.agent = i % 2 ? "claude" : "codex";
  u.isolation = "user";
  u.sandbox = "sandboxed";
  u.prompt = "Fix the flaky test in the payment module and explain the cause in CHANGES.md";
  u.run_dir = "/nonexistent/runs/" + u.id;
  u.verdict = "accepted";
  for (const char* name : {"setup", "agent", "check 1"}) {
    aw::PhaseRecord p;
    p.name = name;
    p.argv = {"sh", "-c", "make test"};
    p.started_at = at;
    p.duration_ms = 1000 + i % 5000;
    p.end = "exited";
    p.exit_code = 0;
    p.outcome = "exit 0";
    u.phases.push_back(p);
  }
  return u;
}

std::string fill(const std::string& dir) {
  std::filesystem::create_directories(dir);
  std::string config = dir + "/config.yml";
  std::ofstream(config) << "state_dir: " << dir
                        << "/state\nagent: a\nagents:\n  a:\n    command: "
                           "[/bin/true]\nrepos:\n  web:\n    path: /nonexistent\n";
  auto store = aw::Store::open(dir + "/state");
  if (!store) {
    std::fprintf(stderr, "serve_bench: %s\n", store.error().message.c_str());
    std::exit(1);
  }
  auto page = store->page({});
  if (page && page->total >= kUnits) return config;
  auto t0 = Clock::now();
  for (int i = 0; i < kUnits; ++i) (void)store->save(unit(i));
  std::fprintf(stderr, "serve_bench: %d units saved in %.1f s\n", kUnits,
               std::chrono::duration<double>(Clock::now() - t0).count());
  return config;
}

struct Served {
  pid_t pid;
  int port;
  std::string token;
};

Served serve(const std::string& config) {
  int out[2];
  if (::pipe(out) != 0) std::exit(1);
  std::string bin = std::string(AW_BINARY_DIR) + "/src/cli/awaywork";
  pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(out[1], 1);
    ::close(out[0]);
    int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 2);
    ::execl(bin.c_str(), bin.c_str(), "--config", config.c_str(), "serve", "--json",
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(out[1]);
  std::string line;
  char c;
  while (::read(out[0], &c, 1) == 1 && c != '\n') line += c;
  auto j = nlohmann::json::parse(line);
  std::string url = j["url"];
  return {pid, j["port"].get<int>(), url.substr(url.find("#token=") + 7)};
}

// One GET over a kept-alive connection; returns when the whole body arrived.
void get(int fd, const std::string& req) {
  if (::write(fd, req.data(), req.size()) != static_cast<ssize_t>(req.size())) std::exit(1);
  std::string buf;
  char b[65536];
  size_t need = std::string::npos;
  while (buf.size() < need) {
    ssize_t n = ::read(fd, b, sizeof b);
    if (n <= 0) std::exit(1);
    buf.append(b, static_cast<size_t>(n));
    size_t head = buf.find("\r\n\r\n");
    if (need == std::string::npos && head != std::string::npos) {
      size_t cl = buf.find("Content-Length: ");
      need = head + 4 + std::stoul(buf.substr(cl + 16));
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "--fill") {
    std::printf("%s\n", fill(argv[2]).c_str());
    return 0;
  }
  char tmpl[] = "/tmp/aw-serve-bench-XXXXXX";
  std::string dir = ::mkdtemp(tmpl);
  std::string config = fill(dir);
  std::vector<double> base, api;
  Served s = serve(config);
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(s.port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) return 1;
  std::string req = "GET /api/v1/units HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(s.port) +
                    "\r\nAuthorization: Bearer " + s.token + "\r\n\r\n";
  for (int i = 0; i < 10; ++i) get(fd, req);  // warm
  // Each sample starts after a pause in both loops: on a shared, loaded machine a loop that never
  // sleeps is time-sliced against every other process while a woken one is not.
  for (int i = 0; i < 200; ++i) {
    ::usleep(2000);
    auto t = Clock::now();
    get(fd, req);
    api.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t).count());
  }
  ::close(fd);
  ::kill(s.pid, SIGTERM);
  ::waitpid(s.pid, nullptr, 0);
  {
    auto store = aw::Store::open(dir + "/state");
    for (int i = 0; i < 210; ++i) {
      ::usleep(2000);
      auto t = Clock::now();
      auto page = store->page({});
      nlohmann::json rows = nlohmann::json::array();
      for (const auto& u : page->units) rows.push_back(aw::unit_row(u));
      (void)rows.dump();
      if (i >= 10)
        base.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t).count());
    }
  }
  std::filesystem::remove_all(dir);
  std::printf("units in the record: %d; first page (50 units), 200 requests each\n", kUnits);
  std::printf(
      "GET /api/v1/units via awaywork serve: median %.2f ms, p90 %.2f ms (target <= 20 ms)\n",
      median(api), pct(api, 0.9));
  std::printf(
      "baseline in-process (Store::page + the same rows as JSON): median %.2f ms; ratio %.2fx\n",
      median(base), median(api) / median(base));
  return median(api) <= 20.0 ? 0 : 1;
}
