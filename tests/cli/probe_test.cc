// `awaywork probe`: the leak suite run inside the configured isolation as an agent would be.
// Default config (sandbox required, network none): every probe is ok. The positive control,
// sandbox off: the same probes report leaks, so the suite can see them.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <set>

#include "../unit/unit_fixture.h"
#include "cli/cmd_probe.h"
#include "proc/capture.h"

namespace aw::test {
namespace {

class Probe : public UnitTest {
 protected:
  void SetUp() override {
    UnitTest::SetUp();
    if (::geteuid() != 0) {
      const char* ci = std::getenv("CI");
      if (ci && std::string(ci) == "true")
        FAIL() << "needs root (cgroup limits, network namespace)";
      GTEST_SKIP() << "needs root (cgroup limits, network namespace)";
    }
  }
  void write(const std::string& extra) {
    std::ofstream(config) << "state_dir: " << root << "/state\n" << extra;
  }
};

TEST_F(Probe, DefaultSandboxLeaksNothing) {
  write("");
  auto r = awaywork({"probe", "--json"});
  ASSERT_TRUE(r.record.is_object()) << r.out << r.err;
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.record["sandbox"].get<std::string>().rfind("sandboxed: network none", 0), 0u);
  EXPECT_EQ(r.record["ok"], true);
  std::set<std::string> names;
  for (const auto& p : r.record["probes"]) {
    names.insert(p["name"].get<std::string>());
    EXPECT_TRUE(p["ok"].get<bool>()) << p.dump();
  }
  // The suite really ran: the kinds of probe a sandbox must answer are all there.
  // write.state, write.runs, write.run_folder: the state folder (here under /tmp, so made in the
  // sandbox's private /tmp) and the folders down to the unit's own are read-only.
  for (const char* n :
       {"write.etc", "net.host_loopback", "proc.owner_processes", "ptrace", "caps.none",
        "limits.pids", "limits.memory", "write.state", "write.runs", "write.run_folder"})
    EXPECT_TRUE(names.count(n)) << n << " missing from " << r.out;
  // The config file named by --config is one of the hidden paths probed.
  EXPECT_TRUE(names.count("hidden:" + config)) << r.out;
}

TEST_F(Probe, SandboxOffReportsLeaks) {
  write("sandbox: {mode: off}\n");
  auto r = awaywork({"probe", "--json"});
  ASSERT_TRUE(r.record.is_object()) << r.out << r.err;
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.record["ok"], false);
  EXPECT_EQ(r.record["sandbox"], "unsandboxed: sandbox mode off");
  std::set<std::string> leaked;
  for (const auto& p : r.record["probes"])
    if (!p["ok"].get<bool>()) leaked.insert(p["name"].get<std::string>());
  for (const char* n : {"write.etc", "net.host_loopback", "proc.owner_processes", "keyring.owner",
                        "write.state", "write.runs", "write.run_folder"})
    EXPECT_TRUE(leaked.count(n)) << n << " should leak without the sandbox: " << r.out;
  EXPECT_TRUE(leaked.count("hidden:" + config)) << r.out;
}

