// Usage: forge_bench [files=20000] [rounds=7]   (needs python3 for the fake GitHub)
// Two figures against the fake GitHub (tests/fakes/fake_github.py, a FAKE) on loopback:
//  1. a second unit's clone of a FILES-file remote: update_mirror (a fetch with nothing new) +
//     make_clone from the mirror, against a local `git clone --no-hardlinks` of the same bare
//     repository; medians and their ratio (target <= 1.2);
//  2. awaywork's own cost of a publish (push, draft PR, comment, labels) beyond the git push
//     itself: median publish_to_forge minus the median of the same push by plain git with the
//     same askpass (target <= 50 ms). The removal of the push's scratch folder, which the session
//     does on a thread after the publish, is waited for after each round and shown apart.
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "../../tests/fakes/fake_github.h"
#include "../common/bench_repo.h"
#include "../common/bench_time.h"
#include "../common/publish_round.h"
#include "../common/temp_root.h"
#include "base/fs.h"
#include "forge/publish.h"
#include "git/git.h"

namespace {

using Clock = aw::bench::Stopwatch;
using aw::bench::median;
using aw::bench::run;
using aw::bench::seconds_since;
const std::string kAskpass = std::string(AW_BINARY_DIR) + "/src/cli/awaywork";

}  // namespace

int main(int argc, char** argv) {
  int files = argc > 1 ? std::atoi(argv[1]) : 20000;
  int rounds = argc > 2 ? std::atoi(argv[2]) : 7;
  aw::bench::TempRoot temp("/tmp/aw-forge-bench-");
  const std::string& root = temp.path();
  aw::test::FakeGitHub fake(root);
  if (fake.api_url().empty()) {
    std::fprintf(stderr, "%s\n", fake.why().c_str());
    return 1;
  }
  std::printf("generating %d files\n", files);
  if (!aw::bench::make_imported_repo(root + "/source", files)) return 1;
  fake.user("octo");
  std::string token = fake.user("aw-bot");
  fake.control("POST", "repos", {{"owner", "octo"}, {"name", "web"}, {"source", root + "/source"}});
  fake.control("PUT", "repos/octo/web/collaborators/aw-bot", {{"permission", "write"}});
  std::string bare = root + "/fake-state/repos/octo/web.git";
  std::string host = fake.git_url().substr(fake.git_url().find("://") + 3);

  // 1. The second unit's clone.
  aw::ApplyTarget remote;
  remote.url = fake.git_url() + "/octo/web.git";
  remote.credential = "GH_TOKEN";
  remote.secret_value = token;
  std::string mirror_dir = root + "/state/mirrors/web.git";
  {
    auto first = aw::update_mirror(remote, mirror_dir, kAskpass);  // the first unit's
    if (!first) {
      std::fprintf(stderr, "mirror: %s\n", first.error().message.c_str());
      return 1;
    }
  }
  std::vector<double> ours, plain;
  for (int r = 0; r < rounds; ++r) {
    std::string dir = root + "/run" + std::to_string(r);
    if (!aw::make_dirs(dir)) return 1;
    auto measure_ours = [&]() -> bool {
      ::sync();
      auto t = Clock::now();
      auto m = aw::update_mirror(remote, mirror_dir, kAskpass);
      if (!m) return std::fprintf(stderr, "%s\n", m.error().message.c_str()), false;
      auto base = aw::resolve_commit(m->repo, "main");
      auto c = base ? aw::make_clone(m->repo, *base, "main", dir + "/work", dir + "/git")
                    : aw::Result<aw::Clone>(aw::fail("no base"));
      if (!c) return std::fprintf(stderr, "%s\n", c.error().message.c_str()), false;
      ours.push_back(seconds_since(t));
      return true;
    };
    auto measure_plain = [&]() -> bool {
      ::sync();
      auto t = Clock::now();
      if (!run({"git", "clone", "-q", "--no-hardlinks", bare, dir + "/plain"})) return false;
      plain.push_back(seconds_since(t));
      return true;
    };
    if (!(r % 2 == 0 ? measure_ours() && measure_plain() : measure_plain() && measure_ours()))
      return 1;
    (void)aw::remove_tree(dir);
    std::printf("clone round %d: awaywork %.3fs  plain %.3fs\n", r + 1, ours.back(), plain.back());
  }
  double o = median(ours), p = median(plain);
  std::printf(
      "second-unit clone, %d files: awaywork (fetch + clone from mirror) median %.3f s, "
      "git clone --no-hardlinks median %.3f s, ratio %.2f (target <= 1.2)\n",
      files, o, p, o / p);

  // 2. The publish overhead beyond the push.
  auto issue = fake.control("POST", "repos/octo/web/issues", {{"title", "bench"}, {"body", "b"}});
  int64_t n = issue.value("number", int64_t{0});
  auto transport = aw::beast_transport(aw::TransportOptions{
      fake.api_url(), "", std::chrono::milliseconds(10000), std::chrono::milliseconds(60000)});
  if (!transport) return 1;
  aw::GitHubOptions opt;
  opt.api_url = fake.api_url();
  opt.credential = "GH_TOKEN";
  aw::ForgeSession s{{},       "octo/web",
                     token,    aw::GitHub(opt, token, std::move(*transport), aw::system_clock()),
                     "aw-bot", {},
                     {}};
  s.forge.credential = "GH_TOKEN";
  s.repo.clone_url = remote.url;
  s.repo.html_url = fake.git_url() + "/octo/web";
  auto mirror = aw::update_mirror(remote, mirror_dir, kAskpass);
  if (!mirror) return 1;
  auto base = aw::resolve_commit(mirror->repo, "main");
  std::string pushdir = root + "/push";
  if (!run({"git", "clone", "-q", bare, pushdir})) return 1;
  auto askpass = aw::bench::askpass_env(kAskpass, host, "x-access-token", token);
  std::vector<double> publish_s, push_s, cleanup_s;
  for (int r = 0; r < rounds; ++r) {
    aw::ForgePublishInput in = aw::bench::publish_input(r, *base, root, mirror_dir, kAskpass);
    // Labels are posted once per issue: a fresh issue each round keeps every round equal.
    in.issue = fake.control("POST", "repos/octo/web/issues", {{"title", "b"}, {"body", "b"}})
                   .value("number", int64_t{n});
    auto publish = [](aw::ForgeSession& session, const aw::ForgePublishInput& input) {
      return aw::publish_to_forge(session, input);
    };
    if (!aw::bench::timed_publish(s, in, publish, 3, publish_s, cleanup_s)) return 1;
    // The same push by plain git: a new commit on a new branch.
    double plain_push = aw::bench::timed_plain_push(pushdir, r, remote.url, askpass);
    if (plain_push < 0) return 1;
    push_s.push_back(plain_push);
    std::printf("publish round %d: publish %.1f ms, plain push %.1f ms, scratch removal %.1f ms\n",
                r + 1, publish_s.back() * 1e3, push_s.back() * 1e3, cleanup_s.back() * 1e3);
  }
  double pub = median(publish_s), push = median(push_s);
  std::printf(
      "publish (push, draft PR, comment, labels): median %.1f ms; plain git push median "
      "%.1f ms; awaywork's overhead beyond the push %.1f ms (target <= 50 ms); the scratch's "
      "removal after it, off the critical path, median %.1f ms\n",
      pub * 1e3, push * 1e3, (pub - push) * 1e3, median(cleanup_s) * 1e3);
  return 0;
}
