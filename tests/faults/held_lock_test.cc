// Another process holding the record database's write lock (a BEGIN EXCLUSIVE held longer than
// SQLite's 5 s busy timeout) while a unit records its phases: the unit's writes are retried, never
// lost, and its record is complete once the lock is released. A write that never gets the lock
// fails, after its patience, naming the database and the process holding the lock; a unit whose
// end reached only its summary.json gets that record back at the next start.
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include <fmt/format.h>

#include "../unit/unit_fixture.h"
#include "base/fs.h"
#include "faults_fixture.h"
#include "record/store.h"

namespace aw::test {
namespace {

using namespace std::chrono_literals;

// A separate process that opens db and holds BEGIN EXCLUSIVE on it until release().
class LockHolder {
 public:
  explicit LockHolder(const std::string& db) {
    int ready[2], go[2];
    if (::pipe(ready) != 0 || ::pipe(go) != 0) return;
    pid_ = ::fork();
    if (pid_ == 0) {
      ::close(ready[0]), ::close(go[1]);
      sqlite3* h = nullptr;
      char said = 'E';
      if (sqlite3_open(db.c_str(), &h) == SQLITE_OK && (sqlite3_busy_timeout(h, 10000), true) &&
          sqlite3_exec(h, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr) == SQLITE_OK)
        said = 'L';
      if (::write(ready[1], &said, 1) != 1) ::_exit(2);
      char c;
      while (::read(go[0], &c, 1) > 0) {
      }
      sqlite3_exec(h, "COMMIT", nullptr, nullptr, nullptr);
      sqlite3_close(h);
      ::_exit(said == 'L' ? 0 : 1);
    }
    ::close(ready[1]), ::close(go[0]);
    go_ = go[1];
    char c = 0;
    held_ = ::read(ready[0], &c, 1) == 1 && c == 'L';
    ::close(ready[0]);
  }
  ~LockHolder() { release(); }
  bool held() const { return held_; }
  pid_t pid() const { return pid_; }
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

class HeldLock : public UnitTest {
 protected:
  std::string db() const { return root + "/state/awaywork.db"; }
  // A record left `running` by a runner that is gone (pid 1 is alive, but not with that start
  // time), with its run folder.
  UnitRecord orphan(Store& store, const std::string& id) {
    UnitRecord u;
    u.id = id;
    u.created_at = "2026-12-01T00:00:00Z";
    u.run_dir = root + "/state/runs/" + u.id;
    u.state = UnitState::running;
    u.runner_pid = 1;
    u.runner_start = "0";
    EXPECT_TRUE(store.save(u));
    std::filesystem::create_directories(u.run_dir);
    return u;
  }
};

TEST_F(HeldLock, AUnitsWritesWaitForTheLockAndItsRecordIsCompleteOnceReleased) {
  make_repo({{"a.txt", "x\n"}});
  // The agent is seen running by its sleep; the lock is taken then, before the unit records the
  // agent's phase, and held longer than the phase's write and the unit's last one each wait (5 s).
  std::string mark = fmt::format("2.{}", ::getpid());
  write_config(agent_script("agent", "echo y >> a.txt\nsleep " + mark),
               "    checks: [\"grep -q y a.txt\"]\n");
  ASSERT_EQ(awaywork({"units"}).exit_code, 0);  // the database exists
  pid_t pid = start_run_in_background("write under a held lock");
  ASSERT_TRUE(eventually([&] { return process_alive_with(mark); }, 60s));
  auto held_at = std::chrono::steady_clock::now();
  int status = 0;
  {
    LockHolder lock(db());
    ASSERT_TRUE(lock.held());
    std::this_thread::sleep_for(25s);
    pid_t ended = ::waitpid(pid, &status, WNOHANG);
    EXPECT_EQ(ended, 0) << "the unit ended while its record was locked";
    lock.release();
    if (ended == 0) {
      ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    }
  }
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_GT(std::chrono::steady_clock::now() - held_at, 25s);

  auto list = awaywork({"units", "--json"});
  ASSERT_TRUE(list.record.is_array() && list.record.size() == 1u) << list.out << list.err;
  auto shown = awaywork({"show", list.record[0]["id"], "--json"});
  const auto& u = shown.record;
  EXPECT_EQ(u["state"], "done") << u.dump(2);
  ASSERT_EQ(u["phases"].size(), 2u) << u.dump(2);
  EXPECT_EQ(u["phases"][0]["name"], "agent");
  EXPECT_EQ(u["verdict"], "accepted");
  std::string branch = u.value("branch", "");
  ASSERT_FALSE(branch.empty()) << u.dump(2);
  EXPECT_EQ(git({"show", branch + ":a.txt"}), "x\ny\n");
  EXPECT_EQ(integrity_check(db()), "ok");
}

TEST_F(HeldLock, AWriteThatNeverGetsTheLockFailsNamingTheDatabaseAndTheHolder) {
  auto store = Store::open(root + "/state", 1ms);
  ASSERT_TRUE(store) << store.error().message;
  UnitRecord u;
  u.id = "20261201-000000-held";
  u.created_at = "2026-12-01T00:00:00Z";
  u.state = UnitState::done;
  LockHolder lock(db());
  ASSERT_TRUE(lock.held());
  auto saved = store->save(u);
  ASSERT_FALSE(saved);
  std::string why = saved.error().message;
  if (std::getenv("AW_SHOW")) std::fprintf(stderr, "%s\n", why.c_str());
  EXPECT_NE(why.find(db()), std::string::npos) << why;
  EXPECT_NE(why.find(fmt::format("pid {}", lock.pid())), std::string::npos) << why;
  EXPECT_NE(why.find("write lock"), std::string::npos) << why;
  lock.release();
  ASSERT_TRUE(store->save(u));
  auto got = store->get(u.id);
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(got->state, UnitState::done);
  EXPECT_EQ(integrity_check(db()), "ok");
}

// The unit's end reached its run folder's summary.json, but not the database (it stayed locked
// past the write's patience, or the disk was full): the next start records what the summary says
// instead of a crash.
TEST_F(HeldLock, AnEndThatReachedOnlyTheSummaryIsRecordedFromItAtTheNextStart) {
  auto store = Store::open(root + "/state");
  ASSERT_TRUE(store) << store.error().message;
  UnitRecord u = orphan(*store, "20261201-000000-summary");
  UnitRecord ended = u;
  ended.state = UnitState::done;
  ended.branch = "awaywork/summary";
  ended.ended_at = "2026-12-01T00:01:00Z";
  ASSERT_TRUE(write_file(u.run_dir + "/summary.json", to_json(ended).dump(2) + "\n", 0600));
  auto marked = store->mark_orphans_interrupted();
  ASSERT_TRUE(marked) << marked.error().message;
  auto got = store->get(u.id);
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(got->state, UnitState::done);
  EXPECT_EQ(got->branch, "awaywork/summary");
  std::string notes;
  for (const auto& n : got->notes) notes += n + "\n";
  EXPECT_NE(notes.find("summary.json"), std::string::npos) << notes;
}

TEST_F(HeldLock, ARunningRecordWithoutAnEndedSummaryIsStillInterrupted) {
  auto store = Store::open(root + "/state");
  ASSERT_TRUE(store) << store.error().message;
  UnitRecord u = orphan(*store, "20261201-000000-crash");
  // What a planted or half-written summary holds changes nothing: it must end the same unit.
  UnitRecord other = u;
  other.id = "20261201-000000-other";
  other.state = UnitState::done;
  ASSERT_TRUE(write_file(u.run_dir + "/summary.json", to_json(other).dump(2), 0600));
  ASSERT_TRUE(store->mark_orphans_interrupted());
  auto got = store->get(u.id);
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(got->state, UnitState::interrupted);
}

}  // namespace
}  // namespace aw::test
