// The encrypted-file backend with real libsodium: round trips with a key file and a passphrase,
// file modes, no plaintext on disk, links not followed, bad modes and keys refused with the fix.
#include <gtest/gtest.h>

#include "helpers.h"
#include "secrets/injected.h"
#include "secrets/store.h"

namespace aw {
namespace {

using test::EnvGuard;
using test::mode_of;
using test::slurp;
using test::TempDir;

constexpr const char* kToken = "ghp_FAKEa1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7";
constexpr const char* kOther = "sk-ant-FAKE-api03-0123456789abcdefABCDEF";

class FileStore : public ::testing::Test {
 protected:
  void SetUp() override {
    env.set("AWAYWORK_SECRET_BACKEND", "file");
    env.set("AWAYWORK_SECRETS_PASSPHRASE", nullptr);
  }
  std::unique_ptr<SecretStore> open() {
    auto s = open_secret_store({dir()});
    EXPECT_TRUE(s) << s.error().message;
    return s ? std::move(*s) : nullptr;
  }
  std::string dir() const { return tmp.path + "/secrets"; }
  std::string store_file() const { return dir() + "/secrets.enc"; }
  std::string key_file() const { return dir() + "/key"; }
  EnvGuard env;
  TempDir tmp;
};

TEST_F(FileStore, RoundTripWithRandomKeyFileSurvivesReopening) {
  auto s = open();
  EXPECT_EQ(s->backend(), "encrypted-file (" + store_file() + ")");
  ASSERT_TRUE(s->set("GH_TOKEN", kToken));
  ASSERT_TRUE(s->set("ANTHROPIC_API_KEY", kOther));
  auto again = open();
  EXPECT_EQ(again->get("GH_TOKEN").value_or(""), kToken);
  EXPECT_EQ(again->get("ANTHROPIC_API_KEY").value_or(""), kOther);
  EXPECT_EQ(again->names().value_or(std::vector<std::string>{}),
            (std::vector<std::string>{"ANTHROPIC_API_KEY", "GH_TOKEN"}));
  ASSERT_TRUE(again->remove("GH_TOKEN"));
  auto gone = open()->get("GH_TOKEN");
  ASSERT_FALSE(gone);
  EXPECT_NE(gone.error().message.find("no secret named GH_TOKEN"), std::string::npos);
  EXPECT_FALSE(again->remove("GH_TOKEN"));
  EXPECT_EQ(open()->get("ANTHROPIC_API_KEY").value_or(""), kOther);
}

TEST_F(FileStore, ValueWithNewlinesAndBinaryBytesRoundTrips) {
  std::string value = std::string("line1\nline2 \x01\xff\n", 15);
  ASSERT_TRUE(open()->set("MULTI", value));
  EXPECT_EQ(open()->get("MULTI").value_or(""), value);
}

TEST_F(FileStore, StoreAndKeyAre0600AndTheValueIsNotInPlaintext) {
  ASSERT_TRUE(open()->set("GH_TOKEN", kToken));
  EXPECT_EQ(mode_of(store_file()), 0600);
  EXPECT_EQ(mode_of(key_file()), 0600);
  EXPECT_EQ(mode_of(dir()), 0700);
  std::string bytes = slurp(store_file());
  ASSERT_FALSE(bytes.empty());
  EXPECT_EQ(bytes.find(kToken), std::string::npos);
  EXPECT_EQ(bytes.find("FAKEa1b2c3"), std::string::npos);
  EXPECT_EQ(bytes.find("GH_TOKEN"), std::string::npos);  // names are sealed too
  EXPECT_EQ(slurp(key_file()).find(kToken), std::string::npos);
}

TEST_F(FileStore, EveryWriteUsesAFreshNonce) {
  auto s = open();
  ASSERT_TRUE(s->set("GH_TOKEN", kToken));
  std::string first = slurp(store_file());
  ASSERT_TRUE(s->set("GH_TOKEN", kToken));
  EXPECT_NE(slurp(store_file()), first);
}

TEST_F(FileStore, PassphraseRoundTripNeedsNoKeyFile) {
  env.set("AWAYWORK_SECRETS_PASSPHRASE", "correct horse battery staple");
  ASSERT_TRUE(open()->set("GH_TOKEN", kToken));
  EXPECT_EQ(open()->get("GH_TOKEN").value_or(""), kToken);
  EXPECT_EQ(mode_of(key_file()), 0) << "no key file in passphrase mode";
  EXPECT_EQ(mode_of(store_file()), 0600);
  EXPECT_EQ(slurp(store_file()).find(kToken), std::string::npos);
}

TEST_F(FileStore, WrongPassphraseIsAClearErrorAndLosesNothing) {
  env.set("AWAYWORK_SECRETS_PASSPHRASE", "correct horse battery staple");
  ASSERT_TRUE(open()->set("GH_TOKEN", kToken));
  std::string before = slurp(store_file());

  env.set("AWAYWORK_SECRETS_PASSPHRASE", "wrong horse");
  auto wrong = open();
  auto got = wrong->get("GH_TOKEN");
  ASSERT_FALSE(got);
  EXPECT_NE(got.error().message.find("AWAYWORK_SECRETS_PASSPHRASE is wrong"), std::string::npos)
      << got.error().message;
  auto set = wrong->set("OTHER", kOther);
  ASSERT_FALSE(set);
  EXPECT_FALSE(wrong->remove("GH_TOKEN"));
  EXPECT_EQ(slurp(store_file()), before);

  env.set("AWAYWORK_SECRETS_PASSPHRASE", nullptr);
  auto none = open()->get("GH_TOKEN");
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message.find("set AWAYWORK_SECRETS_PASSPHRASE"), std::string::npos);

