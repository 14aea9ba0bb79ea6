// awaywork watch end to end against the fake GitHub, real git and the awaywork binary: admitted
// triggers become one unit and a draft pull request, refused ones nothing (and nothing is posted),
// each with its log line; the claim and labels are settled at the end.
#include <sys/stat.h>

#include "check/sanitize.h"
#include "record/store.h"
#include "watch_fixture.h"

namespace aw::test {
namespace {

class WatchE2E : public WatchTest {
 protected:
  void SetUp() override {
    WatchTest::SetUp();
    collaborator("alice", "write");
    collaborator("rita", "read");
    collaborator("tria", "triage");
  }
  std::string reasons(const nlohmann::json& log) {
    std::string out;
    for (const auto& e : events(log, "trigger_refused")) out += e.value("reason", "") + "\n";
    return out;
  }
};

TEST_F(WatchE2E, ALabelAddedByAWriterBecomesOneUnitAndADraftPullRequest) {
  int64_t n = issue("octo", "Add a b file", "Please add b.txt.");
  label(n, "alice", "awaywork");
  auto log = watch_once();
  ASSERT_EQ(events(log, "trigger_admitted").size(), 1u) << log.dump(1);
  EXPECT_EQ(events(log, "claim").size(), 1u) << log.dump(1);
  ASSERT_EQ(events(log, "unit_started").size(), 1u) << log.dump(1);
  EXPECT_FALSE(events(log, "phase_ended").empty()) << log.dump(1);
  ASSERT_EQ(events(log, "published").size(), 1u) << log.dump(1);
  ASSERT_EQ(events(log, "released").size(), 1u) << log.dump(1);
  EXPECT_EQ(units_of(n), 1);

  auto pulls = get("/repos/octo/web/pulls?state=all");
  ASSERT_EQ(pulls.size(), 1u) << pulls.dump(2);
  EXPECT_TRUE(pulls[0]["draft"].get<bool>());
  // The trigger label is gone (adding it again asks again), the claim ended as done.
  auto names = labels_of(n);
  EXPECT_EQ(std::count(names.begin(), names.end(), "awaywork"), 0);
  EXPECT_EQ(std::count(names.begin(), names.end(), "awaywork:running"), 0);
  EXPECT_EQ(std::count(names.begin(), names.end(), "awaywork:done"), 1)
      << get("/repos/octo/web/issues/" + std::to_string(n)).dump(1);
  // One comment of awaywork's on the issue: the claim is the unit's progress comment.
  std::string claim;
  int ours = 0;
  for (const auto& c : get("/repos/octo/web/issues/" + std::to_string(n) + "/comments")) {
    if (c["user"]["login"] == "aw-bot") ++ours;
    if (c["body"].get<std::string>().find("awaywork:claim") != std::string::npos) claim = c["body"];
  }
  EXPECT_EQ(ours, 1) << get("/repos/octo/web/issues/" + std::to_string(n) + "/comments").dump(1);
  EXPECT_NE(claim.find("Done: unit"), std::string::npos) << claim;
  EXPECT_NE(claim.find(pulls[0]["html_url"].get<std::string>()), std::string::npos) << claim;
  EXPECT_NE(claim.find("state=ended"), std::string::npos) << claim;
  for (const auto& w : fake->writes()) EXPECT_EQ(w["login"], "aw-bot") << w.dump();

  // `show` names the issue; a second pass finds nothing new to do.
  Captured show = aw({"show", events(log, "unit_started")[0]["unit"]});
  EXPECT_NE(show.out.find("issue   octo/web#" + std::to_string(n)), std::string::npos) << show.out;
  auto again = watch_once();
  EXPECT_TRUE(events(again, "trigger_admitted").empty()) << again.dump(1);
  EXPECT_EQ(units_of(n), 1);
}

TEST_F(WatchE2E, ALabelByAReaderABotAwayworkOrGithubActionsStartsNothingAndPostsNothing) {
  fake->user("helper[bot]", "Bot");
  fake->user("github-actions[bot]", "Bot");
  int64_t a = issue("octo", "a", "x");
  int64_t b = issue("octo", "b", "x");
  int64_t c = issue("octo", "c", "x");
  int64_t d = issue("octo", "d", "x");
  label(a, "rita", "awaywork");
  label(b, "helper[bot]", "awaywork");
  label(c, "aw-bot", "awaywork");
  label(d, "github-actions[bot]", "awaywork");
  auto log = watch_once();
  auto refused = events(log, "trigger_refused");
  ASSERT_EQ(refused.size(), 4u) << log.dump(1);
  std::string why = reasons(log);
  EXPECT_NE(why.find("label added by @rita: role read, not admitted"), std::string::npos) << why;
  EXPECT_NE(why.find("label added by @helper[bot]: a bot not listed"), std::string::npos) << why;
  EXPECT_NE(why.find("label added by @aw-bot: awaywork's own login, never admitted"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("label added by @github-actions[bot]: github-actions[bot], never admitted"),
            std::string::npos)
      << why;
  EXPECT_TRUE(events(log, "claim").empty());
  for (int64_t n : {a, b, c, d}) EXPECT_EQ(units_of(n), 0);
  EXPECT_TRUE(fake->writes().empty()) << fake->writes().dump(2);
  // Refused once: the next pass does not log them again.
  auto again = watch_once();
  EXPECT_TRUE(events(again, "trigger_refused").empty()) << again.dump(1);
}

TEST_F(WatchE2E, AListedBotIsAdmitted) {
  fake->user("helper[bot]", "Bot");
  extra_repo_keys = "    trust: {bots: [\"helper[bot]\"]}\nwatch:\n" + watch_keys;
  write_config();
  int64_t n = issue("octo", "b", "x");
  label(n, "helper[bot]", "awaywork");
  auto log = watch_once();
  ASSERT_EQ(events(log, "trigger_admitted").size(), 1u) << log.dump(1);
  EXPECT_EQ(events(log, "trigger_admitted")[0]["reason"],
            "label added by @helper[bot]: listed bot");
  EXPECT_EQ(units_of(n), 1);
}

TEST_F(WatchE2E, AnAssignmentCountsOnlyWhenMadeByAnAdmittedActor) {
  watch_keys = "  poll_seconds: 5\n  repos: {web: {label: \"\", assignee: aw-bot}}\n";
  write_watch_config();
  std::string alice = fake->user("alice"), tria = fake->user("tria");
  int64_t by_triage = issue("octo", "t", "x");
  int64_t by_writer = issue("octo", "w", "x");
  auto r1 = fake->api("POST", "/repos/octo/web/issues/" + std::to_string(by_triage) + "/assignees",
                      tria, {{"assignees", {"aw-bot"}}});
  ASSERT_EQ(r1.first, 201) << r1.second.dump();
  auto r2 = fake->api("POST", "/repos/octo/web/issues/" + std::to_string(by_writer) + "/assignees",
                      alice, {{"assignees", {"aw-bot"}}});
  ASSERT_EQ(r2.first, 201) << r2.second.dump();
  auto log = watch_once();
  EXPECT_NE(reasons(log).find("assigned by @tria: role triage, not admitted"), std::string::npos)
      << log.dump(1);
  ASSERT_EQ(events(log, "trigger_admitted").size(), 1u) << log.dump(1);
  EXPECT_EQ(events(log, "trigger_admitted")[0]["issue"], by_writer);
  EXPECT_EQ(units_of(by_writer), 1);
  EXPECT_EQ(units_of(by_triage), 0);
}

TEST_F(WatchE2E, ACommandCommentCountsFromAnAdmittedAuthorAndNeverWhenEdited) {
  int64_t by_reader = issue("octo", "r", "x");
  int64_t edited = issue("octo", "e", "x");
  int64_t by_writer = issue("octo", "w", "x");
  comment(by_reader, "rita", "/awaywork please");
  comment(edited, "alice", "hello");
  auto list = get("/repos/octo/web/issues/" + std::to_string(edited) + "/comments");
  ASSERT_EQ(list.size(), 1u);
  fake->control("POST", "clock", {{"advance", 5}});
  fake->control("PATCH",
                "repos/octo/web/issues/comments/" + std::to_string(list[0]["id"].get<int64_t>()),
                {{"body", "/awaywork now"}});
  comment(by_writer, "alice", "/awaywork and add a test");
  auto log = watch_once();
  std::string why = reasons(log);
  EXPECT_NE(why.find("comment by @rita: role read, not admitted"), std::string::npos) << why;
  EXPECT_NE(why.find("comment by @alice was edited"), std::string::npos) << why;
  ASSERT_EQ(events(log, "trigger_admitted").size(), 1u) << log.dump(1);
  EXPECT_EQ(events(log, "trigger_admitted")[0]["issue"], by_writer);
  EXPECT_EQ(units_of(by_writer), 1);
  EXPECT_EQ(units_of(by_reader), 0);
  EXPECT_EQ(units_of(edited), 0);
}

TEST_F(WatchE2E, AfterStopAfterNothingIsAdmitted) {
  watch_keys = "  poll_seconds: 5\n  stop_after: 2020-01-01\n  repos: {web: {}}\n";
  write_watch_config();
  int64_t n = issue("octo", "late", "x");
  label(n, "alice", "awaywork");
  auto log = watch_once();
  EXPECT_NE(reasons(log).find("past the repository's stop_after"), std::string::npos)
      << log.dump(1);
  EXPECT_TRUE(events(log, "trigger_admitted").empty());
  EXPECT_EQ(units_of(n), 0);
}

TEST_F(WatchE2E, ANearlySpentRateLimitSpreadsThePollsUntilItsReset) {
  fake->control("POST", "faults", {{"rate_remaining", 6}});
  auto log = watch_once();
  auto polls = events(log, "poll");
  ASSERT_EQ(polls.size(), 1u) << log.dump(1);
  EXPECT_LT(polls[0]["remaining"].get<int64_t>(), 4) << polls[0].dump();
  EXPECT_GT(polls[0]["next_in"].get<int64_t>(), 600) << polls[0].dump();
}

std::string claim_by(const std::string& host, const std::string& state) {
  return "**awaywork** on `" + host +
         "` is working on this issue.\n\n<!-- awaywork:claim host=" + host +
         " pid=1 state=" + state + " -->";
}

TEST_F(WatchE2E, ALiveClaimOfAnotherWatcherMakesItYieldWithoutPosting) {
  int64_t n = issue("octo", "taken", "x");
  label(n, "alice", "awaywork");
  comment(n, "aw-bot", claim_by("other-box", "active"));
  size_t writes = fake->writes().size();
  auto log = watch_once();
  ASSERT_EQ(events(log, "yield").size(), 1u) << log.dump(1);
  EXPECT_EQ(events(log, "yield")[0]["winner_host"], "other-box");
  EXPECT_FALSE(events(log, "yield")[0]["posted"].get<bool>());
  EXPECT_EQ(units_of(n), 0);
  EXPECT_EQ(fake->writes().size(), writes) << fake->writes().dump(1);
}

TEST_F(WatchE2E, AStaleClaimIsTakenOverAndTheNewClaimSaysSo) {
  watch_keys = "  poll_seconds: 5\n  claim_ttl: 1h\n  repos: {web: {}}\n";
  write_watch_config();
  int64_t n = issue("octo", "stale", "x");
  fake->control("POST", "clock", {{"advance", -7200}});
  comment(n, "aw-bot", claim_by("dead-box", "active"));
  fake->control("POST", "clock", {{"advance", 7200}});
  label(n, "alice", "awaywork");
  auto log = watch_once();
  ASSERT_EQ(events(log, "claim").size(), 1u) << log.dump(1);
  EXPECT_NE(events(log, "claim")[0]["note"].get<std::string>().find("dead-box"), std::string::npos);
  EXPECT_EQ(units_of(n), 1);
  std::string all;
  for (const auto& c : get("/repos/octo/web/issues/" + std::to_string(n) + "/comments"))
    all += c["body"].get<std::string>();
  EXPECT_NE(all.find("Took over the stale claim of `dead-box`"), std::string::npos) << all;
}

TEST_F(WatchE2E, AFailedUnitIsRetriedPerThePolicyThenLabelledFailed) {
  write_agent("exit 3");
  watch_keys =
      "  poll_seconds: 5\n  on_failure: {retry: 1, label: needs-human}\n  repos: {web: {}}\n";
  write_watch_config();
  int64_t n = issue("octo", "fails", "x");
  label(n, "alice", "awaywork");
  auto log = watch_once();
  auto released = events(log, "released");
  ASSERT_EQ(released.size(), 2u) << log.dump(1);
  EXPECT_TRUE(released[0]["requeued"].get<bool>());
  EXPECT_FALSE(released[1]["requeued"].get<bool>());
  EXPECT_EQ(units_of(n), 2);
  auto names = labels_of(n);
  EXPECT_EQ(std::count(names.begin(), names.end(), "needs-human"), 1);
  EXPECT_EQ(std::count(names.begin(), names.end(), "awaywork"), 0);
  EXPECT_EQ(std::count(names.begin(), names.end(), "awaywork:running"), 0);
  // Issue 31 item 15: one comment of awaywork's; the retry's claim replaced the first one's and
  // says what it said.
  std::vector<std::string> ours;
  for (const auto& c : get("/repos/octo/web/issues/" + std::to_string(n) + "/comments"))
    if (c["user"]["login"] == "aw-bot") ours.push_back(c["body"]);
  ASSERT_EQ(ours.size(), 1u) << testing::PrintToString(ours);
  EXPECT_NE(ours[0].find("Earlier: Failed: "), std::string::npos) << ours[0];
  EXPECT_NE(ours[0].find("trying again (1 of 1)"), std::string::npos) << ours[0];
  EXPECT_NE(ours[0].find("state=ended"), std::string::npos) << ours[0];
}

TEST_F(WatchE2E, AFailedUnitsReasonReachesTheClaimAsInertText) {
  // The reason names the agent's program, here under a folder named like a team mention: on
  // GitHub it must read as text, never notify @octo-org.
  std::string dir = tmp.path + "/@octo-org";
  ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0);
  agent_script = dir + "/agent.sh";
  ASSERT_TRUE(write_file(agent_script, "#!/bin/sh\nexit 3\n", 0755));
  watch_keys = "  poll_seconds: 5\n  on_failure: {label: needs-human}\n  repos: {web: {}}\n";
  write_watch_config();
  int64_t n = issue("octo", "fails", "x");
  label(n, "alice", "awaywork");
  auto log = watch_once();
  ASSERT_EQ(events(log, "released").size(), 1u) << log.dump(1);
  std::string claim;
  for (const auto& c : get("/repos/octo/web/issues/" + std::to_string(n) + "/comments"))
    if (c["body"].get<std::string>().find("awaywork:claim") != std::string::npos) claim = c["body"];
  EXPECT_NE(claim.find("Failed: unit `"), std::string::npos) << claim;
  EXPECT_NE(claim.find("`@octo-org/agent.sh`"), std::string::npos) << claim;  // a code span
  EXPECT_EQ(claim.find("/@octo-org/agent"), std::string::npos) << claim;
}

// The ended claim says the failed unit's reason, and the agent chose words in it: a claim marker
// there (an active claim of a watcher "evil") must not make the retry yield to nobody for
// claim_ttl, and no comment of awaywork's carries a marker form but its own last line.
TEST_F(WatchE2E, TheAgentsWordsPlantNoClaimAndTheRetryRuns) {
  write_claude_agent(kMarkerForger);
  watch_keys =
      "  poll_seconds: 5\n  on_failure: {retry: 1, label: needs-human}\n  repos: {web: {}}\n";
  write_watch_config();
  int64_t n = issue("octo", "fails", "x");
  label(n, "alice", "awaywork");
  auto log = watch_once();
  EXPECT_TRUE(events(log, "yield").empty()) << log.dump(1);
  ASSERT_EQ(events(log, "released").size(), 2u) << log.dump(1);
  EXPECT_EQ(units_of(n), 2);
  bool shown = false;
  for (const auto& c : get("/repos/octo/web/issues/" + std::to_string(n) + "/comments")) {
    if (c["user"]["login"] != "aw-bot") continue;
    std::string body = c["body"];
    size_t last = body.rfind('\n');
    ASSERT_NE(last, std::string::npos) << body;
    EXPECT_TRUE(body.substr(last + 1).starts_with("<!-- awaywork:claim host=")) << body;
    EXPECT_FALSE(has_marker_form(body.substr(0, last))) << body;
    shown = shown || body.find("awaywork:claim host=evil") != std::string::npos;
  }
  EXPECT_TRUE(shown) << "positive control: the agent's words reached a claim, as text";
}

TEST_F(WatchE2E, ASecondTriggerOnARepositoryAtItsLimitWaitsInTheQueue) {
  watch_keys = "  poll_seconds: 5\n  machine_max_units: 2\n  repos: {web: {max_units: 1}}\n";
  write_watch_config();
  int64_t a = issue("octo", "first", "x");
  int64_t b = issue("octo", "second", "x");
  label(a, "alice", "awaywork");
  label(b, "alice", "awaywork");
  auto log = watch_once();
  // In the log's order: the first unit is released before the second is spawned.
  std::vector<std::string> order;
  for (const auto& e : log)
    if (e["event"] == "unit_spawned" || e["event"] == "released")
      order.push_back(e["event"].get<std::string>() + " " +
                      std::to_string(e["issue"].get<int64_t>()));
  std::vector<std::string> want = {
      "unit_spawned " + std::to_string(a), "released " + std::to_string(a),
      "unit_spawned " + std::to_string(b), "released " + std::to_string(b)};
  EXPECT_EQ(order, want) << log.dump(1);
  EXPECT_EQ(units_of(a), 1);
  EXPECT_EQ(units_of(b), 1);
}

// What a hostile or broken forge answers, and a kept answer that is not as written, is an error in
// the log naming the field: watch goes on and ends as usual, never in std::terminate (issue 38,
// invariant 7). Listed issues whose labels, assignees, comment count and number are wrongly typed.
TEST_F(WatchE2E, WronglyTypedFieldsAreErrorsNamingThemNotACrash) {
  {
    auto st = Store::open(tmp.path + "/state");
    ASSERT_TRUE(st) << st.error().message;
    ASSERT_TRUE(st->watch_put("etag/fake/user", {{"etag", 5}, {"body", nlohmann::json::object()}}));
  }
  int64_t n = issue("octo", "hostile", "x");
  label(n, "alice", "awaywork");
  fake->control(
      "POST", "faults",
      {{"fields",
        {{"labels", {{{"name", 7}}}}, {"assignees", {{{"login", {1}}}}}, {"comments", "three"}}},
       {"fields_on", "GET /repos/octo/web/issues"}});
  auto errors_of = [](const nlohmann::json& log) {
    std::string out;
    for (const auto& e : events(log, "error")) out += e.value("error", "") + "\n";
    return out;
  };
  auto log = watch_once();
  std::string said = errors_of(log);
  EXPECT_NE(said.find("state database: watch state etag/fake/user: field \"etag\": expected a "
                      "string, got number"),
            std::string::npos)
      << log.dump(1);
  EXPECT_NE(said.find("GitHub's issue list: field \"comments\": expected an integer, got string"),
            std::string::npos)
      << log.dump(1);
  EXPECT_EQ(events(log, "watch_stopped").size(), 1u) << log.dump(1);

  fake->control("POST", "faults",
                {{"fields", {{"number", "1"}}}, {"fields_on", "GET /repos/octo/web/issues"}});
  log = watch_once();
  said = errors_of(log);
  EXPECT_NE(said.find("GitHub's issue list: field \"number\": expected an integer, got string"),
            std::string::npos)
      << log.dump(1);
  EXPECT_EQ(said.find("etag"), std::string::npos) << "the kept answer was written again: " << said;
  EXPECT_EQ(events(log, "watch_stopped").size(), 1u) << log.dump(1);
  EXPECT_TRUE(events(log, "trigger_admitted").empty()) << log.dump(1);
  EXPECT_EQ(units_of(n), 0);
}

}  // namespace
}  // namespace aw::test
