// What the leak suite says and how its answer is read: the suite's own JSON form, the report
// awaywork reads field by field from the inside's answer, and the inside half's own errors. No
// root needed.
#include <gtest/gtest.h>

#include <sstream>

#include "isolate/probe/probe_report.h"
#include "isolate/probe/probes.h"

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

}  // namespace
}  // namespace aw
