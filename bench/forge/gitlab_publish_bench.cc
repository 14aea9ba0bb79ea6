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
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "../../tests/fakes/fake_gitlab.h"
#include "base/fs.h"
#include "forge/gitlab/publish.h"
#include "git/git.h"
#include "proc/capture.h"

namespace {

using Clock = std::chrono::steady_clock;
const std::string kAskpass = std::string(AW_BINARY_DIR) + "/src/cli/awaywork";
const std::string kProject = "grp/sub/app";

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

// FILES files in one commit, written by git fast-import.
bool make_source(const std::string& dir, int files) {
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

}  // namespace

int main(int argc, char** argv) {
  int files = argc > 1 ? std::atoi(argv[1]) : 200;
  int rounds = argc > 2 ? std::atoi(argv[2]) : 21;
  if (files < 1 || rounds < 1) {
    std::fprintf(stderr, "usage: gitlab_publish_bench [files] [rounds]\n");
    return 2;
  }
  char tmpl[] = "/tmp/aw-gitlab-publish-bench-XXXXXX";
  std::string root = ::mkdtemp(tmpl);
  struct Cleanup {
    std::string path;
    ~Cleanup() { (void)aw::remove_tree(path); }
  } cleanup{root};
  aw::test::FakeGitlab fake(root);
  if (fake.api_url().empty()) {
    std::fprintf(stderr, "%s\n", fake.error().c_str());
    return 1;
  }
  if (!make_source(root + "/source", files)) return 1;
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
  std::vector<std::string> askpass = {
      "GIT_ASKPASS=" + kAskpass, "AWAYWORK_ASKPASS=1", "AWAYWORK_ASKPASS_HOST=" + host,
      "AWAYWORK_ASKPASS_USERNAME=oauth2", "AWAYWORK_ASKPASS_PASSWORD=" + token};

  std::vector<double> publish_s, push_s, cleanup_s;
  for (int r = 0; r < rounds; ++r) {
    std::string file = "bench/p" + std::to_string(r) + ".txt";
    aw::ForgePublishInput in;
    in.unit = {"bench-" + std::to_string(r), "test", "none", "off", "accepted", {{"check 1", 0}}};
    // Labels are added once per issue: a fresh issue each round keeps every round equal.
    in.issue = fake.control("POST", "projects/" + kProject + "/issues",
                            {{"username", "maint"}, {"title", "bench"}, {"description", "b"}})
                   .value("iid", int64_t{0});
    in.base_ref = "main";
    in.base_commit = *base;
    in.patch = "diff --git a/" + file + " b/" + file +
               "\nnew file mode 100644\n--- /dev/null\n+++ b/" + file + "\n@@ -0,0 +1 @@\n+p\n";
    in.paths = {file};
    in.commit_message = "bench";
    in.allowed_labels = {"bench"};
    in.requests = {aw::Request{"create_pull_request", 1, "bench", "body", "", "", "", "", {}},
                   aw::Request{"add_comment", 2, "", "done", "", "", "", "", {}},
                   aw::Request{"add_labels", 3, "", "", "", "", "", "", {"bench"}}};
    in.scratch_dir = root + "/scratch";
    in.askpass = kAskpass;
    in.mirror_dir = mirror_dir;
    auto t = Clock::now();
    auto done = aw::publish_to_gitlab(*s, in);
    if (!done || done->posted.size() != 4) {  // pull, mr-note, comment-1, labels
      std::fprintf(stderr, "publish: %s\n", done ? "not all posted" : done.error().message.c_str());
      return 1;
    }
    publish_s.push_back(since(t));
    t = Clock::now();
    s->background.clear();  // the scratch's removal, off the critical path: apart
    cleanup_s.push_back(since(t));
    // The same push by plain git: a new commit on a new branch.
    std::string branch = "plain-" + std::to_string(r);
    if (!aw::write_file(pushdir + "/q" + std::to_string(r) + ".txt", "q\n")) return 1;
    if (!run({"git", "add", "-A"}, pushdir) || !run({"git", "commit", "-qm", "q"}, pushdir))
      return 1;
    t = Clock::now();
    if (!run({"git", "-c", "credential.helper=", "push", "-q", remote.url,
              "HEAD:refs/heads/" + branch},
             pushdir, askpass))
      return 1;
    push_s.push_back(since(t));
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
