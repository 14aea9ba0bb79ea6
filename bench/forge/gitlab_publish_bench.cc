// Usage: gitlab_publish_bench [files=200] [rounds=21]   (needs python3 for the fake GitLab)
// Issue 29's publish figure against the fake GitLab (tests/fakes/fake_gitlab.py, a FAKE) on
// loopback: awaywork's own cost of a GitLab publish (push, draft merge request, the note naming
// it, a checked note, labels) beyond the git push itself: median publish_to_gitlab minus the
// median of the same push by plain git with the same askpass (user oauth2; target <= 50 ms). The
// removal of the push's scratch folder, which the session does on a thread after the publish, is
// waited for after each round and shown apart. A measurement, never an assertion: bench/README.md
// gives the command and the figures. The fake's own share of each answer is not taken out (see
// bench/fakes/ for GitHub's).
#include <stdlib.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "../../tests/fakes/fake_gitlab.h"
#include "../common/bench_repo.h"
#include "../common/bench_time.h"
#include "../common/publish_round.h"
#include "../common/temp_root.h"
#include "base/fs.h"
#include "forge/gitlab/publish.h"
#include "git/git.h"

namespace {

using aw::bench::median;
using aw::bench::run;
const std::string kAskpass = std::string(AW_BINARY_DIR) + "/src/cli/awaywork";
const std::string kProject = "grp/sub/app";

}  // namespace

int main(int argc, char** argv) {
  int files = argc > 1 ? std::atoi(argv[1]) : 200;
  int rounds = argc > 2 ? std::atoi(argv[2]) : 21;
  if (files < 1 || rounds < 1) {
    std::fprintf(stderr, "usage: gitlab_publish_bench [files] [rounds]\n");
    return 2;
  }
  aw::bench::TempRoot temp("/tmp/aw-gitlab-publish-bench-");
  const std::string& root = temp.path();
  aw::test::FakeGitlab fake(root);
  if (fake.api_url().empty()) {
    std::fprintf(stderr, "%s\n", fake.error().c_str());
    return 1;
  }
  if (!aw::bench::make_imported_repo(root + "/source", files)) return 1;
  std::string token = fake.add_user("aw-bot");
  if (!fake.add_project(kProject, root + "/source").is_object()) {
    std::fprintf(stderr, "%s\n", fake.error().c_str());
    return 1;
  }
  fake.member("grp", "aw-bot", 30);
  fake.member(kProject, "maint", 40);
  fake.faults({{"limit", 1000000}});  // rounds close together must not meet the minute's limit

  auto transport = aw::beast_transport(aw::TransportOptions{
      fake.api_url(), "", std::chrono::milliseconds(10000), std::chrono::milliseconds(60000)});
  if (!transport) return 1;
  aw::GitLabOptions opt;
  opt.api_url = fake.api_url();
  opt.credential = "GITLAB_TOKEN";
  aw::ForgeConfig forge;
  forge.name = "lab";
  forge.kind = "gitlab";
  forge.api_url = fake.api_url();
  forge.credential = "GITLAB_TOKEN";
  auto s = std::unique_ptr<aw::GitLabSession>(
      new aw::GitLabSession{forge,
                            kProject,
                            token,
                            aw::GitLab(opt, token, std::move(*transport), aw::system_clock()),
                            {},
                            {},
                            {}});
  auto me = s->gl.get("/user");
  auto self = me ? aw::gitlab_user_from_json(*me, "GET /user") : aw::fail("no /user");
  auto p = s->gl.get(s->project_target());
  auto repo = p ? aw::gitlab_project_from_json(*p, "GET project") : aw::fail("no project");
  if (!self || !repo) {
    std::fprintf(stderr, "session: %s\n",
                 !self ? self.error().message.c_str() : repo.error().message.c_str());
    return 1;
  }
  s->self = *self;
  s->repo = *repo;

  aw::ApplyTarget remote;
  remote.url = s->repo.clone_url;
  remote.credential = "GITLAB_TOKEN";
  remote.username = "oauth2";
  remote.secret_value = token;
  std::string mirror_dir = root + "/state/mirrors/app.git";
  auto mirror = aw::update_mirror(remote, mirror_dir, kAskpass);
  if (!mirror) {
    std::fprintf(stderr, "mirror: %s\n", mirror.error().message.c_str());
    return 1;
  }
  auto base = aw::resolve_commit(mirror->repo, "main");
  if (!base) return 1;
  std::string host = fake.git_url().substr(fake.git_url().find("://") + 3);
  std::string pushdir = root + "/push";
  if (!run({"git", "clone", "-q", root + "/fake-gitlab/repos/" + kProject + ".git", pushdir}))
    return 1;
  auto askpass = aw::bench::askpass_env(kAskpass, host, "oauth2", token);

  std::vector<double> publish_s, push_s, cleanup_s;
  for (int r = 0; r < rounds; ++r) {
    aw::ForgePublishInput in = aw::bench::publish_input(r, *base, root, mirror_dir, kAskpass);
    // Labels are added once per issue: a fresh issue each round keeps every round equal.
    in.issue = fake.control("POST", "projects/" + kProject + "/issues",
                            {{"username", "maint"}, {"title", "bench"}, {"description", "b"}})
                   .value("iid", int64_t{0});
    auto publish = [](aw::GitLabSession& session, const aw::ForgePublishInput& input) {
      return aw::publish_to_gitlab(session, input);
    };
    // pull, mr-note, comment-1, labels
    if (!aw::bench::timed_publish(*s, in, publish, 4, publish_s, cleanup_s)) return 1;
    // The same push by plain git: a new commit on a new branch.
    double plain_push = aw::bench::timed_plain_push(pushdir, r, remote.url, askpass);
    if (plain_push < 0) return 1;
    push_s.push_back(plain_push);
    std::printf("round %d: publish %.1f ms, plain push %.1f ms, scratch removal %.1f ms\n", r + 1,
                publish_s.back() * 1e3, push_s.back() * 1e3, cleanup_s.back() * 1e3);
  }
  double pub = median(publish_s), push = median(push_s);
  std::printf(
      "gitlab publish (push, draft MR, note, checked note, labels), %d files: median %.1f ms; "
      "plain git push median %.1f ms; awaywork's overhead beyond the push %.1f ms (target <= "
      "50 ms); ratio publish / push %.2f; the scratch's removal after it, off the critical path, "
      "median %.1f ms\n",
      files, pub * 1e3, push * 1e3, (pub - push) * 1e3, pub / push, median(cleanup_s) * 1e3);
  return 0;
}