  env.set("AWAYWORK_SECRETS_PASSPHRASE", "correct horse battery staple");
  EXPECT_EQ(open()->get("GH_TOKEN").value_or(""), kToken);
}

TEST_F(FileStore, KeyFileStoreRefusesAPassphraseInsteadOfIgnoringIt) {
  ASSERT_TRUE(open()->set("GH_TOKEN", kToken));
  env.set("AWAYWORK_SECRETS_PASSPHRASE", "correct horse battery staple");
  auto got = open()->get("GH_TOKEN");
  ASSERT_FALSE(got);
  EXPECT_NE(got.error().message.find("encrypted with the key file"), std::string::npos);
}

TEST_F(FileStore, KeyFileReadableByOthersIsRefusedWithTheChmodFix) {
  ASSERT_TRUE(open()->set("GH_TOKEN", kToken));
  ASSERT_EQ(::chmod(key_file().c_str(), 0644), 0);
  auto s = open_secret_store({dir()});
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("chmod 600 " + key_file()), std::string::npos)
      << s.error().message;
}

TEST_F(FileStore, StoreFileReadableByOthersIsRefusedWithTheChmodFix) {
  ASSERT_TRUE(open()->set("GH_TOKEN", kToken));
  ASSERT_EQ(::chmod(store_file().c_str(), 0640), 0);
  auto s = open_secret_store({dir()});
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("chmod 600 " + store_file()), std::string::npos)
      << s.error().message;
}

TEST_F(FileStore, FolderWritableByOthersIsRefusedWithTheChmodFix) {
  ASSERT_TRUE(open()->set("GH_TOKEN", kToken));
  ASSERT_EQ(::chmod(dir().c_str(), 0777), 0);
  auto s = open_secret_store({dir()});
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("chmod 700 " + dir()), std::string::npos) << s.error().message;
}

TEST_F(FileStore, LinkPlantedAtTheStorePathIsNotFollowed) {
  auto early = open();  // opened before the link appears: its writes must not follow it either
  ASSERT_TRUE(early->set("GH_TOKEN", kToken));
  std::string victim = tmp.path + "/victim";
  test::spit(victim, "victim contents\n", 0600);
  ASSERT_EQ(::unlink(store_file().c_str()), 0);
  ASSERT_EQ(::symlink(victim.c_str(), store_file().c_str()), 0);
  auto s = open_secret_store({dir()});
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("symbolic link"), std::string::npos) << s.error().message;
  EXPECT_FALSE(early->set("OTHER", kOther));
  EXPECT_FALSE(early->get("GH_TOKEN"));
  EXPECT_EQ(slurp(victim), "victim contents\n");
  struct stat st {};
  ASSERT_EQ(::lstat(store_file().c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
}

TEST_F(FileStore, LinkPlantedAtTheKeyPathIsNotFollowedNorCreatedThrough) {
  ASSERT_EQ(::mkdir(dir().c_str(), 0700), 0);
  std::string victim = tmp.path + "/victim-key";  // does not exist: a dangling link
  ASSERT_EQ(::symlink(victim.c_str(), key_file().c_str()), 0);
  auto s = open_secret_store({dir()});
  if (s) {
    EXPECT_FALSE((*s)->set("GH_TOKEN", kToken));
  }
  EXPECT_EQ(mode_of(victim), 0) << "the key was created through the link";
  EXPECT_EQ(mode_of(store_file()), 0);
}

TEST_F(FileStore, ChangedByteIsRefusedNotMisread) {
  ASSERT_TRUE(open()->set("GH_TOKEN", kToken));
  std::string bytes = slurp(store_file());
  bytes[bytes.size() - 5] ^= 1;
  test::spit(store_file(), bytes, 0600);
  auto got = open()->get("GH_TOKEN");
  ASSERT_FALSE(got);
  EXPECT_NE(got.error().message.find("cannot decrypt"), std::string::npos) << got.error().message;
}

TEST_F(FileStore, MissingKeyFileIsAnErrorNotANewEmptyStore) {
  ASSERT_TRUE(open()->set("GH_TOKEN", kToken));
  ASSERT_EQ(::unlink(key_file().c_str()), 0);
  std::string before = slurp(store_file());
  auto s = open();
  EXPECT_FALSE(s->get("GH_TOKEN"));
  EXPECT_FALSE(s->set("OTHER", kOther));
  EXPECT_EQ(slurp(store_file()), before);
}

TEST(SecretNames, AcceptEnvironmentNamesAndNeverEchoARejectedOne) {
  EXPECT_TRUE(check_secret_name("GH_TOKEN"));
  EXPECT_TRUE(check_secret_name("_x9"));
  EXPECT_FALSE(check_secret_name(""));
  EXPECT_FALSE(check_secret_name("9LIVES"));
  EXPECT_FALSE(check_secret_name(std::string(65, 'A')));
  auto bad = check_secret_name(std::string("GH_TOKEN=") + kToken);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message.find("FAKEa1b2"), std::string::npos) << bad.error().message;
  EXPECT_FALSE(check_secret_value(""));
  EXPECT_FALSE(check_secret_value(std::string("a\0b", 3)));
}

