// Codex login lending with real files: what is lent, and each rule deciding whether the unit's
// copy is saved back (a genuine refresh of the same login, while the owner's file is unchanged,
// under the lock). Tokens are fake.
#include "secrets/codex_login.h"

#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <thread>

#include "helpers.h"

namespace aw {
namespace {

using test::mode_of;
using test::slurp;
using test::spit;
using test::TempDir;

// An auth.json as Codex writes it for a ChatGPT login; fake token values.
std::string auth(const std::string& account, const std::string& last_refresh,
                 const std::string& access = "eyFAKEaccess0", const std::string& mode = "chatgpt",
                 const std::string& api_key = "null") {
  return R"({"auth_mode":")" + mode + R"(","OPENAI_API_KEY":)" + api_key +
         R"(,"tokens":{"id_token":"eyFAKEid","access_token":")" + access +
         R"(","refresh_token":"rt_FAKE0123456789","account_id":")" + account +
         R"("},"last_refresh":")" + last_refresh + "\"}\n";
}

class CodexLogin : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(owner_dir());
    std::filesystem::create_directories(unit_home());
    spit(owner(), lent, 0600);
  }
  std::string owner_dir() const { return tmp.path + "/owner/.codex"; }
  std::string owner() const { return owner_dir() + "/auth.json"; }
  std::string unit_home() const { return tmp.path + "/unit/codex"; }
  std::string unit_file() const { return unit_home() + "/auth.json"; }
  Lease lend() {
    auto l = lend_codex_login(owner(), unit_home());
    EXPECT_TRUE(l) << l.error().message;
    return l ? *l : Lease{};
  }
  // The unit's copy rewritten as the agent left it.
  void unit_writes(const std::string& text) {
    ::unlink(unit_file().c_str());
    spit(unit_file(), text, 0600);
  }
  std::string give_back(const Lease& l) {
    auto r = return_codex_login(l, unit_file());
    EXPECT_TRUE(r) << r.error().message;
    return r ? *r : "";
  }

  TempDir tmp;
  const std::string lent = auth("acct-FAKE-1", "2026-11-29T10:00:00.123456Z");
};

TEST_F(CodexLogin, LendCopiesTheOwnersFileAs0600AndRemembersIt) {
  ::chmod(owner().c_str(), 0640);
  Lease l = lend();
  EXPECT_EQ(slurp(unit_file()), lent);
  EXPECT_EQ(mode_of(unit_file()), 0600);
  EXPECT_EQ(l.lent_bytes, lent);
  EXPECT_EQ(l.lent_sha256.size(), 64u);
  EXPECT_EQ(l.unit_path, unit_file());
  EXPECT_NE(l.ino, 0u);
}

TEST_F(CodexLogin, LendRefusesALinkANonRegularFileAndAForeignOwner) {
  std::string real = tmp.path + "/elsewhere.json";
  spit(real, lent, 0600);
  ::unlink(owner().c_str());
  ASSERT_EQ(::symlink(real.c_str(), owner().c_str()), 0);
  auto link = lend_codex_login(owner(), unit_home());
  ASSERT_FALSE(link);
  EXPECT_NE(link.error().message.find("symbolic link"), std::string::npos) << link.error().message;
  ::unlink(owner().c_str());
  ASSERT_EQ(::mkfifo(owner().c_str(), 0600), 0);
  auto fifo = lend_codex_login(owner(), unit_home());
  ASSERT_FALSE(fifo);
  EXPECT_NE(fifo.error().message.find("not a regular file"), std::string::npos);
  ::unlink(owner().c_str());
  spit(owner(), lent, 0600);
  if (::geteuid() == 0) {
    ASSERT_EQ(::chown(owner().c_str(), 65534, 65534), 0);
    auto foreign = lend_codex_login(owner(), unit_home());
    ASSERT_FALSE(foreign);
    EXPECT_NE(foreign.error().message.find("not by you"), std::string::npos);
  }
  EXPECT_FALSE(test::mode_of(unit_file())) << "nothing was lent";
}

