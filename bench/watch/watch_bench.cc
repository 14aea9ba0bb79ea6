// Usage: watch_bench [repos=100] [fake_minutes=10] [poll_seconds=30] [trials=5]
// Two figures of `awaywork watch` against the fake GitHub (tests/fakes/fake_github.py, a FAKE)
// on loopback:
//  1. idle cost: REPOS repositories, nothing changing, poll_seconds POLL, for FAKE_MINUTES of a
//     compressed clock (the watcher's Clock advances without sleeping): the requests that count
//     against the rate limit after the first pass, per repository per hour (target <= 1), and
//     those of the first pass of a restarted watcher (its ETags come from the state database);
//  2. latency: a label added at a random moment of the poll cycle (real time) -> the unit's
//     first phase started (the agent writes the time it starts): the median over TRIALS
//     (target <= poll_seconds + 1 s).
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <random>
#include <thread>

#include "../../tests/forge/fake_github.h"
#include "../common/bench_time.h"
#include "../common/fast_clock.h"
#include "../common/watch_setup.h"
#include "base/fs.h"
#include "proc/capture.h"
#include "record/store.h"
#include "watch/watcher.h"

namespace {

using namespace aw;

using aw::bench::FastClock;
using aw::bench::median;

bool sh(const std::string& cmd) {
  auto r =
      capture({.argv = {"/bin/sh", "-c", cmd},
               .env = {"PATH=/usr/bin:/bin", "HOME=/nonexistent", "GIT_CONFIG_NOSYSTEM=1",
                       "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=b", "GIT_AUTHOR_EMAIL=b@b",
                       "GIT_COMMITTER_NAME=b", "GIT_COMMITTER_EMAIL=b@b"},
               .cwd = "/",
               .stdin_data = ""});
  if (!r || r->exit_code != 0) std::fprintf(stderr, "failed: %s\n", cmd.c_str());
  return r && r->exit_code == 0;
}

}  // namespace

