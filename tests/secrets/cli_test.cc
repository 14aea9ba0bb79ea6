// `awaywork secret`: the real binary, a private config folder, the encrypted-file backend.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "helpers.h"
#include "secrets/store.h"

namespace aw {
namespace {

constexpr const char* kToken = "ghp_FAKEz9y8x7w6v5u4t3s2r1q0p9o8n7m6l5k4j3";

class SecretCli : public ::testing::Test {
 protected:
  test::Ran aw(std::vector<std::string> args, const std::string& input = "") {
    args.insert(args.begin(), AW_BINARY_DIR "/src/cli/awaywork");
    return test::run(args, input, tmp.path,
                     {{"HOME", tmp.path},
                      {"XDG_CONFIG_HOME", tmp.path + "/cfg"},
                      {"DBUS_SESSION_BUS_ADDRESS", std::nullopt},
                      {"AWAYWORK_SECRET_BACKEND", "file"},
                      {"AWAYWORK_SECRETS_PASSPHRASE", std::nullopt}});
  }
  std::string dir() const { return tmp.path + "/cfg/awaywork/secrets"; }
  Result<std::string> stored(const std::string& name) {
    test::EnvGuard env;
    env.set("AWAYWORK_SECRET_BACKEND", "file");
    env.set("AWAYWORK_SECRETS_PASSPHRASE", nullptr);
    AW_TRY(auto s, open_secret_store({dir()}));
    return s->get(name);
  }
  test::TempDir tmp;
};

TEST_F(SecretCli, SetFromStdinThenListShowsNameAndBackendNeverTheValue) {
  auto set = aw({"secret", "set", "GH_TOKEN"}, std::string(kToken) + "\n");
  ASSERT_EQ(set.code, 0) << set.err;
  EXPECT_EQ((set.out + set.err).find(kToken), std::string::npos);
  EXPECT_EQ(stored("GH_TOKEN").value_or(""), kToken) << "one trailing newline is stripped";

  auto list = aw({"secret", "list"});
  ASSERT_EQ(list.code, 0) << list.err;
  EXPECT_NE(list.out.find("GH_TOKEN"), std::string::npos);
  EXPECT_NE(list.out.find("encrypted-file (" + dir() + "/secrets.enc)"), std::string::npos)
      << list.out;
  EXPECT_EQ((list.out + list.err).find(kToken), std::string::npos);

  auto json = aw({"secret", "list", "--json"});
  ASSERT_EQ(json.code, 0) << json.err;
  auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["names"], nlohmann::json::array({"GH_TOKEN"}));
  EXPECT_EQ(j["backend"].get<std::string>().rfind("encrypted-file", 0), 0u);
  EXPECT_EQ(json.out.find(kToken), std::string::npos);
}

TEST_F(SecretCli, OnlyOneTrailingNewlineIsStripped) {
  ASSERT_EQ(aw({"secret", "set", "TWO"}, "value\n\n").code, 0);
  EXPECT_EQ(stored("TWO").value_or(""), "value\n");
  ASSERT_EQ(aw({"secret", "set", "NONE"}, "value").code, 0);
  EXPECT_EQ(stored("NONE").value_or(""), "value");
}

TEST_F(SecretCli, ValueGivenAsAnArgumentIsRefusedAndNotEchoed) {
  for (auto args : std::vector<std::vector<std::string>>{
           {"secret", "set", "GH_TOKEN", kToken},
           {"secret", "set", "GH_TOKEN", std::string("--value=") + kToken}}) {
    auto r = aw(args, "ignored-stdin\n");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("never from the command line"), std::string::npos) << r.err;
    EXPECT_EQ((r.out + r.err).find(kToken), std::string::npos) << r.err;
  }
  EXPECT_EQ(test::mode_of(dir() + "/secrets.enc"), 0) << "nothing may be stored";
}

TEST_F(SecretCli, NameWithAnEqualsSignIsRefusedWithoutEchoingIt) {
  auto r = aw({"secret", "set", std::string("GH_TOKEN=") + kToken});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ((r.out + r.err).find(kToken), std::string::npos) << r.err;
}

TEST_F(SecretCli, EmptyStdinIsRefused) {
  auto r = aw({"secret", "set", "GH_TOKEN"}, "\n");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("empty"), std::string::npos) << r.err;
}

TEST_F(SecretCli, RmRemovesAndSaysWhenAbsent) {
  ASSERT_EQ(aw({"secret", "set", "GH_TOKEN"}, kToken).code, 0);
  ASSERT_EQ(aw({"secret", "set", "KEEP"}, "sk-FAKE-keep").code, 0);
  auto rm = aw({"secret", "rm", "GH_TOKEN"});
  EXPECT_EQ(rm.code, 0) << rm.err;
  auto list = aw({"secret", "list"});
  EXPECT_EQ(list.out.find("GH_TOKEN"), std::string::npos);
  EXPECT_NE(list.out.find("KEEP"), std::string::npos);
  auto again = aw({"secret", "rm", "GH_TOKEN"});
  EXPECT_EQ(again.code, 1);
  EXPECT_NE(again.err.find("no secret named GH_TOKEN"), std::string::npos) << again.err;
}

}  // namespace
}  // namespace aw