TEST_F(CodexLogin, LendRefusesACodexHomeThatIsALinkOrAnExistingAuthFile) {
  std::filesystem::remove_all(unit_home());
  std::filesystem::create_directories(tmp.path + "/decoy");
  std::filesystem::create_directory_symlink(tmp.path + "/decoy", unit_home());
  EXPECT_FALSE(lend_codex_login(owner(), unit_home()));
  EXPECT_FALSE(std::filesystem::exists(tmp.path + "/decoy/auth.json"));
  ::unlink(unit_home().c_str());
  std::filesystem::create_directories(unit_home());
  spit(unit_file(), "planted", 0600);
  EXPECT_FALSE(lend_codex_login(owner(), unit_home()));
  EXPECT_EQ(slurp(unit_file()), "planted");
}

TEST_F(CodexLogin, AGenuineRefreshIsSavedAtomicallyAs0600) {
  Lease l = lend();
  std::string refreshed = auth("acct-FAKE-1", "2026-11-29T11:00:00Z", "eyFAKEaccessNEW");
  unit_writes(refreshed);
  auto ino_before = l.ino;
  std::string r = give_back(l);
  EXPECT_EQ(r.rfind("saved", 0), 0u) << r;
  EXPECT_EQ(slurp(owner()), refreshed);
  EXPECT_EQ(mode_of(owner()), 0600);
  struct stat st {};
  ASSERT_EQ(::lstat(owner().c_str(), &st), 0);
  EXPECT_NE(st.st_ino, ino_before) << "replaced by rename, not rewritten in place";
  for (const auto& e : std::filesystem::directory_iterator(owner_dir())) {
    std::string name = e.path().filename();
    EXPECT_TRUE(name == "auth.json" || name == "auth.json.awaywork-lock") << name;
  }
}

TEST_F(CodexLogin, ARefreshWithAnOffsetTimestampIsComparedInUtc) {
  Lease l = lend();
  // 10:30+01:00 is 09:30Z: older than the lent 10:00Z.
  unit_writes(auth("acct-FAKE-1", "2026-11-29T10:30:00+01:00", "eyFAKEaccessNEW"));
  EXPECT_NE(give_back(l).find("not newer"), std::string::npos);
  EXPECT_EQ(slurp(owner()), lent);
  // 10:30-01:00 is 11:30Z: newer.
  unit_writes(auth("acct-FAKE-1", "2026-11-29T10:30:00-01:00", "eyFAKEaccessNEW"));
  EXPECT_EQ(give_back(l).rfind("saved", 0), 0u);
}

TEST_F(CodexLogin, AnotherAccountIsNotSaved) {
  Lease l = lend();
  unit_writes(auth("acct-FAKE-OTHER", "2026-11-29T12:00:00Z", "eyFAKEaccessNEW"));
  std::string r = give_back(l);
  EXPECT_NE(r.find("not saved"), std::string::npos) << r;
  EXPECT_NE(r.find("another account"), std::string::npos) << r;
  EXPECT_EQ(slurp(owner()), lent);
}

TEST_F(CodexLogin, AnotherAuthModeOrApiKeyIsNotSaved) {
  Lease l = lend();
  unit_writes(auth("acct-FAKE-1", "2026-11-29T12:00:00Z", "eyFAKEaccessNEW", "apikey"));
  EXPECT_NE(give_back(l).find("auth_mode differs"), std::string::npos);
  unit_writes(auth("acct-FAKE-1", "2026-11-29T12:00:00Z", "eyFAKEaccessNEW", "chatgpt",
                   "\"sk-FAKEFAKEFAKEFAKEFAKEFAKE\""));
  EXPECT_NE(give_back(l).find("OPENAI_API_KEY was added"), std::string::npos);
  EXPECT_EQ(slurp(owner()), lent);
}

