#include "record/store.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <stdlib.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <thread>
#include <vector>

#include "base/fs.h"
#include "config/config.h"
#include "unit/apply_unit.h"

namespace aw {
namespace {

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char t[] = "/tmp/aw-store-XXXXXX";
    ASSERT_NE(mkdtemp(t), nullptr);
    dir = t;
  }
  void TearDown() override { std::filesystem::remove_all(dir); }
  std::string dir;
};

UnitRecord sample(const std::string& id) {
  UnitRecord u;
  u.id = id;
  u.created_at = "2026-11-29T18:00:00.000Z";
  u.repo = "r";
  u.agent = "a";
  u.state = UnitState::done;
  PhaseRecord p;
  p.name = "agent";
  p.exit_code = 0;
  p.duration_ms = 12;
  p.argv = {"x", "y"};
  u.phases.push_back(p);
  return u;
}

TEST_F(StoreTest, SavedRecordReadsBackWhole) {
  auto s = Store::open(dir);
  ASSERT_TRUE(s) << s.error().message;
  ASSERT_TRUE(s->save(sample("20261129-180000-x-0001")));
  auto u = s->get("20261129-180000-x-0001");
  ASSERT_TRUE(u) << u.error().message;
  EXPECT_EQ(u->phases.at(0).argv, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(u->state, UnitState::done);
}

TEST_F(StoreTest, ProfileAndPerPhaseSecretNamesReadBack) {
  auto s = Store::open(dir);
  UnitRecord r = sample("20261129-180000-x-0003");
  r.profile = "web";
  r.phases.at(0).secrets = {"GH_TOKEN", "NPM_TOKEN"};
  ASSERT_TRUE(s->save(r));
  auto u = s->get(r.id);
  ASSERT_TRUE(u) << u.error().message;
  EXPECT_EQ(u->profile, "web");
  EXPECT_EQ(u->phases.at(0).secrets, (std::vector<std::string>{"GH_TOKEN", "NPM_TOKEN"}));
  // A record written before profiles existed reads back with none.
  auto old = to_json(sample("old"));
  old.erase("profile");
  old["phases"][0].erase("secrets");
  auto back = unit_from_json(old);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->profile, "");
  EXPECT_TRUE(back->phases.at(0).secrets.empty());
}

// The running phase (issue 25: the dashboard's phase clock) reads back with its start; a record
// written before it existed, or between phases, has none.
TEST_F(StoreTest, TheRunningPhaseReadsBackAndIsNoneWhenAbsent) {
  auto s = Store::open(dir);
  ASSERT_TRUE(s) << s.error().message;
  UnitRecord r = sample("20261129-180000-x-0004");
  r.state = UnitState::running;
  PhaseRecord now;
  now.name = "check 1";
  now.argv = {"make", "test"};
  now.started_at = "2026-11-29T18:00:05.250Z";
  r.current_phase = now;
  ASSERT_TRUE(s->save(r));
  auto u = s->get(r.id);
  ASSERT_TRUE(u) << u.error().message;
  ASSERT_TRUE(u->current_phase);
  EXPECT_EQ(u->current_phase->name, "check 1");
  EXPECT_EQ(u->current_phase->argv, (std::vector<std::string>{"make", "test"}));
  EXPECT_EQ(u->current_phase->started_at, "2026-11-29T18:00:05.250Z");
  EXPECT_TRUE(to_json(sample("x"))["current_phase"].is_null());
  auto old = to_json(sample("old"));
  old.erase("current_phase");
  auto back = unit_from_json(old);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_FALSE(back->current_phase);
}

