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

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "../../tests/fakes/fake_github.h"
#include "base/fs.h"
#include "forge/publish.h"
#include "git/git.h"
#include "proc/capture.h"

namespace {

using Clock = std::chrono::steady_clock;
const std::string kAskpass = std::string(AW_BINARY_DIR) + "/src/cli/awaywork";

std::vector<std::string> env() {
  return {"PATH=/usr/bin:/bin",          "HOME=/nonexistent",       "GIT_CONFIG_NOSYSTEM=1",
          "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=b",       "GIT_AUTHOR_EMAIL=b@b",
          "GIT_COMMITTER_NAME=b",        "GIT_COMMITTER_EMAIL=b@b", "LC_ALL=C"};
}

bool run(std::vector<std::string> argv, const std::string& cwd = "/",
         std::vector<std::string> extra = {}, const std::string& in = "") {
  std::vector<std::string> e = env();
  e.insert(e.end(), extra.begin(), extra.end());
  auto r = aw::capture({.argv = std::move(argv), .env = e, .cwd = cwd, .stdin_data = in});
  if (!r || r->exit_code != 0) {
    std::fprintf(stderr, "failed: %s\n", r ? r->err.c_str() : r.error().message.c_str());
    return false;
  }
  return true;
}

// FILES files in one commit, written by git fast-import (no work tree to write first).
bool make_remote_source(const std::string& dir, int files) {
  std::string stream = "commit refs/heads/main\ncommitter b <b@b> 0 +0000\ndata 4\ninit\n";
  for (int i = 0; i < files; ++i) {
    std::string body = "file " + std::to_string(i) + "\n" + std::string(200 + i % 300, 'y') + "\n";
    stream += "M 644 inline d" + std::to_string(i / 100) + "/f" + std::to_string(i) +
              ".txt\ndata " + std::to_string(body.size()) + "\n" + body + "\n";
  }
  return run({"git", "init", "-q", "-b", "main", dir}) &&
         run({"git", "fast-import", "--quiet"}, dir, {}, stream) &&
         run({"git", "checkout", "-q", "main"}, dir) && run({"git", "gc", "-q"}, dir);
}

double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::vector<std::string> askpass_env(const std::string& host, const std::string& token) {
  return {"GIT_ASKPASS=" + kAskpass, "AWAYWORK_ASKPASS=1", "AWAYWORK_ASKPASS_HOST=" + host,
          "AWAYWORK_ASKPASS_USERNAME=x-access-token", "AWAYWORK_ASKPASS_PASSWORD=" + token};
}

}  // namespace

int main(int argc, char** argv) {
  int files = argc > 1 ? std::atoi(argv[1]) : 20000;
  int rounds = argc > 2 ? std::atoi(argv[2]) : 7;
  char tmpl[] = "/tmp/aw-forge-bench-XXXXXX";
  std::string root = ::mkdtemp(tmpl);
  struct Cleanup {
    std::string path;
    ~Cleanup() { (void)aw::remove_tree(path); }
  } cleanup{root};
  aw::test::FakeGitHub fake(root);
  if (fake.api_url().empty()) {
    std::fprintf(stderr, "%s\n", fake.why().c_str());
    return 1;
  }
  std::printf("generating %d files\n", files);
  if (!make_remote_source(root + "/source", files)) return 1;
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
      ours.push_back(since(t));
      return true;
    };
    auto measure_plain = [&]() -> bool {
      ::sync();
      auto t = Clock::now();
      if (!run({"git", "clone", "-q", "--no-hardlinks", bare, dir + "/plain"})) return false;
      plain.push_back(since(t));
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
  std::vector<double> publish_s, push_s, cleanup_s;
  for (int r = 0; r < rounds; ++r) {
    std::string file = "bench/p" + std::to_string(r) + ".txt";
    aw::ForgePublishInput in;
    in.unit = {"bench-" + std::to_string(r), "test", "none", "off", "accepted", {{"check 1", 0}}};
    in.issue = n;
    in.base_ref = "main";
    in.base_commit = *base;
    in.patch = "diff --git a/" + file + " b/" + file +
               "\nnew file mode 100644\n--- /dev/null\n+++ b/" + file + "\n@@ -0,0 +1 @@\n+p\n";
    in.paths = {file};
    in.commit_message = "bench";
    in.allowed_labels = {"bench"};
    aw::Request pr{"create_pull_request", 1, "bench", "body", "", "", "", "", {}};
    aw::Request comment{"add_comment", 2, "", "done", "", "", "", "", {}};
    aw::Request labels{"add_labels", 3, "", "", "", "", "", "", {"bench"}};
    in.requests = {pr, comment, labels};
    in.scratch_dir = root + "/scratch";
    in.askpass = kAskpass;
    in.mirror_dir = mirror_dir;
    // Labels are posted once per issue: a fresh issue each round keeps every round equal.
    in.issue = fake.control("POST", "repos/octo/web/issues", {{"title", "b"}, {"body", "b"}})
                   .value("number", int64_t{n});
    auto t = Clock::now();
    auto done = aw::publish_to_forge(s, in);
    if (!done || done->posted.size() != 3) {
      std::fprintf(stderr, "publish: %s\n", done ? "not all posted" : done.error().message.c_str());
      return 1;
    }
    publish_s.push_back(since(t));
    // The scratch's removal, left to the session off the critical path: waited for here, apart,
    // so that it does not slow the plain push measured next.
    t = Clock::now();
    s.background.clear();
    cleanup_s.push_back(since(t));
    // The same push by plain git: a new commit on a new branch.
    std::string branch = "plain-" + std::to_string(r);
    if (!aw::write_file(pushdir + "/q" + std::to_string(r) + ".txt", "q\n")) return 1;
    if (!run({"git", "add", "-A"}, pushdir) || !run({"git", "commit", "-qm", "q"}, pushdir))
      return 1;
    t = Clock::now();
    if (!run({"git", "-c", "credential.helper=", "push", "-q", remote.url,
              "HEAD:refs/heads/" + branch},
             pushdir, askpass_env(host, token)))
      return 1;
    push_s.push_back(since(t));
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