TEST_F(CodexLogin, AnOlderOrEqualLastRefreshIsNotSaved) {
  Lease l = lend();
  unit_writes(auth("acct-FAKE-1", "2026-11-29T10:00:00.123456Z", "eyFAKEaccessNEW"));
  EXPECT_NE(give_back(l).find("not newer"), std::string::npos);
  unit_writes(auth("acct-FAKE-1", "2026-11-28T23:59:59Z", "eyFAKEaccessNEW"));
  EXPECT_NE(give_back(l).find("not newer"), std::string::npos);
  unit_writes(auth("acct-FAKE-1", "yesterday", "eyFAKEaccessNEW"));
  EXPECT_NE(give_back(l).find("last_refresh is unreadable"), std::string::npos);
  EXPECT_EQ(slurp(owner()), lent);
}

TEST_F(CodexLogin, AnUnchangedCopyIsNotSaved) {
  Lease l = lend();
  EXPECT_NE(give_back(l).find("did not refresh"), std::string::npos);
  EXPECT_EQ(slurp(owner()), lent);
}

TEST_F(CodexLogin, TheOwnersFileChangedMeanwhileIsKept) {
  Lease l = lend();
  std::string owners_own = auth("acct-FAKE-1", "2026-11-29T10:30:00Z", "eyFAKEaccessOWNER");
  spit(owner(), owners_own, 0600);
  unit_writes(auth("acct-FAKE-1", "2026-11-29T11:00:00Z", "eyFAKEaccessUNIT"));
  std::string r = give_back(l);
  EXPECT_NE(r.find("changed since it was lent"), std::string::npos) << r;
  EXPECT_EQ(slurp(owner()), owners_own);
}

TEST_F(CodexLogin, AUnitFileReplacedByALinkIsNotFollowed) {
  Lease l = lend();
  std::string target = tmp.path + "/unit/elsewhere.json";
  spit(target, auth("acct-FAKE-1", "2026-11-29T11:00:00Z", "eyFAKEaccessNEW"), 0600);
  ::unlink(unit_file().c_str());
  ASSERT_EQ(::symlink(target.c_str(), unit_file().c_str()), 0);
  std::string r = give_back(l);
  EXPECT_NE(r.find("symbolic link"), std::string::npos) << r;
  EXPECT_EQ(slurp(owner()), lent);
}

TEST_F(CodexLogin, ACodexHomeReplacedByALinkIsNotFollowed) {
  Lease l = lend();
  std::string decoy = tmp.path + "/decoy";
  std::filesystem::create_directories(decoy);
  spit(decoy + "/auth.json", auth("acct-FAKE-1", "2026-11-29T11:00:00Z", "eyFAKEaccessNEW"), 0600);
  std::filesystem::remove_all(unit_home());
  std::filesystem::create_directory_symlink(decoy, unit_home());
  std::string r = give_back(l);
  EXPECT_NE(r.find("not saved: the unit's CODEX_HOME"), std::string::npos) << r;
  EXPECT_EQ(slurp(owner()), lent);
}

TEST_F(CodexLogin, GarbageOrAMissingFileIsNotSaved) {
  Lease l = lend();
  unit_writes("{not json");
  EXPECT_NE(give_back(l).find("not a JSON object"), std::string::npos);
  unit_writes("[1,2]");
  EXPECT_NE(give_back(l).find("not a JSON object"), std::string::npos);
  ::unlink(unit_file().c_str());
  EXPECT_NE(give_back(l).find("not saved"), std::string::npos);
  EXPECT_EQ(slurp(owner()), lent);
}

// The thread's current system call (field 1 of /proc/self/task/TID/syscall), -1 when finished.
long syscall_of(pid_t tid) {
  std::string s = slurp("/proc/self/task/" + std::to_string(tid) + "/syscall");
  if (s.empty()) return -1;
  return std::strtol(s.c_str(), nullptr, 10);
}