TEST_F(Probe, TextOutputHasOneLinePerProbeAndTheSandboxNote) {
  write("");
  auto r = awaywork({"probe"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.rfind("isolation none, sandboxed: network none", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("\nok   write.etc\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("LEAK"), std::string::npos) << r.out;
}

// An owner who cannot make cgroups (here: nobody) cannot have the default sandbox's limits:
// `required` refuses, naming the feature and its fix; `preferred` runs unsandboxed and says so.
TEST_F(Probe, PolicyRequiredRefusesAndPreferredRecordsWhatIsMissing) {
  ::chmod(root.c_str(), 0755);
  ASSERT_EQ(::mkdir((root + "/state").c_str(), 0700), 0);
  ASSERT_EQ(::chown((root + "/state").c_str(), 65534, 65534), 0);
  auto as_nobody = [&](const std::string& extra) {
    write(extra);
    ::chmod(config.c_str(), 0644);
    CaptureSpec spec;
    spec.argv = {"setpriv",  "--reuid=65534", "--regid=65534", "--clear-groups", awaywork_binary(),
                 "--config", config,          "probe",         "--json"};
    spec.env = {"PATH=/usr/bin:/bin", "HOME=" + root};
    auto r = capture(spec);
    EXPECT_TRUE(r) << (r ? "" : r.error().message);
    return r ? *r : Captured{};
  };
  auto required = as_nobody("");
  EXPECT_EQ(required.exit_code, 1);
  EXPECT_NE(required.err.find("missing cgroup limits"), std::string::npos) << required.err;
  EXPECT_NE(required.err.find("fix: "), std::string::npos) << required.err;
  EXPECT_NE(required.err.find("sandbox: required refuses"), std::string::npos) << required.err;
  auto preferred = as_nobody("sandbox: {mode: preferred}\n");
  auto j = nlohmann::json::parse(preferred.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << preferred.out << preferred.err;
  std::string note = j["sandbox"];
  EXPECT_EQ(note.rfind("unsandboxed: the sandbox cannot be built here: missing cgroup limits", 0),
            0u)
      << note;
}

// Issue 38, item 2: the probes' answer comes from inside the isolation; a field of the wrong type
// is an error naming it (exit 1, said on stderr), not a type_error out of `awaywork probe`. The
// reading itself is isolate/probe's (tests/isolate/probe_report_test.cc); this is what the command
// prints of it. No root needed.
TEST(ProbeReport, AWronglyTypedProbeFieldIsAnErrorNamingIt) {
  IsolatedResult r;
  r.sandbox_note = "sandboxed: network none";
  r.out = R"([{"name": "a", "ok": true}, {"name": "b", "ok": "yes", "detail": "x"}])";
  GlobalOptions g;
  ::testing::internal::CaptureStderr();
  int rc = render_probe(g, {{}, read_probe_report("isolation none", {}, r)});
  std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, kExitFailed);
  EXPECT_NE(
      err.find(R"(the inside's answer: field "probes[1].ok": expected a boolean, got string)"),
      std::string::npos)
      << err;
  r.out = R"([{"name": "a", "ok": true}, {"name": "b", "ok": false, "detail": "read it"}])";
  ::testing::internal::CaptureStdout();
  rc = render_probe(g, {{}, read_probe_report("isolation none", {}, r)});
  std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(rc, kExitFailed);  // one leak
  EXPECT_NE(out.find("isolation none, sandboxed: network none\nok   a\nLEAK b: read it\n"
                     "2 probe(s), 1 leak(s)"),
            std::string::npos)
      << out;
  // The JSON form: the header's fields, then what the run found.
  g.json = true;
  ::testing::internal::CaptureStdout();
  rc = render_probe(g, {{}, read_probe_report("isolation none", {{"isolation", "none"}}, r)});
  auto doc = nlohmann::json::parse(::testing::internal::GetCapturedStdout());
  EXPECT_EQ(rc, kExitFailed);
  EXPECT_EQ(doc["isolation"], "none");
  EXPECT_EQ(doc["leaks"], 1);
  EXPECT_EQ(doc["ok"], false);
  EXPECT_EQ(doc["probes"].size(), 2u);
  // What the isolation let through comes first, on stderr, whatever the report.
  g.json = false;
  ::testing::internal::CaptureStderr();
  ::testing::internal::CaptureStdout();
  rc = render_probe(g, {{"the home is open"}, tl::make_unexpected(Error{"no worker"})});
  (void)::testing::internal::GetCapturedStdout();
  err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, kExitFailed);
  EXPECT_EQ(err,
            "awaywork probe: doctor: the home is open\n  (run refuses isolation user until fixed)\n"
            "awaywork probe: no worker\n");
}

// The report's header, note and details name paths, users and what the checks found, which may be
// any bytes: `awaywork probe --json` writes a byte that is not UTF-8 as U+FFFD, where nlohmann's
// dump() threw type_error 316 and the command ended with no report. No root needed.
TEST(ProbeReport, AJsonReportWithInvalidUtf8IsWrittenNotThrown) {
  IsolatedResult r;
  r.sandbox_note = "sandboxed: network none, clone /tmp/c\xff";
  r.out = R"([{"name": "a", "ok": true}])";
  nlohmann::json header = {{"worker", "aw\xfe-1"}};
  auto rep = read_probe_report("isolation user", header, r, [](nlohmann::json& j) {
    j.push_back({{"name", "left"}, {"ok", false}, {"detail", "/tmp/\xff"}});
  });
  ASSERT_TRUE(rep) << rep.error().message;
  GlobalOptions g;
  g.json = true;
  int rc = kExitDone;
  ::testing::internal::CaptureStdout();
  EXPECT_NO_THROW(rc = render_probe(g, {{}, std::move(rep)}));
  std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(rc, kExitFailed);  // the one leak
  auto doc = nlohmann::json::parse(out, nullptr, false);
  ASSERT_TRUE(doc.is_object()) << out;
  EXPECT_EQ(doc["worker"], "aw\xEF\xBF\xBD-1");
  EXPECT_EQ(doc["sandbox"], "sandboxed: network none, clone /tmp/c\xEF\xBF\xBD");
  ASSERT_EQ(doc["probes"].size(), 2u);
  EXPECT_EQ(doc["probes"][1]["detail"], "/tmp/\xEF\xBF\xBD");
}

}  // namespace
}  // namespace aw::test