// A record may be another job's file (an artifact's record.json): each field, and each field of
// a phase, holding a value of the wrong type is an Error naming the file and the field, never a
// throw (a throw here ended `apply --from` in std::terminate).
TEST_F(StoreTest, EachWronglyTypedRecordFieldIsAnErrorNamingIt) {
  const nlohmann::json good = to_json(sample("x"));
  ASSERT_TRUE(unit_from_json(good, "record.json"));
  // A string where the field holds anything else, a number where it holds a string.
  auto wrong = [](const nlohmann::json& v) {
    return v.is_string() ? nlohmann::json(5) : nlohmann::json("5");
  };
  for (const auto& [key, v] : good.items()) {
    nlohmann::json bad = good;
    bad[key] = wrong(v);
    auto r = unit_from_json(bad, "record.json");
    ASSERT_FALSE(r) << key;
    EXPECT_EQ(r.error().message.find("record.json: field \"" + key + "\": expected "), 0u)
        << r.error().message;
  }
  for (const auto& [key, v] : good["phases"][0].items()) {
    nlohmann::json bad = good;
    bad["phases"][0][key] = wrong(v);
    auto r = unit_from_json(bad, "record.json");
    ASSERT_FALSE(r) << key;
    EXPECT_EQ(r.error().message.find("record.json: field \"phases[0]." + key + "\": expected "), 0u)
        << r.error().message;
  }
  nlohmann::json bad = good;
  bad["notes"] = nlohmann::json::array({"fine", 3});
  EXPECT_EQ(unit_from_json(bad, "record.json").error().message,
            "record.json: field \"notes[1]\": expected a string, got number");
  bad = good;
  bad["phases"] = nlohmann::json::array({"agent"});
  EXPECT_EQ(unit_from_json(bad, "record.json").error().message,
            "record.json: field \"phases[0]\": expected an object, got string");
  bad = good;
  bad["patch_files"] = int64_t{1} << 40;  // past an int: refused, not cut
  EXPECT_EQ(unit_from_json(bad, "record.json").error().message,
            "record.json: field \"patch_files\": 1099511627776 is out of range [0, 2147483647]");
  EXPECT_EQ(unit_from_json(nlohmann::json::array(), "record.json").error().message,
            "record.json: expected an object, got array");
}

// Text from the agent or the forge may hold bytes that are not UTF-8 (a result, a transcript
// line, an issue's title): the record is still saved, with U+FFFD for each such byte, and every
// other field whole. A strict dump threw there (type_error 316) and the record was lost.
TEST_F(StoreTest, ARecordHoldingBytesThatAreNotUtf8IsSavedWithReplacementsAndNothingLost) {
  auto s = Store::open(dir);
  ASSERT_TRUE(s) << s.error().message;
  const std::string fffd = "\xEF\xBF\xBD";
  UnitRecord r = sample("20261129-180000-x-0005");
  r.issue_title = "Fix \xff\xfe the typo";
  r.prompt = "agent said: \xC3(";
  r.reason = "agent exited 1: \x80";
  r.notes = {"a note \xF0\x9F", "a valid note"};
  r.phases.at(0).argv = {"agent", "--msg", "\xfe"};
  Status saved = Status{};
  ASSERT_NO_THROW(saved = s->save(r));
  ASSERT_TRUE(saved) << saved.error().message;
  auto u = s->get(r.id);
  ASSERT_TRUE(u) << u.error().message;
  EXPECT_EQ(u->issue_title, "Fix " + fffd + fffd + " the typo");
  EXPECT_EQ(u->prompt, "agent said: " + fffd + "(");
  EXPECT_EQ(u->reason, "agent exited 1: " + fffd);
  ASSERT_EQ(u->notes.size(), 2u);
  EXPECT_EQ(u->notes[0], "a note " + fffd);
  EXPECT_EQ(u->notes[1], "a valid note");
  EXPECT_EQ(u->phases.at(0).argv, (std::vector<std::string>{"agent", "--msg", fffd}));
  EXPECT_EQ(u->state, UnitState::done);
  EXPECT_EQ(u->repo, "r");
}

TEST_F(StoreTest, PrefixFindsOneAndRefusesAmbiguity) {
  auto s = Store::open(dir);
  ASSERT_TRUE(s->save(sample("20261129-180000-x-0001")));
  ASSERT_TRUE(s->save(sample("20261129-180000-x-0002")));
  EXPECT_TRUE(s->get("20261129-180000-x-0002"));
  auto amb = s->get("20261129-180000");
  ASSERT_FALSE(amb);
  EXPECT_NE(amb.error().message.find("several"), std::string::npos);
  auto like = s->get("%");
  EXPECT_FALSE(like) << "a % is not a pattern";
}