TEST_F(CodexLogin, AReturnWaitsForTheLockAndThenSeesTheOtherUnitsSave) {
  Lease l = lend();
  unit_writes(auth("acct-FAKE-1", "2026-11-29T11:00:00Z", "eyFAKEaccessUNIT"));
  // Another unit holds the lock (as if saving its own refresh).
  int other = ::open((owner() + ".awaywork-lock").c_str(), O_RDWR | O_CREAT, 0600);
  ASSERT_GE(other, 0);
  ASSERT_EQ(::flock(other, LOCK_EX), 0);
  std::atomic<pid_t> tid{0};
  std::atomic<bool> done{false};
  std::string result;
  std::thread t([&] {
    tid = static_cast<pid_t>(::syscall(SYS_gettid));
    result = give_back(l);
    done = true;
  });
  // Wait until the return is blocked in flock(2); finishing first means it ignored the lock.
  while (tid == 0) std::this_thread::yield();
  while (!done && syscall_of(tid) != SYS_flock) std::this_thread::yield();
  ASSERT_FALSE(done) << "the return did not wait for the lock: " << result;
  // The other unit saves its refresh, then lets go.
  std::string others = auth("acct-FAKE-1", "2026-11-29T10:45:00Z", "eyFAKEaccessOTHER");
  spit(owner(), others, 0600);
  ::close(other);
  t.join();
  EXPECT_NE(result.find("changed since it was lent"), std::string::npos) << result;
  EXPECT_EQ(slurp(owner()), others);
}

TEST_F(CodexLogin, ConcurrentReturnsSaveExactlyOne) {
  Lease a = lend();
  std::string home_b = tmp.path + "/unit-b/codex";
  std::filesystem::create_directories(home_b);
  auto b = lend_codex_login(owner(), home_b);
  ASSERT_TRUE(b) << b.error().message;
  std::string ra = auth("acct-FAKE-1", "2026-11-29T11:00:00Z", "eyFAKEaccessA");
  std::string rb = auth("acct-FAKE-1", "2026-11-29T11:00:01Z", "eyFAKEaccessB");
  unit_writes(ra);
  ::unlink((home_b + "/auth.json").c_str());
  spit(home_b + "/auth.json", rb, 0600);
  Result<std::string> out_a = std::string(), out_b = std::string();
  std::thread ta([&] { out_a = return_codex_login(a, unit_file()); });
  std::thread tb([&] { out_b = return_codex_login(*b, home_b + "/auth.json"); });
  ta.join();
  tb.join();
  ASSERT_TRUE(out_a && out_b);
  bool saved_a = out_a->rfind("saved", 0) == 0, saved_b = out_b->rfind("saved", 0) == 0;
  EXPECT_NE(saved_a, saved_b) << *out_a << "\n" << *out_b;
  EXPECT_EQ(slurp(owner()), saved_a ? ra : rb);
  EXPECT_NE((saved_a ? *out_b : *out_a).find("changed since it was lent"), std::string::npos);
}

TEST(Rfc3339, ParsesFractionsAndOffsetsAndRefusesTheRest) {
  EXPECT_EQ(parse_rfc3339("1970-01-01T00:00:01Z").value_or(-1), 1000000000);
  EXPECT_EQ(parse_rfc3339("1970-01-01T00:00:00.5Z").value_or(-1), 500000000);
  EXPECT_EQ(parse_rfc3339("1970-01-01T01:00:00+01:00").value_or(-1), 0);
  EXPECT_EQ(parse_rfc3339("2026-11-29T10:00:00.123456789123Z").value_or(-1) % 1000000000,
            123456789);
  for (const char* bad : {"", "2026-11-29", "2026-11-29 10:00:00Z", "2026-11-29T10:00:00",
                          "2026-13-29T10:00:00Z", "2026-11-29T10:00:00.Z", "2026-11-29T10:00:00+1"})
    EXPECT_FALSE(parse_rfc3339(bad)) << bad;
}

}  // namespace
}  // namespace aw
