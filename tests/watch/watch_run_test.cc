// watch over time, against the fake GitHub: two watchers on one repository run each issue once;
// idle polling costs no counted request; SIGTERM lets a unit go on for shutdown_grace, then
// interrupts it and exits 0; kill -9 mid-unit and a new watch release the issue with a comment
// and publish nothing; a unit outside the window waits, one at the window's end is stopped.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <time.h>

#include <chrono>
#include <future>
#include <thread>

#include "../forge/awaywork_cli.h"
#include "record/store.h"
#include "watch/slot.h"
#include "watch_fixture.h"

extern char** environ;

namespace aw::test {
namespace {

class WatchRun : public WatchTest {
 protected:
  void SetUp() override {
    WatchTest::SetUp();
    collaborator("alice", "write");
  }
  // `awaywork watch --log FILE` in the background (the fixture's environment).
  pid_t start_watch(const std::string& log, const std::string& cfg = "") {
    return start_aw({"--config", cfg.empty() ? config : cfg, "watch", "--log", log});
  }
  // awaywork ARGS in the background, its output to /dev/null.
  pid_t start_aw(const std::vector<std::string>& aw_args) {
    std::vector<std::string> args = {awaywork_binary()};
    args.insert(args.end(), aw_args.begin(), aw_args.end());
    std::vector<std::string> env = awaywork_env(home);
    std::vector<char*> a, e;
    for (auto& s : args) a.push_back(s.data());
    for (auto& s : env) e.push_back(s.data());
    a.push_back(nullptr);
    e.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    ::posix_spawn_file_actions_init(&fa);
    ::posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    pid_t pid = -1;
    EXPECT_EQ(::posix_spawn(&pid, a[0], &fa, nullptr, a.data(), e.data()), 0);
    ::posix_spawn_file_actions_destroy(&fa);
    return pid;
  }
  int wait_exit(pid_t pid, int seconds) {
    for (int i = 0; i < seconds * 10; ++i) {
      int st = 0;
      if (::waitpid(pid, &st, WNOHANG) == pid)
        return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    return -1;
  }
  nlohmann::json read_log(const std::string& file) {
    nlohmann::json out = nlohmann::json::array();
    std::string text = slurp(file);
    size_t at = 0;
    while (at < text.size()) {
      size_t nl = text.find('\n', at);
      if (nl == std::string::npos) break;
      auto j = nlohmann::json::parse(text.substr(at, nl - at), nullptr, false);
      if (!j.is_discarded()) out.push_back(j);
      at = nl + 1;
    }
    return out;
  }
  // Waits until the log has an event named name; false after seconds.
  bool wait_for(const std::string& file, const std::string& name, int seconds, size_t count = 1) {
    for (int i = 0; i < seconds * 10; ++i) {
      if (events(read_log(file), name).size() >= count) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }
  std::string claim_of(int64_t n) {
    nlohmann::json list = get("/repos/octo/web/issues/" + std::to_string(n) + "/comments");
    std::string out;
    for (const auto& c : list)
      if (c["body"].get<std::string>().find("awaywork:claim") != std::string::npos)
        out += c["body"].get<std::string>() + "\n----\n";
    return out;
  }
  // An issue labelled by a writer whose unit's agent takes a minute (with watch_keys applied).
  int64_t slow_issue() {
    write_agent("sleep 60\nprintf 'bravo\\n' > b.txt");
    write_watch_config();
    int64_t n = issue("octo", "slow", "x");
    label(n, "alice", "awaywork");
    return n;
  }
  // The API requests after the fake's log entry `from` that count against the rate limit (all
  // but a 304), as "GET /path" lines.
  std::vector<std::string> counted_since(size_t from) {
    std::vector<std::string> out;
    nlohmann::json log = fake->log();
    for (size_t i = from; i < log.size(); ++i)
      if (log[i]["kind"] == "api" && log[i]["status"] != 304)
        out.push_back(log[i]["method"].get<std::string>() + " " +
                      log[i]["path"].get<std::string>());
    return out;
  }
  // The requests after `from` of "GET /path" and how they were answered.
  std::vector<int> statuses_since(size_t from, const std::string& request) {
    std::vector<int> out;
    nlohmann::json log = fake->log();
    for (size_t i = from; i < log.size(); ++i)
      if (log[i]["method"].get<std::string>() + " " + log[i]["path"].get<std::string>() == request)
        out.push_back(log[i]["status"].get<int>());
    return out;
  }
  nlohmann::json unit_of(int64_t n) {
    Captured c = aw({"units", "--json"});
    for (const auto& u : nlohmann::json::parse(c.out))
      if (u.value("issue", int64_t{0}) == n) return u;
    return nullptr;
  }
};

TEST_F(WatchRun, TwoWatchersOnOneRepositoryRunEachOfTwentyIssuesExactlyOnce) {
  // Two units at a time in each watcher, four at once on the machine: units run concurrently in
  // one state folder and share its mirror.
  watch_keys = "  poll_seconds: 5\n  machine_max_units: 2\n  repos: {web: {max_units: 2}}\n";
  write_watch_config();
  std::string text = slurp(config);
  std::string second = tmp.path + "/config2.yml";
  std::string from = "state_dir: " + tmp.path + "/state\n";
  ASSERT_NE(text.find(from), std::string::npos);
  text.replace(text.find(from), from.size(), "state_dir: " + tmp.path + "/state2\n");
  ASSERT_TRUE(write_file(second, text));
  std::vector<int64_t> issues;
  for (int i = 0; i < 20; ++i) {
    issues.push_back(issue("octo", "issue " + std::to_string(i), "add b"));
    label(issues.back(), "alice", "awaywork");
  }
  auto run = [&](const std::string& cfg, const std::string& log) {
    return run_awaywork(cfg, home, {"watch", "--once", "--log", log}).exit_code;
  };
  auto a = std::async(std::launch::async, run, config, tmp.path + "/a.jsonl");
  auto b = std::async(std::launch::async, run, second, tmp.path + "/b.jsonl");
  EXPECT_EQ(a.get(), 0);
  EXPECT_EQ(b.get(), 0);
  auto la = read_log(tmp.path + "/a.jsonl"), lb = read_log(tmp.path + "/b.jsonl");
  size_t ran = events(la, "unit_started").size() + events(lb, "unit_started").size();
  EXPECT_EQ(ran, 20u) << la.dump(1) << lb.dump(1);
  // Units overlapped within a watcher (two spawned before the first was released).
  int most = 0;
  for (const auto* log : {&la, &lb}) {
    int now = 0;
    for (const auto& e : *log) {
      if (e["event"] == "unit_spawned") most = std::max(most, ++now);
      if (e["event"] == "released") --now;
    }
  }
  EXPECT_EQ(most, 2) << la.dump(1);
  // Both competed: each claimed some and saw the other's claims.
  EXPECT_FALSE(events(la, "yield").empty() && events(lb, "yield").empty());
  std::map<int64_t, int> per_issue;
  for (const auto* log : {&la, &lb})
    for (const auto& e : events(*log, "unit_started")) ++per_issue[e["issue"].get<int64_t>()];
  for (int64_t n : issues) EXPECT_EQ(per_issue[n], 1) << "issue " << n;
  auto pulls = get("/repos/octo/web/pulls?state=all&per_page=100");
  std::string not_done;
  for (const auto* log : {&la, &lb})
    for (const auto& e : events(*log, "released"))
      if (e["state"] != "done") not_done += e.dump() + "\n";
  EXPECT_EQ(pulls.size(), 20u) << not_done;
  std::set<std::string> heads;
  for (const auto& p : pulls) heads.insert(p["head"]["ref"]);
  EXPECT_EQ(heads.size(), pulls.size());
  // A watcher that lost a race deleted its claim: each issue holds the winner's comment only.
  for (int64_t n : issues) {
    int ours = 0;
    for (const auto& c : get("/repos/octo/web/issues/" + std::to_string(n) + "/comments"))
      ours += c["user"]["login"] == "aw-bot";
    EXPECT_EQ(ours, 1) << "issue " << n;
  }
}

TEST_F(WatchRun, IdlePollingOfManyRepositoriesCountsNoRequest) {
  fake->control("POST", "faults", {{"poll_interval", 0}});
  std::string repos = "repos:\n  web:\n    github: octo/web\n";
  std::string watched = "web: {}";
  for (int i = 0; i < 10; ++i) {
    std::string name = "r" + std::to_string(i);
    fake->control("POST", "repos", {{"owner", "octo"}, {"name", name}, {"source", src_dir}});
    repos += "  " + name + ":\n    github: octo/" + name + "\n";
    watched += ", " + name + ": {}";
  }
  std::string text = slurp(config);
  text = text.substr(0, text.find("repos:\n")) + repos + "watch:\n  poll_seconds: 5\n  repos: {" +
         watched + "}\n";
  ASSERT_TRUE(write_file(config, text));
  std::string log = tmp.path + "/idle.jsonl";
  pid_t pid = start_watch(log);
  ASSERT_TRUE(wait_for(log, "poll", 30, 11)) << slurp(log);
  std::this_thread::sleep_for(std::chrono::seconds(1));
  int64_t before = fake->control("GET", "stats")["counted"];
  // Two more polls of each repository, nothing changing: only 304s.
  ASSERT_TRUE(wait_for(log, "poll", 30, 33)) << slurp(log);
  nlohmann::json stats = fake->control("GET", "stats");
  EXPECT_EQ(stats["counted"].get<int64_t>(), before) << stats.dump();
  EXPECT_GE(stats["not_modified"].get<int64_t>(), 22) << stats.dump();
  ::kill(pid, SIGTERM);
  EXPECT_EQ(wait_exit(pid, 20), 0);
}

TEST_F(WatchRun, ASecondOncePassWithNothingChangedCountsNoRequest) {
  // Issue 31 item 15: GET /user and GET /repos/O/R are kept in the state with their ETags, so a
  // pass (or a start) asks both conditionally and GitHub answers 304, which it does not count.
  auto first = watch_once();
  ASSERT_EQ(events(first, "poll").size(), 1u) << first.dump(1);
  size_t from = fake->log().size();
  auto second = watch_once();
  ASSERT_EQ(events(second, "poll").size(), 1u) << second.dump(1);
  EXPECT_FALSE(events(second, "poll")[0]["changed"].get<bool>()) << second.dump(1);
  EXPECT_EQ(counted_since(from), std::vector<std::string>{}) << fake->log().dump(1);
  EXPECT_EQ(statuses_since(from, "GET /user"), std::vector<int>{304});
  EXPECT_EQ(statuses_since(from, "GET /repos/octo/web"), std::vector<int>{304});
}

TEST_F(WatchRun, AChangeCostsOneCountedPollAndThePassAfterItNone) {
  // Issue 31 item 15: after a change the list is asked again under the same since, with the
  // changed answer's ETag, and an issue already examined is not examined again while the list
  // shows it the same: one counted poll per change, not two.
  int64_t n = issue("mallory", "hello", "x");
  // Out of the second the answers are made in: an issue changed in it is looked at once more
  // (watch/poll_state.h).
  std::this_thread::sleep_for(std::chrono::seconds(3));
  watch_once();
  size_t from = fake->log().size();
  auto idle = watch_once();
  ASSERT_EQ(events(idle, "poll").size(), 1u) << idle.dump(1);
  EXPECT_EQ(counted_since(from), std::vector<std::string>{}) << fake->log().dump(1);
  comment(n, "mallory", "any news?");
  std::this_thread::sleep_for(std::chrono::seconds(3));
  from = fake->log().size();
  auto changed = watch_once();
  ASSERT_EQ(events(changed, "poll").size(), 1u) << changed.dump(1);
  EXPECT_TRUE(events(changed, "poll")[0]["changed"].get<bool>()) << changed.dump(1);
  std::string issue_path = "GET /repos/octo/web/issues/" + std::to_string(n);
  EXPECT_EQ(counted_since(from),
            (std::vector<std::string>{"GET /repos/octo/web/issues", issue_path + "/comments"}))
      << fake->log().dump(1);
  from = fake->log().size();
  auto after = watch_once();
  ASSERT_EQ(events(after, "poll").size(), 1u) << after.dump(1);
  EXPECT_FALSE(events(after, "poll")[0]["changed"].get<bool>()) << after.dump(1);
  EXPECT_EQ(counted_since(from), std::vector<std::string>{}) << fake->log().dump(1);
  EXPECT_EQ(statuses_since(from, "GET /repos/octo/web/issues"), std::vector<int>{304});
}

// A poll state the state database cannot give (here a row made unreadable; a busy database is
// the same failed read) skips the poll with a logged error. It started from a blank state
// before: the list asked without since or ETag, and every open issue examined again.
TEST_F(WatchRun, AnUnreadablePollStateSkipsThePollAndExaminesNothing) {
  issue("mallory", "hello", "x");
  std::this_thread::sleep_for(std::chrono::seconds(3));
  auto first = watch_once();
  ASSERT_EQ(events(first, "poll").size(), 1u) << first.dump(1);
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((tmp.path + "/state/awaywork.db").c_str(), &db), SQLITE_OK);
    sqlite3_busy_timeout(db, 5000);
    EXPECT_EQ(sqlite3_exec(
                  db, "UPDATE watch_state SET value = '{\"since\": trunc' WHERE key = 'poll/web'",
                  nullptr, nullptr, nullptr),
              SQLITE_OK);
    EXPECT_EQ(sqlite3_changes(db), 1) << "the poll state's row";
    sqlite3_close(db);
  }
  size_t from = fake->log().size();
  auto skipped = watch_once();
  auto failed = events(skipped, "poll_failed");
  ASSERT_EQ(failed.size(), 1u) << skipped.dump(1);
  std::string why = failed[0].value("error", "");
  EXPECT_NE(why.find("state database"), std::string::npos) << why;
  EXPECT_NE(why.find("poll/web"), std::string::npos) << why;
  EXPECT_EQ(events(skipped, "poll").size(), 0u) << skipped.dump(1);
  EXPECT_EQ(statuses_since(from, "GET /repos/octo/web/issues"), std::vector<int>{})
      << fake->log().dump(1);
}

TEST_F(WatchRun, SigtermLetsTheUnitRunForTheGraceThenInterruptsItAndExitsZero) {
  watch_keys = "  poll_seconds: 5\n  shutdown_grace: 2s\n  repos: {web: {}}\n";
  int64_t n = slow_issue();
  std::string log = tmp.path + "/term.jsonl";
  pid_t pid = start_watch(log);
  ASSERT_TRUE(wait_for(log, "unit_started", 30)) << slurp(log);
  auto t0 = std::chrono::steady_clock::now();
  ::kill(pid, SIGTERM);
  EXPECT_EQ(wait_exit(pid, 60), 0) << slurp(log);
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
  auto l = read_log(log);
  ASSERT_EQ(events(l, "released").size(), 1u) << l.dump(1);
  auto u = unit_of(n);
  ASSERT_FALSE(u.is_null());
  EXPECT_EQ(u["state"], "interrupted") << u.dump(1);
  EXPECT_EQ(u["reason"], "watch stopped") << u.dump(1);
  EXPECT_NE(claim_of(n).find("watch was shut down"), std::string::npos) << claim_of(n);
  auto names = labels_of(n);
  EXPECT_EQ(std::count(names.begin(), names.end(), "awaywork:running"), 0);
  EXPECT_TRUE(get("/repos/octo/web/pulls?state=all").empty());

  // Issue 31 item 15: started again, watch runs the issue, and its new claim replaces the one
  // the shutdown ended: the issue holds one comment of awaywork's.
  write_agent("printf 'bravo\\n' > b.txt");
  auto again = watch_once();
  ASSERT_EQ(events(again, "released").size(), 1u) << again.dump(1);
  EXPECT_EQ(events(again, "released")[0]["state"], "done") << again.dump(1);
  std::vector<std::string> ours;
  for (const auto& c : get("/repos/octo/web/issues/" + std::to_string(n) + "/comments"))
    if (c["user"]["login"] == "aw-bot") ours.push_back(c["body"]);
  ASSERT_EQ(ours.size(), 1u) << testing::PrintToString(ours);
  EXPECT_NE(ours[0].find("Earlier: Stopped: watch was shut down"), std::string::npos) << ours[0];
  EXPECT_NE(ours[0].find("Done: unit"), std::string::npos) << ours[0];
}

TEST_F(WatchRun, KillMinusNineMidUnitThenANewWatchReleasesTheIssueAndRunsNothingTwice) {
  int64_t n = slow_issue();
  std::string log = tmp.path + "/k.jsonl";
  pid_t pid = start_watch(log);
  ASSERT_TRUE(wait_for(log, "unit_started", 30)) << slurp(log);
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  auto again = watch_once();
  ASSERT_EQ(events(again, "released").size(), 1u) << again.dump(1);
  EXPECT_TRUE(events(again, "unit_started").empty()) << again.dump(1);
  EXPECT_EQ(units_of(n), 1);
  auto u = unit_of(n);
  EXPECT_EQ(u["state"], "interrupted") << u.dump(1);
  std::string claim = claim_of(n);
  EXPECT_NE(claim.find("Failed"), std::string::npos) << claim;
  EXPECT_NE(claim.find("state=ended"), std::string::npos) << claim;
  auto names = labels_of(n);
  EXPECT_EQ(std::count(names.begin(), names.end(), "awaywork:running"), 0);
  EXPECT_EQ(std::count(names.begin(), names.end(), "awaywork:failed"), 1);
  EXPECT_TRUE(get("/repos/octo/web/pulls?state=all").empty());
  EXPECT_TRUE(events(watch_once(), "unit_started").empty());
}

TEST_F(WatchRun, AUnitStillRunningWhenWatchStartsIsAdoptedFollowedAndItsClaimEnded) {
  // What a watch that died leaves when its unit did not: a slot `running` with the unit's
  // runner, a claim comment, the running label. Made here by hand around a real `run --issue`.
  write_agent("sleep 4\nprintf 'bravo\\n' > b.txt");
  write_watch_config();
  int64_t n = issue("octo", "adopt me", "add b");
  comment(n, "aw-bot",
          "**awaywork** on `old-box` is working on this issue.\n\n<!-- awaywork:claim "
          "host=old-box pid=1 state=active -->");
  auto claim = get("/repos/octo/web/issues/" + std::to_string(n) + "/comments");
  ASSERT_EQ(claim.size(), 1u);
  pid_t unit = start_aw({"--config", config, "run", "--issue", "web#" + std::to_string(n),
                         "--no-progress-comment", "--json"});
  {
    auto st = Store::open(tmp.path + "/state");
    ASSERT_TRUE(st) << st.error().message;
    IssueSlot s;
    s.repo = "web";
    s.number = n;
    s.phase = "running";
    s.claim_comment = claim[0]["id"].get<int64_t>();
    s.claim_since = s.claim_touched = ::time(nullptr);
    s.child_pid = unit;
    s.child_start = process_start_time(unit);
    s.attempts = 1;
    ASSERT_FALSE(s.child_start.empty());
    ASSERT_TRUE(save_slot(*st, s));
  }
  auto log = watch_once();
  int status = 0;
  ::waitpid(unit, &status, 0);
  EXPECT_EQ(WEXITSTATUS(status), 0);
  ASSERT_EQ(events(log, "adopted").size(), 1u) << log.dump(1);
  ASSERT_EQ(events(log, "unit_started").size(), 1u) << log.dump(1);
  EXPECT_TRUE(events(log, "unit_spawned").empty()) << log.dump(1);
  ASSERT_EQ(events(log, "released").size(), 1u) << log.dump(1);
  EXPECT_EQ(events(log, "released")[0]["state"], "done") << log.dump(1);
  EXPECT_EQ(units_of(n), 1);
  auto pulls = get("/repos/octo/web/pulls?state=all");
  ASSERT_EQ(pulls.size(), 1u);
  std::string text = claim_of(n);
  EXPECT_NE(text.find(pulls[0]["html_url"].get<std::string>()), std::string::npos) << text;
  auto names = labels_of(n);
  EXPECT_EQ(std::count(names.begin(), names.end(), "awaywork:done"), 1);
}

std::string hms(time_t t) {
  std::tm tm{};
  ::localtime_r(&t, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%H:%M:%S", &tm);
  return buf;
}

TEST_F(WatchRun, AUnitWaitsForTheWindowAndIsStoppedAtItsEnd) {
  // A window of seconds that would cross midnight is another case: wait it out (never a skip).
  while (hms(::time(nullptr)) > "23:59:30" || hms(::time(nullptr)) < "00:00:30")
    std::this_thread::sleep_for(std::chrono::seconds(1));
  time_t now = ::time(nullptr);
  time_t start = now + 6, end = now + 14;
  watch_keys =
      "  poll_seconds: 5\n  window: \"" + hms(start) + "-" + hms(end) + "\"\n  repos: {web: {}}\n";
  int64_t n = slow_issue();
  std::string log = tmp.path + "/w.jsonl";
  pid_t pid = start_watch(log);
  ASSERT_TRUE(wait_for(log, "released", 40)) << slurp(log);
  ::kill(pid, SIGTERM);
  EXPECT_EQ(wait_exit(pid, 30), 0);
  auto l = read_log(log);
  ASSERT_FALSE(events(l, "claim").empty()) << l.dump(1);
  EXPECT_GE(events(l, "claim")[0]["time"].get<std::string>(), events(l, "queued")[0]["time"]);
  auto u = unit_of(n);
  EXPECT_EQ(u["state"], "interrupted") << u.dump(1);
  EXPECT_EQ(u["reason"], "window ended") << u.dump(1);
  EXPECT_NE(claim_of(n).find("the window ended"), std::string::npos) << claim_of(n);
  EXPECT_TRUE(events(l, "released")[0]["requeued"].get<bool>());
  EXPECT_GE(::time(nullptr), start);
  EXPECT_TRUE(get("/repos/octo/web/pulls?state=all").empty());
}

}  // namespace
}  // namespace aw::test