TEST_F(StoreTest, RunningRecordOfADeadRunnerBecomesInterrupted) {
  auto s = Store::open(dir);
  UnitRecord dead = sample("a");
  dead.state = UnitState::running;
  dead.runner_pid = 999999999;  // no such process
  dead.runner_start = "1";
  UnitRecord alive = sample("b");
  alive.state = UnitState::running;
  alive.runner_pid = getpid();
  alive.runner_start = process_start_time(getpid());
  ASSERT_TRUE(s->save(dead));
  ASSERT_TRUE(s->save(alive));
  auto n = s->mark_orphans_interrupted();
  ASSERT_TRUE(n);
  EXPECT_EQ(*n, std::vector<std::string>{"a"});
  EXPECT_EQ(s->get("a")->state, UnitState::interrupted);
  EXPECT_EQ(s->get("b")->state, UnitState::running);
}

TEST_F(StoreTest, AZombieRunnerHasEndedAndItsRecordBecomesInterrupted) {
  pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  std::string start = process_start_time(child);
  for (int i = 0; i < 200 && !process_start_time(child).empty(); ++i) ::usleep(10000);
  EXPECT_EQ(process_start_time(child), "") << "a zombie is not a live process";
  auto s = Store::open(dir);
  UnitRecord z = sample("z");
  z.state = UnitState::running;
  z.runner_pid = child;
  z.runner_start = start;
  ASSERT_TRUE(s->save(z));
  auto n = s->mark_orphans_interrupted();
  ::waitpid(child, nullptr, 0);
  ASSERT_TRUE(n);
  EXPECT_EQ(*n, std::vector<std::string>{"z"});
}

// Another process that keeps the record database busy for readers: it holds the WAL index's
// write and recovery locks (bytes 120 and 122 of the -shm file, where SQLite's unix VFS puts
// them) and clears the index's header, so that a reader must rebuild the index and cannot; SQLite
// answers SQLITE_BUSY (BUSY_RECOVERY) after its busy timeout. Nothing is lost: once the locks go,
// the next reader rebuilds the index from the WAL.
class ReadBlocker {
 public:
  explicit ReadBlocker(const std::string& shm) {
    int ready[2], go[2];
    if (::pipe(ready) != 0 || ::pipe(go) != 0) return;
    pid_ = ::fork();
    if (pid_ == 0) {
      ::close(ready[0]), ::close(go[1]);
      char said = 'E';
      int fd = ::open(shm.c_str(), O_RDWR | O_CLOEXEC);
      auto lock = [&](off_t at) {
        struct flock l {};
        l.l_type = F_WRLCK;
        l.l_whence = SEEK_SET;
        l.l_start = at;
        l.l_len = 1;
        return ::fcntl(fd, F_SETLK, &l) == 0;
      };
      const char zeros[96] = {};
      if (fd >= 0 && lock(120) && lock(122) && ::pwrite(fd, zeros, sizeof zeros, 0) == 96)
        said = 'L';
      if (::write(ready[1], &said, 1) != 1) ::_exit(2);
      char c;
      while (::read(go[0], &c, 1) > 0) {
      }
      ::_exit(said == 'L' ? 0 : 1);
    }
    ::close(ready[1]), ::close(go[0]);
    go_ = go[1];
    char c = 0;
    held_ = ::read(ready[0], &c, 1) == 1 && c == 'L';
    ::close(ready[0]);
  }
  ~ReadBlocker() { release(); }
  bool held() const { return held_; }
  void release() {
    if (go_ < 0) return;
    ::close(go_);
    go_ = -1;
    ::waitpid(pid_, nullptr, 0);
  }

 private:
  pid_t pid_ = -1;
  int go_ = -1;
  bool held_ = false;
};

