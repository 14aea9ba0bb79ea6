// The engine as doctor sees it: which client answers, which images are present, and removal.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include "base/fs.h"
#include "fixture.h"
#include "isolate/container/doctor.h"

namespace aw {
namespace {

using test::kImage;

TEST(ContainerEngine, FindsTheEngineThatAnswersWithItsVersion) {
  AW_NEED_ENGINE(e);
  EXPECT_FALSE(e.version.empty());
  EXPECT_EQ(e.client[0], '/');
  auto again = find_engine(e.client);
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(again->version, e.version);
}

TEST(ContainerEngine, RefusesAnEngineItDoesNotKnow) {
  auto e = find_engine("lxc");
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().message.find("docker or podman"), std::string::npos) << e.error().message;
}

TEST(ContainerEngine, ClientEnvironmentCarriesNoSecretOfTheOwner) {
  AW_NEED_ENGINE(e);
  for (const auto& kv : e.client_env) {
    auto name = kv.substr(0, kv.find('='));
    EXPECT_TRUE(name == "PATH" || name == "HOME" || name.rfind("DOCKER_", 0) == 0 ||
                name == "CONTAINER_HOST" || name == "XDG_RUNTIME_DIR")
        << kv;
  }
}

TEST(ContainerEngine, TheTestImageIsPresentAndAMissingOneIsSaidSo) {
  AW_NEED_ENGINE(e);
  EXPECT_TRUE(image_present(e, kImage));
  auto missing = image_present(e, "awaywork-absent:never");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("not present"), std::string::npos);
}

TEST(ContainerEngine, PullingWithoutARegistryFailsWithAClearMessage) {
  AW_NEED_ENGINE(e);
  auto pulled = pull_image(e, "awaywork-absent/nothing:never", std::chrono::seconds(60));
  ASSERT_FALSE(pulled);
  EXPECT_NE(pulled.error().message.find("build or load the image locally"), std::string::npos)
      << pulled.error().message;
}

TEST(ContainerEngine, FindsAProgramInsideTheImageAndSaysWhenOneIsMissing) {
  AW_NEED_ENGINE(e);
  auto git = program_in_image(e, kImage, "git");
  ASSERT_TRUE(git) << git.error().message;
  EXPECT_EQ(*git, "/usr/bin/git");
  auto claude = program_in_image(e, kImage, "claude");
  ASSERT_FALSE(claude);
  EXPECT_NE(claude.error().message.find("claude is not found in image"), std::string::npos);
}

TEST(ContainerEngine, RemovingAContainerThatDoesNotExistSucceeds) {
  AW_NEED_ENGINE(e);
  EXPECT_TRUE(remove_container(e, test::unique_name("never")));
}

TEST(ContainerEngine, AnEngineThatDoesNotAnswerIsAnErrorWithinTheDeadline) {
  AW_NEED_ENGINE(e);
  test::Scratch s;
  // A client that hangs, as one talking to a wedged daemon does.
  Engine hung = e;
  hung.client = s.root + "/" + to_string(e.kind);
  ASSERT_TRUE(write_file(hung.client, "#!/bin/sh\nexec sleep 600\n", 0755));
  auto gone = remove_container(hung, "anything", std::chrono::seconds(2));
  ASSERT_FALSE(gone);
  EXPECT_NE(gone.error().message.find("did not answer within"), std::string::npos)
      << gone.error().message;
}

TEST(ContainerEngine, AnEngineWithNoDaemonBehindItIsAnErrorNotAnEmptyAnswer) {
  AW_NEED_ENGINE(e);
  if (e.kind != EngineKind::docker) GTEST_SKIP() << "only docker has a daemon to be missing";
  Engine dead = e;
  dead.client_env.push_back("DOCKER_HOST=unix:///nonexistent/awaywork.sock");
  EXPECT_FALSE(remove_container(dead, "anything", std::chrono::seconds(3)));
  EXPECT_FALSE(image_present(dead, test::kImage));
}

TEST(ContainerEngine, FittingUlimitsStayUnderOurHardLimits) {
  auto u = fitting_ulimits();
  ASSERT_EQ(u.size(), 2u);
  rlimit nofile{}, nproc{};
  ::getrlimit(RLIMIT_NOFILE, &nofile);
  ::getrlimit(RLIMIT_NPROC, &nproc);
  auto hard = [](const std::string& s) { return std::stoull(s.substr(s.find(':') + 1)); };
  if (nofile.rlim_max != RLIM_INFINITY) {
    EXPECT_LE(hard(u[0]), nofile.rlim_max);
  }
  if (nproc.rlim_max != RLIM_INFINITY) {
    EXPECT_LE(hard(u[1]), nproc.rlim_max);
  }
  EXPECT_LE(hard(u[1]), 32768u);
}

std::string text_of(const std::vector<ContainerCheck>& v) {
  std::string s;
  for (const auto& c : v)
    s += fmt::format("[{}] {} | {}\n", static_cast<int>(c.level), c.what, c.fix);
  return s;
}

TEST(ContainerDoctor, AllGreenForThePresentImageAndAProgramInIt) {
  AW_NEED_ENGINE(e);
  auto checks = check_container_setup({e.client, {kImage}, {"git"}, 1000});
  for (const auto& c : checks) EXPECT_NE(c.level, ContainerCheck::failure) << text_of(checks);
  EXPECT_NE(text_of(checks).find("git is in image"), std::string::npos) << text_of(checks);
}

TEST(ContainerDoctor, AllowlistFindsTheStaticBridgeAndTheSeccompProfileIsTightened) {
  AW_NEED_ENGINE(e);
  auto checks = check_container_setup({e.client, {kImage}, {}, 1000, true});
  for (const auto& c : checks) EXPECT_NE(c.level, ContainerCheck::failure) << text_of(checks);
  auto text = text_of(checks);
  EXPECT_NE(text.find("egress bridge for network allowlist: /"), std::string::npos) << text;
  EXPECT_NE(text.find("seccomp profile: /usr/share/containers/seccomp.json tightened"),
            std::string::npos)
      << text;
}

TEST(ContainerDoctor, SaysPlainlyThatAMissingImageCannotBePulledAndHowToFixIt) {
  AW_NEED_ENGINE(e);
  auto checks = check_container_setup({e.client, {"awaywork-absent:never"}, {"git"}, 1000});
  auto text = text_of(checks);
  EXPECT_NE(text.find("is not present locally and could not be pulled"), std::string::npos) << text;
  EXPECT_NE(text.find(" load -i FILE.tar"), std::string::npos) << text;
}

TEST(ContainerDoctor, NamesAnAgentMissingFromTheImage) {
  AW_NEED_ENGINE(e);
  auto checks = check_container_setup({e.client, {kImage}, {"codex"}, 1000});
  auto text = text_of(checks);
  EXPECT_NE(text.find("codex is not found in image"), std::string::npos) << text;
}

TEST(ContainerDoctor, WarnsWhenContainersWouldRunAsRoot) {
  AW_NEED_ENGINE(e);
  auto text = text_of(check_container_setup({e.client, {kImage}, {}, 0}));
  EXPECT_NE(text.find("containers run as uid 0"), std::string::npos) << text;
}

TEST(ContainerDoctor, AnEngineThatDoesNotAnswerIsAFailureWithTheFix) {
  auto text = text_of(check_container_setup({"/nonexistent/docker", {kImage}, {}, 1000}));
  EXPECT_NE(text.find("scripts/engine-up"), std::string::npos) << text;
}

}  // namespace
}  // namespace aw
