// Where awaywork runs, from its environment: GitHub-hosted runners and the image force isolation
// user (DESIGN.md section 11); a self-hosted runner is a box like any other.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <string>

#include "config/config.h"
#include "config/host_env.h"

namespace aw {
namespace {

EnvLookup env_of(std::map<std::string, std::string> vars) {
  return [vars](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

TEST(HostEnv, TellsHostedRunnersImagesAndTheRestApart) {
  EXPECT_EQ(
      host_kind(env_of({{"GITHUB_ACTIONS", "true"}, {"RUNNER_ENVIRONMENT", "github-hosted"}})),
      HostKind::github_hosted);
  EXPECT_EQ(host_kind(env_of({{"GITHUB_ACTIONS", "true"}, {"RUNNER_ENVIRONMENT", "self-hosted"}})),
            HostKind::plain);
  EXPECT_EQ(host_kind(env_of({{"RUNNER_ENVIRONMENT", "github-hosted"}})), HostKind::plain);
  EXPECT_EQ(host_kind(env_of({{"AWAYWORK_IMAGE", "1"}})), HostKind::image);
  EXPECT_EQ(host_kind(env_of({{"AWAYWORK_IMAGE", "0"}})), HostKind::plain);
  EXPECT_EQ(host_kind(env_of({})), HostKind::plain);
}

TEST(HostEnv, ImageForcesUserWhateverTheConfigSays) {
  for (Isolation from : {Isolation::none, Isolation::container, Isolation::user}) {
    Config cfg;
    cfg.isolation = from;
    std::string why = force_isolation(cfg, HostKind::image);
    EXPECT_EQ(cfg.isolation, Isolation::user);
    EXPECT_EQ(why.empty(), from == Isolation::user);
  }
}

TEST(HostEnv, HostedRunnerRaisesNoneToUserAndKeepsContainers) {
  Config none, container;
  container.isolation = Isolation::container;
  EXPECT_FALSE(force_isolation(none, HostKind::github_hosted).empty());
  EXPECT_EQ(none.isolation, Isolation::user);
  EXPECT_TRUE(force_isolation(container, HostKind::github_hosted).empty());
  EXPECT_EQ(container.isolation, Isolation::container);
  Config plain;
  EXPECT_TRUE(force_isolation(plain, HostKind::plain).empty());
  EXPECT_EQ(plain.isolation, Isolation::none);
}

TEST(HostEnv, MissingWorkerRefusalsSayHowToGetIt) {
  EXPECT_EQ(missing_worker_refusal(HostKind::github_hosted),
            "can't run as the awaywork user on this GitHub-hosted runner: run awaywork through "
            "its action, which creates it");
  EXPECT_EQ(missing_worker_refusal(HostKind::image),
            "can't run as the awaywork user in this image: build it from awaywork's Dockerfile, "
            "which creates it");
  EXPECT_EQ(missing_worker_refusal(HostKind::plain), "");
}

}  // namespace
}  // namespace aw
