// The Secret Service backend against a real gnome-keyring on a private session bus
// (dbus-run-session). The outer test starts the bus and the keyring, unlocks it, and re-runs this
// binary inside the session for the inner test, which does the round trip. The inner test is
// registered only inside the session, so ctest's list and a plain run never see it.
#include <gtest/gtest.h>

#include <cstdlib>

#include "helpers.h"
#include "secrets/store.h"

namespace aw {
namespace {

constexpr const char* kInside = "AW_SECRETS_TEST_INSIDE_SESSION";
constexpr const char* kToken = "glpat-FAKE0123456789abcdefXYZ";

std::string self_exe() {
  char buf[4096];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "";
}

TEST(SecretService, RoundTripUnderGnomeKeyringOnAPrivateSessionBus) {
  for (const char* prog : {"dbus-run-session", "dbus-send", "gnome-keyring-daemon"}) {
    if (!test::on_path(prog)) {
      if (test::ci())
        FAIL() << prog << " is missing (CI=true: no skipping); apt-get install gnome-keyring dbus";
      GTEST_SKIP() << prog << " is missing; apt-get install gnome-keyring dbus";
    }
  }
  test::TempDir tmp;
  std::string run = tmp.path + "/run";
  ASSERT_EQ(::mkdir(run.c_str(), 0700), 0);
  // The keyring daemon forks away: its output goes to a file, or it would hold the pipes open.
  // The daemon claims org.freedesktop.secrets a moment after --unlock returns: wait for the name
  // (up to 20 s; a readiness wait, not a timed assertion).
  std::string script =
      "printf %s fake-keyring-password | gnome-keyring-daemon --unlock --components=secrets "
      ">\"$HOME/keyring.log\" 2>&1 || exit 90\n"
      "i=0; until dbus-send --session --print-reply --dest=org.freedesktop.DBus "
      "/org/freedesktop/DBus "
      "org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets | grep -q 'boolean true'; "
      "do\n"
      "  i=$((i+1)); [ $i -gt 200 ] && { echo 'the keyring never claimed org.freedesktop.secrets' "
      ">&2; exit 91; }\n"
      "  sleep 0.1\n"
      "done\n"
      // The daemon leaves with the bus; stopping it here as well keeps a slow exit from outliving
      // us.
      "pid=$(dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus "
      "org.freedesktop.DBus.GetConnectionUnixProcessID string:org.freedesktop.secrets | awk "
      "'/uint32/ {print $2}')\n"
      "\"$0\" --gtest_filter=SecretServiceInside.*; rc=$?\n"
      "[ -n \"$pid\" ] && kill \"$pid\" 2>/dev/null\n"
      "exit $rc\n";
  auto r = test::run({"dbus-run-session", "--", "sh", "-c", script, self_exe()}, "", tmp.path,
                     {{"HOME", tmp.path},
                      {"XDG_RUNTIME_DIR", run},
                      {"XDG_DATA_HOME", tmp.path + "/data"},
                      {"XDG_CONFIG_HOME", tmp.path + "/config"},
                      {"AWAYWORK_SECRET_BACKEND", std::nullopt},
                      {"AWAYWORK_SECRETS_PASSPHRASE", std::nullopt},
                      {kInside, "1"}});
  EXPECT_EQ(r.code, 0) << r.out << r.err << test::slurp(tmp.path + "/keyring.log");
  EXPECT_NE(r.out.find("[  PASSED  ] 1 test"), std::string::npos) << r.out << r.err;
  EXPECT_EQ((r.out + r.err).find(kToken), std::string::npos);
}

void round_trip_inside_the_session() {
  std::string dir = std::string(std::getenv("HOME")) + "/file-store";
  auto s = open_secret_store({dir});  // chosen automatically: the bus answers
  ASSERT_TRUE(s) << s.error().message;
  auto& store = **s;
  auto why = secret_service_answers();
  ASSERT_EQ(store.backend(), "secret-service") << (why ? "" : why.error().message);
  ASSERT_TRUE(store.set("GITLAB_TOKEN", kToken));
  ASSERT_TRUE(store.set("OTHER", "xoxb-FAKE-000"));
  ASSERT_TRUE(store.set("OTHER", "xoxb-FAKE-111"));  // replaces, does not duplicate
  EXPECT_EQ(store.get("GITLAB_TOKEN").value_or(""), kToken);
  EXPECT_EQ(store.get("OTHER").value_or(""), "xoxb-FAKE-111");
  EXPECT_EQ(store.names().value_or(std::vector<std::string>{}),
            (std::vector<std::string>{"GITLAB_TOKEN", "OTHER"}));
  // The CLI chooses the same backend and lists names, never values.
  // Its own scratch folder: the outer test captures our output in HOME.
  std::string scratch = std::string(std::getenv("HOME")) + "/cli";
  ASSERT_EQ(::mkdir(scratch.c_str(), 0700), 0);
  auto list = test::run({AW_BINARY_DIR "/src/cli/awaywork", "secret", "list"}, "", scratch);
  EXPECT_EQ(list.code, 0) << list.err;
  EXPECT_NE(list.out.find("backend: secret-service\nGITLAB_TOKEN\nOTHER\n"), std::string::npos)
      << list.out;
  EXPECT_EQ((list.out + list.err).find(kToken), std::string::npos);
  ASSERT_TRUE(store.remove("GITLAB_TOKEN"));
  auto gone = store.get("GITLAB_TOKEN");
  ASSERT_FALSE(gone);
  EXPECT_NE(gone.error().message.find("no secret named GITLAB_TOKEN"), std::string::npos);
  EXPECT_FALSE(store.remove("GITLAB_TOKEN"));
  EXPECT_EQ(test::mode_of(dir), 0) << "the file backend was used as well";
  // Forcing the file backend still works with a bus present.
  setenv("AWAYWORK_SECRET_BACKEND", "file", 1);
  auto f = open_secret_store({dir});
  ASSERT_TRUE(f) << f.error().message;
  EXPECT_EQ((*f)->backend().rfind("encrypted-file", 0), 0u);
  unsetenv("AWAYWORK_SECRET_BACKEND");
}

class InsideSession : public ::testing::Test {
 public:
  void TestBody() override { round_trip_inside_the_session(); }
};

// Registered before main runs (gtest_main parses the filter afterwards).
const bool kRegistered =
    std::getenv(kInside) &&
    ::testing::RegisterTest("SecretServiceInside", "RoundTrip", nullptr, nullptr, __FILE__,
                            __LINE__, []() -> ::testing::Test* { return new InsideSession; });

}  // namespace
}  // namespace aw
