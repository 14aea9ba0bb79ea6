// The fixture of the pipeline tests under isolation container: a real engine (started by
// scripts/engine-up) and the local test image (scripts/test-image). Skips without an engine,
// fails under CI=true. The agents are scripts committed in the repository (tools/), since the
// container sees only the clone.
#pragma once

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "isolate/container/engine.h"
#include "proc/capture.h"
#include "unit_fixture.h"

namespace aw::test {

// Not in an anonymous namespace: the tests of several files share the fixture (GoogleTest wants one
// fixture class per test suite). The engine's setup is the fixture's own (its names do not meet
// tests/isolate/container/fixture.h's kImage and test_engine), and runs once per binary.
class ContainerPipeline : public UnitTest {
 public:
  static constexpr const char* kImage = "awaywork-test:bookworm";

 protected:
  struct EngineSetup {
    std::optional<Engine> engine;
    std::string why;
    EngineSetup() {
      // The image is built before the tests by scripts/test; a test only checks that it is there.
      for (const char* script : {"engine-up", "test-image"}) {
        CaptureSpec spec;
        spec.argv = {std::string(AW_SOURCE_DIR) + "/scripts/" + script};
        if (std::string(script) == "test-image") spec.argv.push_back("--check");
        spec.env = {"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"};
        auto c = capture(spec);
        if (!c || c->exit_code != 0) {
          why = std::string("scripts/") + script + ": " + (c ? c->out + c->err : c.error().message);
          return;
        }
      }
      auto e = find_engine("docker");
      if (!e)
        why = e.error().message;
      else
        engine = *e;
    }
  };

  static const Engine* test_engine(std::string* why) {
    static EngineSetup s;  // once per binary
    if (!s.engine) *why = s.why;
    return s.engine ? &*s.engine : nullptr;
  }

  // Starts `awaywork run` in the background and waits until its agent touched
  // .away/outputs/started inside the container; returns the pid and the unit id.
  std::pair<pid_t, std::string> start_until_agent_started(const std::string& prompt) {
    pid_t pid = start_run_in_background(prompt);
    std::string unit;
    // Up to two minutes: a loaded engine can take long to start a container.
    for (int i = 0; i < 2400 && unit.empty(); ++i) {
      std::error_code ec;
      for (const auto& e : std::filesystem::directory_iterator(root + "/state/runs", ec))
        if (exists(e.path().string() + "/work/.away/outputs/started"))
          unit = e.path().filename().string();
      if (unit.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return {pid, unit};
  }
  void SetUp() override {
    UnitTest::SetUp();
    std::string why;
    engine = test_engine(&why);
    if (engine) return;
    const char* ci = std::getenv("CI");
    if (ci && std::string(ci) == "true") FAIL() << "CI=true and no container engine: " << why;
    GTEST_SKIP() << "no container engine: " << why;
  }

  // The repository with the agent committed at tools/agent.sh; the config runs it in the test
  // image. repo_extra/agent_extra as write_config.
  void setup(std::map<std::string, std::string> files, const std::string& agent,
             const std::string& repo_extra = "", const std::string& agent_extra = "") {
    files["tools/agent.sh"] = "set -eu\n" + agent + "\n";
    make_repo(files);
    write_config("sh, tools/agent.sh",
                 std::string("    image: ") + kImage + "\n" + repo_extra +
                     "isolation: container\ncontainer_engine: docker\n",
                 agent_extra);
  }

  std::vector<std::string> containers_of(const std::string& unit) {
    auto left = containers_of_unit(*engine, unit);
    EXPECT_TRUE(left) << left.error().message;
    return left ? *left : std::vector<std::string>{};
  }

  static bool setid(const std::string& path) {
    struct stat st {};
    return ::lstat(path.c_str(), &st) == 0 && (st.st_mode & (S_ISUID | S_ISGID)) != 0;
  }

  const Engine* engine = nullptr;
};

}  // namespace aw::test
