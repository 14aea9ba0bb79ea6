// What the leak suite says and how its answer is read: the suite's own JSON form, the report
// awaywork reads field by field from the inside's answer, the inside half's own errors, and the
// worker half's answer. No root needed.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "harness.h"
#include "isolate/probe/probe_report.h"
#include "isolate/probe/probe_user.h"
#include "isolate/probe/probes.h"
#include "isolate/user/probes.h"

namespace aw {
namespace {

TEST(IsolateProbe, JsonOutputIsOneArrayWithNameOkAndDetail) {
  ProbeTargets t;
  t.syscalls = false;
  t.secrets = {{"hidden.none", "/nonexistent/aw"}};
  std::ostringstream out;
  EXPECT_EQ(run_probes(t, true, out), 0);
  EXPECT_EQ(out.str(),
            "[{\"name\":\"hidden.none\",\"ok\":true,\"detail\":\"No such file or directory\"}]\n");
}

// Issue 38, item 2: the probes' answer comes from inside the isolation, so it is read field by
// field: a field of the wrong type is an Error naming it, never a throw; a run that failed or an
// inside that did not answer is an Error too. No root needed.
TEST(ProbeReport, TheInsidesAnswerIsReadFieldByFieldAndAWrongTypeIsAnErrorNamingIt) {
  IsolatedResult r;
  r.sandbox_note = "sandboxed: network none";
  r.out = R"([{"name": "a", "ok": true}, {"name": "b", "ok": "yes", "detail": "x"}])";
  auto rep = read_probe_report("isolation none", {}, r);
  ASSERT_FALSE(rep);
  EXPECT_NE(rep.error().message.find(
                R"(the inside's answer: field "probes[1].ok": expected a boolean, got string)"),
            std::string::npos)
      << rep.error().message;
  r.out = R"([{"name": "a", "ok": true}, 7])";
  rep = read_probe_report("isolation none", {}, r);
  ASSERT_FALSE(rep);
  EXPECT_NE(rep.error().message.find(R"(field "probes[1]": expected an object, got number)"),
            std::string::npos)
      << rep.error().message;
  r.out = "not json";
  rep = read_probe_report("isolation none", {}, r);
  ASSERT_FALSE(rep);
  EXPECT_NE(rep.error().message.find("the inside did not answer"), std::string::npos);
  EXPECT_FALSE(read_probe_report("isolation none", {}, tl::make_unexpected(Error{"refused"})));
  r.out = R"([{"name": "a", "ok": true}, {"name": "b", "ok": false, "detail": "read it"}])";
  rep = read_probe_report("isolation none", {{"isolation", "none"}}, r, [](nlohmann::json& j) {
    j.push_back({{"name", "c"}, {"ok", false}, {"detail", "left"}});
  });
  ASSERT_TRUE(rep) << rep.error().message;
  EXPECT_EQ(rep->leaks, 2);
  ASSERT_EQ(rep->lines.size(), 3u);
  EXPECT_EQ(rep->lines[1].detail, "read it");
  EXPECT_EQ(rep->lines[2].name, "c");
  EXPECT_EQ(rep->sandbox_note, "sandboxed: network none");
  EXPECT_EQ(rep->header["isolation"], "none");
}

// The inside half's own errors (one function for `awaywork __probe-inside` and aw_probe_inside):
// exit 2 naming the caller, nothing on stdout. No root needed.
TEST(ProbeInside, AnUnreadableTargetsFileIsExit2NamingTheCaller) {
  std::ostringstream out, err;
  EXPECT_EQ(probe_inside("awaywork __probe-inside", true, "/nonexistent/probe-targets", out, err),
            2);
  EXPECT_EQ(err.str().rfind("awaywork __probe-inside: ", 0), 0u) << err.str();
  EXPECT_EQ(out.str(), "");
}

// The worker half (`awaywork __probe-worker`) answers with what each probe found, the paths its
// targets name included, which may be any bytes: the answer writes a byte that is not UTF-8 as
// U+FFFD, where nlohmann's dump() threw type_error 316 out of the helper and the probe lost its
// answer. No root needed: nothing named exists, so each such probe says why, with the path.
TEST(ProbeWorker, AnAnswerWithInvalidUtf8IsWrittenNotThrown) {
  test::TempDir d;
  WorkerProbeTargets t;
  t.env_file = "/nonexistent/aw-\xff";
  t.gh_hosts = "/nonexistent/aw-\xfe";
  t.owner_home = "/nonexistent/aw-home";
  t.ssh_glob = "/nonexistent/aw-ssh-*";
  t.sleep_seconds = "0";  // the detached sleep the probe leaves ends at once
  ASSERT_TRUE(write_file(d.path + "/targets", format_worker_targets(t), 0600));
  std::string a0 = "awaywork", a1 = "__probe-worker", a2 = d.path + "/targets";
  char* argv[] = {a0.data(), a1.data(), a2.data(), nullptr};
  std::optional<int> rc;
  ::testing::internal::CaptureStdout();
  EXPECT_NO_THROW(rc = probe_worker_main(3, argv));
  std::string out = ::testing::internal::GetCapturedStdout();
  ASSERT_TRUE(rc.has_value());
  auto answer = nlohmann::json::parse(out, nullptr, false);
  ASSERT_TRUE(answer.is_array()) << out;
  std::map<std::string, nlohmann::json> by_name;
  for (const auto& e : answer) by_name[e.value("name", "")] = e;
  ASSERT_TRUE(by_name.count("env-file")) << out;
  EXPECT_EQ(by_name["env-file"]["ok"], true);
  EXPECT_EQ(
      by_name["env-file"]["detail"].get<std::string>().rfind("/nonexistent/aw-\xEF\xBF\xBD: ", 0),
      0u)
      << out;
  ASSERT_TRUE(by_name.count("gh-hosts")) << out;
  EXPECT_EQ(
      by_name["gh-hosts"]["detail"].get<std::string>().rfind("/nonexistent/aw-\xEF\xBF\xBD: ", 0),
      0u)
      << out;
}

}  // namespace
}  // namespace aw