// A read that finds the database locked past the busy timeout says the database was busy and
// where; it answered "no unit" before, sending the owner to look for a unit that was there.
TEST_F(StoreTest, AReadOfABusyDatabaseSaysItWasBusyNotThatThereIsNoUnit) {
  auto s = Store::open(dir);
  ASSERT_TRUE(s) << s.error().message;
  UnitRecord r = sample("20261129-180000-x-0006");
  ASSERT_TRUE(s->save(r));
  ASSERT_TRUE(s->get(r.id));
  ReadBlocker blocker(dir + "/awaywork.db-shm");
  ASSERT_TRUE(blocker.held());
  auto start = std::chrono::steady_clock::now();
  auto busy = s->get(r.id);
  ASSERT_FALSE(busy) << "read while the database was locked";
  const std::string& why = busy.error().message;
  EXPECT_EQ(why.find("no unit"), std::string::npos) << why;
  EXPECT_NE(why.find("busy"), std::string::npos) << why;
  EXPECT_NE(why.find(dir + "/awaywork.db"), std::string::npos) << why;
  EXPECT_NE(why.find(r.id), std::string::npos) << why;
  EXPECT_GE(std::chrono::steady_clock::now() - start, kBusyTimeout) << "waited the busy timeout";
  blocker.release();
  auto again = s->get(r.id);
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(again->state, UnitState::done);
}

// Every other read of a busy database says so too. An empty answer was taken for the truth:
// `awaywork units` said there were none, and watch read an issue's slot as never claimed (and would
// claim and run the issue again) or its runner as one that recorded no unit.
TEST_F(StoreTest, EveryReadOfABusyDatabaseIsAnErrorNotAnEmptyAnswer) {
  auto s = Store::open(dir);
  ASSERT_TRUE(s) << s.error().message;
  UnitRecord r = sample("20261129-180000-x-0007");
  r.runner_pid = 4242;
  ASSERT_TRUE(s->save(r));
  ASSERT_TRUE(s->watch_put("issue/r#1", nlohmann::json{{"phase", "running"}}));
  ReadBlocker blocker(dir + "/awaywork.db-shm");
  ASSERT_TRUE(blocker.held());
  auto says_busy = [&](const auto& read, const std::string& what) {
    ASSERT_FALSE(read) << what << " read as if the database were free";
    const std::string& why = read.error().message;
    EXPECT_NE(why.find("busy"), std::string::npos) << what << ": " << why;
    EXPECT_NE(why.find(dir + "/awaywork.db"), std::string::npos) << what << ": " << why;
  };
  says_busy(s->list(), "list");
  says_busy(s->watch_get("issue/r#1"), "watch_get");
  says_busy(s->by_runner(4242), "by_runner");
  blocker.release();
  // Nothing was lost: each reads what is there once the locks are gone.
  auto list = s->list();
  ASSERT_TRUE(list) << list.error().message;
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ((*list)[0].id, r.id);
  auto kept = s->watch_get("issue/r#1");
  ASSERT_TRUE(kept && *kept) << (kept ? "none" : kept.error().message);
  EXPECT_EQ((**kept)["phase"], "running");
  auto mine = s->by_runner(4242);
  ASSERT_TRUE(mine && *mine) << (mine ? "none" : mine.error().message);
  EXPECT_EQ((**mine).id, r.id);
}

