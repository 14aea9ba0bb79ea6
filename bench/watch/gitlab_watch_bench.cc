// Usage: gitlab_watch_bench [projects=100] [fake_minutes=10] [poll_seconds=30] [mrs=0]
// What `awaywork watch` costs GitLab while nothing happens (issue 29's figure), against the fake
// GitLab (tests/fakes/fake_gitlab.py, a FAKE) on loopback: PROJECTS projects, no issue changing,
// polled every POLL seconds for FAKE_MINUTES of a compressed clock (the watcher's Clock advances
// without sleeping). The figure is the requests the fake counts against the rate limit after the
// first pass (every project opened and polled once), per project per hour, beside the floor of the
// watcher's design (a 304 still counts on gitlab.com): per project per poll, one conditional
// issue list and one merge request list (follow-ups are on by default), and with MRS > 0 (that
// many open merge requests of awaywork's in each project, `follow_ci: true`) one pipelines list,
// whatever MRS is. A measurement, never an assertion: bench/README.md gives the command and the
// figures.
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "../../tests/fakes/fake_gitlab.h"
#include "../common/fast_clock.h"
#include "../common/watch_setup.h"
#include "base/fs.h"
#include "proc/capture.h"
#include "watch/watcher.h"

namespace {

using namespace aw;

using aw::bench::FastClock;

}  // namespace

