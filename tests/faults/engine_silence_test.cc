// A container engine that stops answering: a stand-in `docker` client (configured as
// container_engine) that answers `version` and `image inspect`, then leaves every other question
// unanswered (or answers `run` and then nothing). The unit must end `lost` after
// limits.engine_silence, with a reason naming the engine and the silence; nothing published and
// no process of the stand-in left behind. No real engine is needed: the stand-in is the engine.
#include <sys/stat.h>

#include <chrono>
#include <fstream>

#include "unit_fixture.h"

namespace aw::test {
namespace {

class SilentEngine : public UnitTest {
 protected:
  void SetUp() override {
    UnitTest::SetUp();
    make_repo({{"a.txt", "a\n"}, {"tools/agent.sh", "echo edited > a.txt\n"}});
    engine_dir = root + "/engine";
    ::mkdir(engine_dir.c_str(), 0755);
    // Named docker: awaywork knows an engine's kind by its client's name.
    std::ofstream(engine_dir + "/docker") << R"SH(#!/bin/sh
here=$(dirname "$0")
echo "$*" >> "$here/calls.log"
case "$1" in
  version) echo 27.0.0-stand-in; exit 0 ;;
  image) echo sha256:0000stand-in; exit 0 ;;
esac
if [ "$(cat "$here/mode")" = answers-run ] && [ "$1" = run ]; then exit 0; fi
# Silence: never an answer, until someone kills this process (and its sleep).
while :; do sleep 1; done
)SH";
    ::chmod((engine_dir + "/docker").c_str(), 0755);
  }

  nlohmann::json run(const std::string& mode, std::chrono::seconds* took) {
    std::ofstream(engine_dir + "/mode") << mode << "\n";
    write_config("sh, tools/agent.sh",
                 "    image: awaywork-test:bookworm\n"
                 "isolation: container\nunit_minutes: 1\ncontainer_engine: " +
                     engine_dir + "/docker\nlimits: {engine_silence: 2s}\n");
    auto started = std::chrono::steady_clock::now();
    auto r = run_unit("edit a.txt");
    *took = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() -
                                                             started);
    EXPECT_FALSE(r.record.is_null()) << r.out << r.err;
    return r.record;
  }

  void expect_nothing_left(const nlohmann::json& u) {
    EXPECT_EQ(u.value("branch", ""), "") << u.dump(2);
    EXPECT_EQ(git({"branch", "--list"}), "* main\n");  // no branch pushed to the source
    EXPECT_FALSE(exists(u.value("run_dir", "") + "/patch.diff") &&
                 read(u.value("run_dir", "") + "/patch.diff").find("+edited") != std::string::npos)
        << "a patch was collected from a lost clone";
    EXPECT_FALSE(process_alive_with(engine_dir + "/docker")) << "a stand-in client still runs";
  }

  std::string engine_dir;
};

TEST_F(SilentEngine, AnEngineThatNeverAnswersTheRunLosesTheUnitAfterTheSilence) {
  std::chrono::seconds took{};
  auto u = run("silent", &took);
  EXPECT_EQ(u.value("state", ""), "lost") << u.dump(2);
  std::string reason = u.value("reason", "");
  EXPECT_NE(reason.find("clone lost in the agent phase"), std::string::npos) << reason;
  EXPECT_NE(reason.find("the container engine docker (" + engine_dir + "/docker)"),
            std::string::npos)
      << reason;
  EXPECT_NE(reason.find("did not answer for 2 s (limits.engine_silence)"), std::string::npos)
      << reason;
  // Seen within a few silences, not at the unit's 60-minute deadline.
  EXPECT_LT(took, std::chrono::seconds(30));
  std::string calls = read(engine_dir + "/calls.log");
  EXPECT_NE(calls.find("run --rm -i --name=aw-"), std::string::npos) << calls;
  EXPECT_NE(calls.find("container inspect"), std::string::npos) << calls;
  expect_nothing_left(u);
}

TEST_F(SilentEngine, AnEngineThatFallsSilentAfterThePhaseLosesTheUnit) {
  std::chrono::seconds took{};
  auto u = run("answers-run", &took);
  EXPECT_EQ(u.value("state", ""), "lost") << u.dump(2);
  std::string reason = u.value("reason", "");
  EXPECT_NE(reason.find("could not be removed within limits.engine_silence (2 s)"),
            std::string::npos)
      << reason;
  EXPECT_NE(reason.find("docker container did not answer"), std::string::npos) << reason;
  EXPECT_LT(took, std::chrono::seconds(30));
  expect_nothing_left(u);
}

TEST_F(SilentEngine, ABadSilenceIsNamedAtItsLine) {
  write_config("sh", "limits: {engine_silence: forever}\n");
  auto r = awaywork({"units"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("limits.engine_silence"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("is not a duration from 1s to 1h"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(":9:"), std::string::npos) << r.err;  // the line of limits:
}

}  // namespace
}  // namespace aw::test