// Another connection holding the write lock of a new database while Store::open switches it to
// WAL: the switch reads the header, then needs the write lock, and SQLite answers SQLITE_BUSY at
// once, without waiting the busy timeout. Sixteen `awaywork run`s on a new state folder met this
// now and then (another run's open held the lock): one exited 2 before it made its run folder.
TEST_F(StoreTest, OpeningANewDatabaseWaitsForAnotherConnectionsLockInsteadOfFailingAtOnce) {
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open((dir + "/awaywork.db").c_str(), &h), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(h, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  constexpr auto kHeld = std::chrono::milliseconds(500);
  std::thread release([h, kHeld] {
    std::this_thread::sleep_for(kHeld);
    sqlite3_exec(h, "COMMIT", nullptr, nullptr, nullptr);
  });
  auto start = std::chrono::steady_clock::now();
  auto s = Store::open(dir);
  auto took = std::chrono::steady_clock::now() - start;
  release.join();
  sqlite3_close(h);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_GE(took, kHeld / 2) << "opened while the lock was held";
  ASSERT_TRUE(s->save(sample("20261129-180000-x-0008")));
  EXPECT_TRUE(std::filesystem::exists(dir + "/awaywork.db-wal")) << "the database is in WAL mode";
}

// The load itself: sixteen openers of a new database at once (faults_limits_test's sixteen runs
// without the sandbox), a few times over; every one opens and can write.
TEST_F(StoreTest, SixteenOpenersOfANewDatabaseAtOnceAllOpen) {
  constexpr int kOpeners = 16, kRounds = 10;
  for (int round = 0; round < kRounds; ++round) {
    std::string state = dir + "/round" + std::to_string(round);
    std::vector<std::string> failed(kOpeners);
    std::vector<std::thread> openers;
    for (int i = 0; i < kOpeners; ++i)
      openers.emplace_back([&, i] {
        auto s = Store::open(state);
        if (!s) {
          failed[i] = s.error().message;
          return;
        }
        auto saved = s->save(sample(fmt::format("20261129-180000-r{}-{:04}", round, i)));
        if (!saved) failed[i] = saved.error().message;
      });
    for (auto& t : openers) t.join();
    for (int i = 0; i < kOpeners; ++i)
      EXPECT_EQ(failed[i], "") << "round " << round << ", opener " << i;
    auto s = Store::open(state);
    ASSERT_TRUE(s) << s.error().message;
    auto all = s->list(100);
    ASSERT_TRUE(all) << all.error().message;
    EXPECT_EQ(all->size(), static_cast<size_t>(kOpeners)) << "round " << round;
  }
}

TEST_F(StoreTest, DatabaseIsInWalModeAndPrivate) {
  auto s = Store::open(dir);
  ASSERT_TRUE(s);
  ASSERT_TRUE(s->save(sample("x")));
  EXPECT_TRUE(std::filesystem::exists(dir + "/awaywork.db-wal"));
  auto perms = std::filesystem::status(dir).permissions();
  EXPECT_EQ(perms & std::filesystem::perms::others_all, std::filesystem::perms::none);
}

// `apply ID`'s assembly (unit/apply_unit.h, moved out of cli/ in issue 40): what it refuses before
// any git runs, and that no publishers (an empty OpenPublisher) means git's own, never a throw.
TEST_F(StoreTest, ApplyUnitRefusesWhatCannotBeAppliedAndNeedsNoPublishers) {
  auto s = Store::open(dir);
  ASSERT_TRUE(s) << s.error().message;
  Config cfg;
  UnitRecord u = sample("20261129-180000-apply");
  u.run_dir = dir + "/run";
  std::filesystem::create_directories(u.run_dir);
  u.verdict = "refused";
  auto a = apply_unit(cfg, *s, u, {});
  ASSERT_FALSE(a);
  EXPECT_NE(a.error().message.find("was not accepted"), std::string::npos) << a.error().message;

  u.verdict = "accepted";
  ASSERT_TRUE(write_file(u.run_dir + "/patch.diff", "", 0600));
  a = apply_unit(cfg, *s, u, {});
  ASSERT_FALSE(a);
  EXPECT_NE(a.error().message.find("changed nothing"), std::string::npos) << a.error().message;

  ASSERT_TRUE(write_file(u.run_dir + "/patch.diff", "diff --git a/x b/x\n", 0600));
  ASSERT_TRUE(
      write_file(u.run_dir + "/verdict.json", R"({"accepted": false, "paths": ["x"]})", 0600));
  a = apply_unit(cfg, *s, u, {});
  ASSERT_FALSE(a);
  EXPECT_NE(a.error().message.find("is not an accepted verdict"), std::string::npos)
      << a.error().message;

  // Accepted, with no publishers: git's own, which finds no source here (an Error, not a throw).
  ASSERT_TRUE(
      write_file(u.run_dir + "/verdict.json", R"({"accepted": true, "paths": ["x"]})", 0600));
  u.source = dir + "/no-such-source";
  a = apply_unit(cfg, *s, u, {});
  EXPECT_FALSE(a);
  EXPECT_FALSE(s->get(u.id)) << "nothing changed: the record is not saved";
}

}  // namespace
}  // namespace aw