int main(int argc, char** argv) {
  int projects = argc > 1 ? std::atoi(argv[1]) : 100;
  int minutes = argc > 2 ? std::atoi(argv[2]) : 10;
  int poll = argc > 3 ? std::atoi(argv[3]) : 30;
  int mrs = argc > 4 ? std::atoi(argv[4]) : 0;
  if (projects < 1 || minutes < 1 || poll < 1 || mrs < 0) {
    std::fprintf(stderr,
                 "usage: gitlab_watch_bench [projects] [fake_minutes] [poll_seconds] [mrs]\n");
    return 2;
  }
  char tmpl[] = "/tmp/aw-gitlab-watch-bench-XXXXXX";
  std::string root = ::mkdtemp(tmpl);
  std::string home = bench::bench_home(root);
  auto owned = std::make_unique<test::FakeGitlab>(root);
  test::FakeGitlab& fake = *owned;
  if (fake.api_url().empty()) {
    std::fprintf(stderr, "fake GitLab: %s\n", fake.error().c_str());
    return 1;
  }
  std::string token = fake.add_user("aw-bot");
  fake.member("grp", "aw-bot", 30);  // Developer on the group: every project below it
  std::string yaml = "state_dir: " + root +
                     "/state\nsandbox: {mode: preferred}\nagent: t\nagents:\n  t:\n    "
                     "command: [/bin/true]\nforges:\n  lab:\n    kind: gitlab\n    api_url: " +
                     fake.api_url() + "\n    credential: GITLAB_TOKEN\nrepos:\n";
  std::string watched;
  // With merge requests: one commit every project starts from, and a branch per merge request.
  std::vector<std::string> git_env = {"PATH=/usr/bin:/bin", "HOME=" + home};
  auto git = [&](const std::vector<std::string>& args, const std::string& cwd) {
    std::vector<std::string> argv = {"/usr/bin/git", "-c", "user.name=bench", "-c",
                                     "user.email=bench@example.com"};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = capture({.argv = argv, .env = git_env, .cwd = cwd, .stdin_data = ""});
    return r && r->exit_code == 0;
  };
  std::string src = root + "/src";
  if (mrs > 0 && !(make_dirs(src) && git({"init", "-q", "-b", "main"}, src) &&
                   write_file(src + "/a.txt", "alpha\n") && git({"add", "a.txt"}, src) &&
                   git({"commit", "-qm", "init"}, src))) {
    std::fprintf(stderr, "setup failed: the source repository\n");
    return 1;
  }
  for (int i = 0; i < projects; ++i) {
    std::string name = "p" + std::to_string(i);
    // Without merge requests an empty bare repository: watch reads the API only.
    if (!fake.add_project("grp/" + name, mrs > 0 ? src : "").is_object()) {
      std::fprintf(stderr, "fake GitLab: %s\n", fake.error().c_str());
      return 1;
    }
    // One open issue each, unchanged: the idle list is not empty.
    fake.control("POST", "projects/grp/" + name + "/issues",
                 {{"username", "aw-bot"}, {"title", "idle"}, {"description", "nothing new"}});
    std::string bare = root + "/fake-gitlab/repos/grp/" + name + ".git";
    for (int k = 0; k < mrs; ++k) {
      std::string branch = "awaywork/idle-" + std::to_string(k);
      if (!git({"--git-dir=" + bare, "branch", branch, "main"}, "/") ||
          !fake.control("POST", "projects/grp/" + name + "/merge_requests",
                        {{"username", "aw-bot"}, {"source", branch}, {"title", "Draft: idle"}})
               .is_object()) {
        std::fprintf(stderr, "setup failed: a merge request of %s: %s\n", name.c_str(),
                     fake.error().c_str());
        return 1;
      }
    }
    yaml += "  " + name + ":\n    gitlab: grp/" + name + "\n";
    if (mrs > 0) yaml += "    follow_ci: true\n";
    watched += (i ? ", " : "") + name + ": {}";
  }
  yaml += "watch:\n  poll_seconds: " + std::to_string(poll) + "\n  repos: {" + watched + "}\n";
  std::string config = root + "/config.yml";
  (void)write_file(config, yaml);
  std::string exe = bench::awaywork_exe();
  auto cfg = bench::secret_and_config(exe, home, "GITLAB_TOKEN", token, config);
  if (!cfg) return 1;
  // The per-minute limit is GitLab.com's; a compressed hour must not trip it.
  fake.faults({{"limit", 1000000000}});
  auto counted = [&] { return fake.control("GET", "stats")["counted"].get<int64_t>(); };
  auto not_modified = [&] { return fake.control("GET", "stats")["not_modified"].get<int64_t>(); };

  auto log = EventLog::open(root + "/watch.jsonl");
  if (!log) {
    std::fprintf(stderr, "event log: %s\n", log.error().message.c_str());
    return 1;
  }
  // Out of the seconds a change is looked at again in (watch/poll_state.h): merge requests made
  // just now would be examined at the second poll too, which is setup, not idle polling.
  if (mrs > 0) ::sleep(3);
  FastClock clock(static_cast<int64_t>(::time(nullptr)) * 1000);
  int64_t start = counted(), first_pass = 0, first_304 = 0;
  clock.on_first_pass = [&] {
    first_pass = counted();
    first_304 = not_modified();
  };
  int64_t until = clock.now_ms() + int64_t{minutes} * 60000;
  WatchOptions opt;
  opt.self_exe = exe;
  opt.stop = [&] { return clock.now_ms() >= until; };
  Watcher w(*cfg, opt, *log, clock);
  if (auto ok = w.run(); !ok) {
    std::fprintf(stderr, "watch: %s\n", ok.error().message.c_str());
    return 1;
  }
  int64_t after_first = counted() - first_pass;
  int64_t answered_304 = not_modified() - first_304;
  double hours = minutes / 60.0;
  double per_project_hour = after_first / (projects * hours);
  // The design's floor per poll: the issue list, the merge request list, and with follow_ci and
  // open merge requests the pipelines list (docs/gitlab.md, "What a poll costs").
  int lists = 2 + (mrs > 0 ? 1 : 0);
  double floor = lists * 3600.0 / poll;
  std::printf(
      "gitlab watch idle: %d projects, %d open merge requests each%s, poll_seconds %d, %d fake "
      "minutes\n",
      projects, mrs, mrs > 0 ? " (follow_ci)" : "", poll, minutes);
  std::printf("  start (GET /user, the project, first list, per project): %lld counted\n",
              static_cast<long long>(first_pass - start));
  std::printf(
      "  after the first pass: %lld counted (%lld answered 304) = %.1f per project per "
      "hour\n",
      static_cast<long long>(after_first), static_cast<long long>(answered_304), per_project_hour);
  std::printf(
      "  floor of %d conditional lists per project per poll: %.1f per project per hour; "
      "measured / floor = %.2f\n",
      lists, floor, per_project_hour / floor);
  owned.reset();
  (void)remove_tree(root);
  return 0;
}
