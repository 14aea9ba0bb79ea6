// awaywork killed outright (SIGKILL: no handler runs) while a unit is in its setup, its agent or
// a check, under isolation none + sandbox, user and container. The next start of awaywork (here
// `awaywork units`, which runs crash recovery) finds the unit: its record says `interrupted`, the
// phase's processes are gone, the worker's folders are the owner's again and nothing of the
// worker's is left, the unit's containers are removed, nothing was published, and the database is
// sound.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <tuple>

#include <fmt/format.h>

#include "../isolate/container/fixture.h"
#include "../unit/user_pipeline.h"
#include "faults_fixture.h"
#include "isolate/user/leftovers.h"

namespace aw::test {
namespace {

namespace fs = std::filesystem;

using Where = std::tuple<std::string, std::string>;  // (phase, isolation)

class Kill9 : public UserPipeline, public ::testing::WithParamInterface<Where> {
 protected:
  std::string phase() const { return std::get<0>(GetParam()); }
  std::string isolation() const { return std::get<1>(GetParam()); }

  // The three phases as scripts committed in the repository (a container sees only the clone).
  // The agent changes a file, so a unit that went on would publish a branch. The phase that is
  // killed in shows it is running by a sleep of `mark` seconds, visible to the test in /proc
  // whatever the isolation's view, and waits there.
  std::map<std::string, std::string> repository() const {
    auto hang = [&](const char* p) { return phase() == p ? "exec sleep " + mark + "\n" : ""; };
    return {{"a.txt", "x\n"},
            {"tools/setup.sh", "set -eu\n" + hang("setup") + "true\n"},
            {"tools/agent.sh", "set -eu\ncat >/dev/null\necho y >> a.txt\n" + hang("agent")},
            {"tools/check.sh", "set -eu\n" + hang("check") + "true\n"}};
  }
  static constexpr const char* kPhases =
      "    setup: [sh, tools/setup.sh]\n    checks: [[sh, tools/check.sh]]\n";

  // awaywork as whoever runs it for this isolation (the owner under user, else this process).
  RunOutput next_start(const std::vector<std::string>& args) {
    return users_ ? owner_awaywork(args) : awaywork(args);
  }
  std::string branches() {
    return users_ ? owner_git(src, "branch --list 'awaywork/*'")
                  : git({"branch", "--list", "awaywork/*"});
  }

  // The folders a user unit was given, from its run folder's isolation.json.
  std::vector<std::string> user_folders(const std::string& run_dir) {
    std::vector<std::string> out;
    auto l = nlohmann::json::parse(read(run_dir + "/isolation.json"), nullptr, false);
    if (l.is_object())
      for (const auto& f : l["folders"]) out.push_back(f["path"].get<std::string>());
    return out;
  }

  void TearDown() override {
    for (const auto& f : folders_) fs::remove_all(f);
    UserPipeline::TearDown();
  }

  // Unique to this test process: no other unit's sleep matches it.
  const std::string mark = fmt::format("7{}.{}", ::getpid(), 25);
  std::vector<std::string> folders_;
};

TEST_P(Kill9, TheNextStartFindsTheUnitInterruptedAndEverythingTakenBack) {
  const Engine* engine = nullptr;
  if (isolation() == "container") {
    std::string why;
    engine = test_engine(&why);
    if (!engine) {
      if (under_ci()) FAIL() << "CI=true and no container engine: " << why;
      GTEST_SKIP() << "no container engine: " << why;
    }
    make_repo(repository());
    write_config("sh, tools/agent.sh", std::string("    image: ") + kImage + "\n" + kPhases +
                                           "isolation: container\ncontainer_engine: docker\n");
  } else if (isolation() == "user") {
    AW_NEED_USERS(u);
    world(*u, repository());
    configure("sh, tools/agent.sh", kPhases);
  } else {
    make_repo(repository());
    write_config("sh, tools/agent.sh", std::string(kPhases) + "sandbox: {mode: required}\n");
  }
  std::vector<std::string> run = {"run", "--repo", "src", "--prompt", "killed in " + phase()};
  pid_t pid = users_ ? start_as_owner(run) : start_run_in_background(run.back());
  // A loaded engine can take long to start the containers of the phases before.
  bool reached = eventually([&] { return process_alive_with(mark); }, std::chrono::minutes(3));
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  ::waitpid(pid, nullptr, 0);
  ASSERT_TRUE(reached) << "the " << phase() << " phase never started";

  auto list = next_start({"units", "--json"});
  EXPECT_EQ(list.exit_code, 0) << list.out << list.err;
  ASSERT_TRUE(list.record.is_array() && list.record.size() == 1u) << list.out << list.err;
  std::string id = list.record[0]["id"];
  auto shown = next_start({"show", id, "--json"});
  const auto& u = shown.record;
  ASSERT_TRUE(u.is_object()) << shown.out << shown.err;
  std::string run_dir = u.value("run_dir", "");
  if (users_) folders_ = user_folders(run_dir);

  EXPECT_EQ(u["state"], "interrupted") << u.dump(2);
  if (isolation() != "user") {
    EXPECT_EQ(u.value("sandbox", "").rfind("sandboxed", 0), 0u) << u.dump(2);
  }
  EXPECT_NE(u.value("reason", "").find("crash or kill"), std::string::npos) << u.dump(2);
  // What ran before the killed phase stays on the record.
  size_t before = phase() == "setup" ? 0 : phase() == "agent" ? 1 : 2;
  ASSERT_EQ(u["phases"].size(), before) << u.dump(2);
  const char* names[] = {"setup", "agent"};
  for (size_t i = 0; i < before; ++i) EXPECT_EQ(u["phases"][i]["name"], names[i]) << u.dump(2);

  EXPECT_TRUE(eventually([&] { return !process_alive_with(mark); }, std::chrono::seconds(10)))
      << "the killed phase's processes outlived the recovery";
  EXPECT_EQ(branches(), "") << "nothing is published from an interrupted unit";
  EXPECT_EQ(integrity_check(root + "/state/awaywork.db"), "ok");
  EXPECT_FALSE(exists(run_dir + "/.reserve")) << "the room kept for the unit's end is given back";

  if (engine) {
    auto left = containers_of_unit(*engine, id);
    ASSERT_TRUE(left) << left.error().message;
    EXPECT_EQ(*left, std::vector<std::string>{}) << "the crashed unit's containers are removed";
  }
  if (users_) {
    ASSERT_EQ(folders_.size(), 2u) << read(run_dir + "/isolation.json");
    for (const auto& f : folders_) {
      struct stat st {};
      ASSERT_EQ(::lstat(f.c_str(), &st), 0) << f;
      EXPECT_EQ(st.st_uid, users_->owner_uid) << f << " is not the owner's again";
    }
    // Nothing of the worker's anywhere: not in the unit's folders, not in the shared trees.
    std::vector<std::string> roots = leftover_roots();
    roots.insert(roots.end(), folders_.begin(), folders_.end());
    EXPECT_EQ(entries_owned_by(users_->worker.uid, users_->worker.gid, roots, {}),
              std::vector<std::string>{});
    EXPECT_NE(u["notes"].dump().find("recovered: "), std::string::npos) << u["notes"].dump();
  }
}

INSTANTIATE_TEST_SUITE_P(
    PhaseByIsolation, Kill9,
    ::testing::Combine(::testing::Values<std::string>("setup", "agent", "check"),
                       ::testing::Values<std::string>("sandbox", "user", "container")),
    [](const ::testing::TestParamInfo<Where>& i) {
      return std::get<0>(i.param) + "_" + std::get<1>(i.param);
    });

}  // namespace
}  // namespace aw::test
