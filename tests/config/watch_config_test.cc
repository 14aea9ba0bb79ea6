// watch: (docs/watch.md): each key lands in its field, a repository's keys default to the watch:
// level, each mistake is refused at its file:line:col with the fix.
#include <gtest/gtest.h>

#include "config_fixture.h"

namespace aw {
namespace {

class WatchConfigTest : public ConfigFixture {};

constexpr const char* kRepos = R"(
forges: {gh: {credential: GH_TOKEN}}
repos:
  web: {github: octo/web}
  api: {github: octo/api}
  local: {path: /srv/local}
)";

TEST_F(WatchConfigTest, EveryKeyLandsInItsFieldAndRepositoriesInheritTheDefaults) {
  Config c = parse(std::string(kRepos) + R"(
watch:
  poll_seconds: 30
  machine_max_units: 3
  claim_ttl: 2h
  shutdown_grace: 90s
  window: "22:00-07:00"
  label: ai
  on_failure: {retry: 2}
  repos:
    web:
    api: {label: "", assignee: aw-bot, command: /fix, max_units: 2, window: "01:02:03-04:05:06",
          stop_after: 2026-12-31, on_failure: {label: needs-human}}
)");
  const WatchConfig& w = c.watch;
  EXPECT_EQ(w.poll_seconds, 30);
  EXPECT_EQ(w.max_units, 3);
  EXPECT_EQ(w.claim_ttl, 7200);
  EXPECT_EQ(w.shutdown_grace, 90);
  ASSERT_EQ(w.repos.size(), 2u);
  const WatchRepoConfig& web = w.repos[0].repo == "web" ? w.repos[0] : w.repos[1];
  const WatchRepoConfig& api = w.repos[0].repo == "api" ? w.repos[0] : w.repos[1];
  EXPECT_EQ(web.label, "ai");
  EXPECT_EQ(web.command, "/awaywork");
  EXPECT_EQ(web.assignee, "");
  EXPECT_EQ(web.max_units, 1);
  EXPECT_EQ(web.window.start, 22 * 3600);
  EXPECT_EQ(web.window.end, 7 * 3600);
  EXPECT_EQ(web.on_failure.retry, 2);
  EXPECT_EQ(web.on_failure.label, "awaywork:failed");
  EXPECT_EQ(api.label, "");
  EXPECT_EQ(api.assignee, "aw-bot");
  EXPECT_EQ(api.command, "/fix");
  EXPECT_EQ(api.max_units, 2);
  EXPECT_EQ(api.window.start, 3600 + 120 + 3);
  EXPECT_EQ(api.window.end, 4 * 3600 + 5 * 60 + 6);
  EXPECT_EQ(api.stop_after, 1798761599);  // 2026-12-31T23:59:59Z
  EXPECT_EQ(api.on_failure.label, "needs-human");
}

TEST_F(WatchConfigTest, WithoutWatchNothingIsWatched) {
  Config c = parse(kRepos);
  EXPECT_TRUE(c.watch.repos.empty());
  EXPECT_EQ(c.watch.poll_seconds, 60);
}

TEST_F(WatchConfigTest, MistakesAreReportedWhereTheyAreWithTheFix) {
  std::string base = std::string(kRepos) + "watch:\n";
  EXPECT_NE(error_of(base + "  repos: {webb: {}}\n")
                .find("config.yml:8:11: watch.repos.webb: "
                      "'webb' is not a forge repository"),
            std::string::npos)
      << error_of(base + "  repos: {webb: {}}\n");
  EXPECT_NE(error_of(base + "  repos: {local: {}}\n").find("'local' is not a forge repository"),
            std::string::npos);
  std::string e = error_of(base + "  repos: {web: {}}\n  window: \"22-07\"\n");
  EXPECT_NE(e.find("config.yml:9:11: watch.window: '22-07' is not a window"), std::string::npos)
      << e;
  e = error_of(base + "  repos: {web: {}}\n  window: \"07:00-07:00\"\n");
  EXPECT_NE(e.find("starts and ends at the same time"), std::string::npos) << e;
  e = error_of(base + "  repos: {web: {}}\n  claim_ttl: 3w\n");
  EXPECT_NE(e.find("watch.claim_ttl: '3w' is not a duration"), std::string::npos) << e;
  e = error_of(base + "  repos: {web: {command: awaywork}}\n");
  EXPECT_NE(e.find("watch.repos.web.command: 'awaywork' must start with /"), std::string::npos)
      << e;
  e = error_of(base + "  repos: {web: {label: \"\", command: \"\"}}\n");
  EXPECT_NE(e.find("no trigger left"), std::string::npos) << e;
  e = error_of(base + "  repos: {web: {on_failure: {retry: 11}}}\n");
  EXPECT_NE(e.find("watch.repos.web.on_failure.retry"), std::string::npos) << e;
  e = error_of(base + "  poll_seconds: 1\n  repos: {web: {}}\n");
  EXPECT_NE(e.find("config.yml:8:17: watch.poll_seconds"), std::string::npos) << e;
  e = error_of(base + "  poll: 30\n  repos: {web: {}}\n");
  EXPECT_NE(e.find("watch.poll"), std::string::npos) << e;
  e = error_of(base + "  poll_seconds: 30\n");
  EXPECT_NE(e.find("missing 'repos'"), std::string::npos) << e;
}

// Issue 29: a GitLab project is watched like a GitHub repository; run_on: actions (GitHub
// Actions') is refused at its place.
TEST_F(WatchConfigTest, AGitlabProjectIsWatchedButNotRunOnActions) {
  std::string lab =
      "forges: {lab: {kind: gitlab, credential: GITLAB_TOKEN}}\n"
      "repos:\n"
      "  app: {gitlab: grp/sub/app}\n"
      "watch:\n";
  Config c = parse(lab + "  repos: {app: {assignee: aw-bot}}\n");
  ASSERT_EQ(c.watch.repos.size(), 1u);
  EXPECT_EQ(c.watch.repos[0].repo, "app");
  EXPECT_EQ(c.watch.repos[0].assignee, "aw-bot");
  std::string e = error_of(lab + "  repos: {app: {run_on: actions}}\n");
  EXPECT_NE(e.find("config.yml:5:11: watch.repos.app: 'app' is a GitLab project: run_on: actions"),
            std::string::npos)
      << e;
}

}  // namespace
}  // namespace aw
