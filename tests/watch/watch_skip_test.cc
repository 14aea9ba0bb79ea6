// watch and a repository's when: (docs/rounds.md) against the fake GitHub (a FAKE, shaped after
// GitHub's responses): a skipped unit says why on the issue and lets it go, without counting as
// a failure, a retry or a done.
#include "watch_fixture.h"

namespace aw::test {
namespace {

class WatchSkip : public WatchTest {
 protected:
  void SetUp() override {
    WatchTest::SetUp();
    collaborator("alice", "write");
  }
};

TEST_F(WatchSkip, ASkippedUnitCommentsWhyAndReleasesTheIssueWithoutCountingAFailure) {
  write_agent("echo never > b.txt");
  extra_repo_keys =
      "    when: [sh, -c, \"echo looking; echo 'nothing to do: already fixed on main'; exit 1\"]\n"
      "watch:\n  poll_seconds: 5\n  on_failure: {retry: 1, label: needs-human}\n"
      "  repos: {web: {}}\n";
  write_config();
  int64_t n = issue("octo", "Add a b file", "Please add b.txt.");
  label(n, "alice", "awaywork");
  auto log = watch_once();
  ASSERT_EQ(events(log, "skipped").size(), 1u) << log.dump(1);
  EXPECT_EQ(events(log, "skipped")[0]["reason"], "nothing to do: already fixed on main");
  auto released = events(log, "released");
  ASSERT_EQ(released.size(), 1u) << log.dump(1);
  EXPECT_EQ(released[0]["state"], "skipped");
  EXPECT_FALSE(released[0]["requeued"].get<bool>());
  EXPECT_EQ(units_of(n), 1);  // not retried: a skip is no failure
  auto names = labels_of(n);
  for (const char* gone : {"awaywork", "awaywork:running", "awaywork:done", "needs-human"})
    EXPECT_EQ(std::count(names.begin(), names.end(), gone), 0) << gone;
  std::string claim;
  for (const auto& c : get("/repos/octo/web/issues/" + std::to_string(n) + "/comments"))
    if (c["body"].get<std::string>().find("awaywork:claim") != std::string::npos) claim = c["body"];
  EXPECT_NE(claim.find("Skipped: unit `"), std::string::npos) << claim;
  EXPECT_NE(claim.find("found nothing to do: nothing to do: already fixed on main"),
            std::string::npos)
      << claim;
  EXPECT_NE(claim.find("state=ended"), std::string::npos) << claim;
  EXPECT_TRUE(get("/repos/octo/web/pulls?state=all").empty());
  auto again = watch_once();
  EXPECT_TRUE(events(again, "trigger_admitted").empty()) << again.dump(1);
  EXPECT_EQ(units_of(n), 1);
}

}  // namespace
}  // namespace aw::test