int main(int argc, char** argv) {
  int repos = argc > 1 ? std::atoi(argv[1]) : 100;
  int minutes = argc > 2 ? std::atoi(argv[2]) : 10;
  int poll = argc > 3 ? std::atoi(argv[3]) : 30;
  int trials = argc > 4 ? std::atoi(argv[4]) : 5;
  char tmpl[] = "/tmp/aw-watch-bench-XXXXXX";
  std::string root = ::mkdtemp(tmpl);
  std::string home = bench::bench_home(root), src = root + "/src";
  if (!sh("git init -q -b main " + src + " && cd " + src +
          " && echo a > a.txt && git add a.txt && git commit -qm init"))
    return 1;
  auto owned = std::make_unique<test::FakeGitHub>(root);
  test::FakeGitHub& fake = *owned;
  if (fake.api_url().empty()) {
    std::fprintf(stderr, "fake GitHub: %s\n", fake.why().c_str());
    return 1;
  }
  fake.user("octo");
  fake.user("alice");
  std::string token = fake.user("aw-bot");
  std::string yaml = "state_dir: " + root + "/state\nsandbox: {mode: preferred}\nagent: t\n" +
                     "agents:\n  t:\n    command: [" + root + "/agent.sh]\n" +
                     "forges:\n  fake:\n    api_url: " + fake.api_url() +
                     "\n    credential: GH_TOKEN\nrepos:\n";
  std::string watched;
  for (int i = 0; i < repos; ++i) {
    std::string name = "r" + std::to_string(i);
    fake.control("POST", "repos", {{"owner", "octo"}, {"name", name}, {"source", src}});
    for (const char* who : {"alice", "aw-bot"})
      fake.control("PUT", "repos/octo/" + name + "/collaborators/" + who,
                   {{"permission", "write"}});
    yaml += "  " + name + ":\n    github: octo/" + name + "\n";
    watched += (i ? ", " : "") + name + ": {}";
  }
  yaml += "watch:\n  poll_seconds: " + std::to_string(poll) + "\n  repos: {" + watched + "}\n";
  std::string config = root + "/config.yml";
  (void)write_file(config, yaml);
  (void)write_file(root + "/agent.sh", "#!/bin/sh\ndate +%s.%N > started.txt\n", 0755);
  std::string exe = bench::awaywork_exe();
  auto cfg = bench::secret_and_config(exe, home, "GH_TOKEN", token, config);
  if (!cfg) return 1;
  // GitHub sends X-Poll-Interval: 60 on events; the fake's issue lists leave it out here so that
  // poll_seconds alone sets the pace being measured.
  fake.control("POST", "faults", {{"poll_interval", 0}});
  auto counted = [&] { return fake.control("GET", "stats")["counted"].get<int64_t>(); };

  // 1. Idle: a first watcher warms the ETags (stored), a second one is measured.
  auto log = EventLog::open(root + "/watch.jsonl");
  int64_t warm_counted = 0, first_pass = 0, after_first = 0, polls_before = 0;
  for (int round = 0; round < 2; ++round) {
    FastClock clock(::time(nullptr) * 1000);
    int64_t start = counted();
    clock.on_first_pass = [&] { first_pass = counted(); };
    int64_t until = clock.now_ms() + (round == 0 ? 1000 : minutes * 60000);
    polls_before = log->lines();
    WatchOptions opt;
    opt.self_exe = exe;
    opt.stop = [&] { return clock.now_ms() >= until; };
    Watcher w(*cfg, opt, *log, clock);
    if (auto ok = w.run(); !ok) {
      std::fprintf(stderr, "watch: %s\n", ok.error().message.c_str());
      return 1;
    }
    if (round == 0)
      warm_counted = counted() - start;
    else {
      after_first = counted() - first_pass;
      first_pass -= start;
    }
  }
  int64_t lines = log->lines() - polls_before;
  double hours = minutes / 60.0;
  std::printf("idle: %d repositories, poll_seconds %d, %d fake minutes (%lld log lines)\n", repos,
              poll, minutes, static_cast<long long>(lines));
  std::printf("  first watcher's start (open + first pass, no stored ETags): %lld counted\n",
              static_cast<long long>(warm_counted));
  std::printf(
      "  restarted watcher's start (GET /user + GET /repos each, lists from stored "
      "ETags): %lld counted\n",
      static_cast<long long>(first_pass));
  std::printf("  after the first pass: %lld counted = %.3f per repository per hour (target <= 1)\n",
              static_cast<long long>(after_first), after_first / (repos * hours));

  // 2. Latency, real time, one repository watched.
  std::string one = yaml.substr(0, yaml.find("watch:\n")) +
                    "watch:\n  poll_seconds: " + std::to_string(poll) + "\n  repos: {r0: {}}\n";
  (void)write_file(config, one);
  cfg = load_config(config, true);
  std::atomic<bool> stop{false};
  WatchOptions opt;
  opt.self_exe = exe;
  opt.stop = [&] { return stop.load(); };
  Watcher w(*cfg, opt, *log, system_clock());
  std::thread loop([&] { (void)w.run(); });
  std::mt19937 rng(7);
  std::vector<double> lat;
  auto store = Store::open(root + "/state");
  for (int t = 0; t < trials && store; ++t) {
    std::this_thread::sleep_for(std::chrono::milliseconds(rng() % (poll * 1000)));
    auto issue = fake.control("POST", "repos/octo/r0/issues", {{"title", "t"}, {"body", "b"}});
    int64_t n = issue["number"];
    double t0 =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    fake.control("POST", "repos/octo/r0/issues/" + std::to_string(n) + "/labels",
                 {{"user", "alice"}, {"labels", {"awaywork"}}});
    std::string started;
    for (int i = 0; i < (poll + 60) * 10 && started.empty(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      auto units = store->list(50);
      if (!units) continue;
      for (const auto& u : *units)
        if (u.issue == n && u.state != UnitState::running && !u.work.empty())
          started = read_file(u.work + "/started.txt", 4096).value_or("");
    }
    if (started.empty()) {
      std::fprintf(stderr, "trial %d: no unit started\n", t);
      continue;
    }
    lat.push_back(std::atof(started.c_str()) - t0);
    std::printf("  trial %d: %.2f s\n", t, lat.back());
  }
  stop = true;
  loop.join();
  if (lat.empty()) return 1;
  std::printf(
      "latency: label added -> first phase started, median %.2f s over %zu (target <= "
      "%d s)\n",
      median(lat), lat.size(), poll + 1);
  owned.reset();  // the fake writes its state at exit
  (void)remove_tree(root);
  return 0;
}