TEST(SecretBackendChoice, UnknownForcedBackendIsRefusedAndNoBusMeansTheFile) {
  EnvGuard env;
  TempDir tmp;
  env.set("AWAYWORK_SECRET_BACKEND", "keychain");
  auto s = open_secret_store({tmp.path + "/s"});
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("file or secret-service"), std::string::npos);
  env.set("AWAYWORK_SECRET_BACKEND", nullptr);
  env.set("DBUS_SESSION_BUS_ADDRESS", nullptr);
  env.set("AWAYWORK_SECRETS_PASSPHRASE", nullptr);
  auto chosen = open_secret_store({tmp.path + "/s"});
  ASSERT_TRUE(chosen) << chosen.error().message;
  EXPECT_EQ((*chosen)->backend().rfind("encrypted-file (", 0), 0u);
  env.set("AWAYWORK_SECRET_BACKEND", "secret-service");
  auto forced = open_secret_store({tmp.path + "/s"});
  ASSERT_FALSE(forced);
  EXPECT_NE(forced.error().message.find("DBUS_SESSION_BUS_ADDRESS is not set"), std::string::npos);
}

// Injected secrets (issue 27) are read before any phase; a missing one is a config error at the
// line that binds it, with the command that fixes it, and each found one gets its own placeholder.
TEST_F(FileStore, InjectedSecretsAreReadWithAPlaceholderAndAMissingOneNamesItsLine) {
  auto store = open();
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->set("NPM_TOKEN", kToken));
  Config cfg;
  cfg.file = "/etc/aw/config.yml";
  InjectRule rule;
  rule.host = "npm.example.com";
  cfg.secrets["NPM_TOKEN"] = SecretConfig{"NPM_TOKEN", {rule}, 7};
  auto got = read_injected_secrets(cfg, *store);
  ASSERT_TRUE(got) << got.error().message;
  ASSERT_EQ(got->size(), 1u);
  EXPECT_EQ((*got)[0].name, "NPM_TOKEN");
  EXPECT_EQ((*got)[0].value, kToken);
  const std::string& ph = (*got)[0].placeholder;
  EXPECT_EQ(ph.rfind("awaywork-placeholder-NPM_TOKEN-", 0), 0u) << ph;
  EXPECT_EQ(ph.size(), std::string("awaywork-placeholder-NPM_TOKEN-").size() + 32);
  EXPECT_EQ(ph.find(kToken), std::string::npos);
  auto again = read_injected_secrets(cfg, *store);
  ASSERT_TRUE(again);
  EXPECT_NE((*again)[0].placeholder, ph) << "a placeholder is random per unit";

  cfg.secrets["GIT_PASS"] = SecretConfig{"GIT_PASS", {rule}, 12};
  auto missing = read_injected_secrets(cfg, *store);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message,
            "/etc/aw/config.yml:12: secrets.GIT_PASS: not in the secret store (" +
                store->backend() + "); store it with `awaywork secret set GIT_PASS`");
}

}  // namespace
}  // namespace aw
