// The output check inside a unit: nothing it refuses is published, every reason is recorded,
// and every recorded byte is redacted. Also `awaywork check` on files.
#include <gtest/gtest.h>
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <map>

#include "unit_fixture.h"

namespace aw::test {
namespace {

class Checked : public UnitTest {};

// Shaped like a GitHub token, not one: 36 characters of filler.
const std::string kFakeToken = "ghp_" + std::string("Zq7fakeFAKEfake0123456789abcdefABCD");

TEST_F(Checked, WorkflowFileIsRefusedAndNothingPublished) {
  make_repo({{"a.txt", "x\n"}});
  write_config(agent_script("ci", "mkdir -p .github/workflows\necho 'on: push' > "
                                  ".github/workflows/x.yml\necho y > a.txt"));
  auto r = run_unit("touch ci");
  EXPECT_EQ(r.exit_code, 5) << r.err << r.out;
  EXPECT_EQ(r.record["state"], "refused");
  EXPECT_EQ(r.record["verdict"], "refused");
  std::string why = r.record["refusals"].dump();
  EXPECT_NE(why.find("path.protected"), std::string::npos) << why;
  EXPECT_NE(why.find(".github/workflows/x.yml"), std::string::npos) << why;
  EXPECT_EQ(git({"branch", "--list", "awaywork/*"}), "");
}

TEST_F(Checked, WorkflowFileIsPublishedWhenTheRepoUnprotectsGithub) {
  make_repo({{"a.txt", "x\n"}});
  write_config(agent_script("ci", "mkdir -p .github/workflows\necho 'on: push' > "
                                  ".github/workflows/x.yml"),
               "    bounds: {unprotect: [.github]}\n");
  auto r = run_unit("touch ci");
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(r.record["verdict"], "accepted");
  EXPECT_NE(r.record["branch"], "");
}

TEST_F(Checked, RetargetingRequestIsRefusedWithItsLine) {
  make_repo({{"a.txt", "x\n"}});
  write_config(agent_script("req", R"(echo y > a.txt
echo '{"type":"noop","message":"fine"}' >> "$AWAYWORK_OUTPUTS/requests.jsonl"
echo '{"type":"add_comment","body":"hi","issue_number":999}' >> "$AWAYWORK_OUTPUTS/requests.jsonl")"));
  auto r = run_unit("retarget");
  EXPECT_EQ(r.record["state"], "refused") << r.out;
  std::string why = r.record["refusals"].dump();
  EXPECT_NE(why.find("request."), std::string::npos) << why;
  EXPECT_NE(why.find(":2"), std::string::npos) << "line number of the bad request: " << why;
  EXPECT_EQ(git({"branch", "--list", "awaywork/*"}), "");
}

TEST_F(Checked, AcceptedRequestsAreKeptSanitized) {
  make_repo({{"a.txt", "x\n"}});
  write_config(agent_script("req", R"(echo y > a.txt
printf '%s\n' '{"type":"create_pull_request","title":"Fix it @everyone","body":"closes #12"}' \
  >> "$AWAYWORK_OUTPUTS/requests.jsonl")"));
  auto r = run_unit("pr");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(r.record["requests"], 1);
  std::string kept = read(r.record["run_dir"].get<std::string>() + "/requests.json");
  EXPECT_NE(kept.find("create_pull_request"), std::string::npos) << kept;
  // Neutralized as code: GitHub neither notifies nor closes from inside a code span.
  EXPECT_NE(kept.find("`@everyone`"), std::string::npos) << kept;
  EXPECT_NE(kept.find("closes <code>#12</code>"), std::string::npos) << kept;
}

TEST_F(Checked, SecretInThePatchIsRefusedAndRedactedFromTheTranscript) {
  make_repo({{"a.txt", "x\n"}});
  write_config(agent_script("leak", "echo 'token " + kFakeToken + "' > leak.txt\necho 'I used " +
                                        kFakeToken + "'"));
  auto r = run_unit("leak");
  EXPECT_EQ(r.record["state"], "refused") << r.out;
  EXPECT_NE(r.record["refusals"].dump().find("patch.secret"), std::string::npos);
  std::string dir = r.record["run_dir"];
  std::string transcript = read(dir + "/transcript.log");
  EXPECT_NE(transcript.find("I used"), std::string::npos);
  EXPECT_EQ(transcript.find(kFakeToken), std::string::npos) << transcript;
  EXPECT_EQ(r.out.find(kFakeToken), std::string::npos);
  EXPECT_EQ(read(dir + "/verdict.json").find(kFakeToken), std::string::npos);
}

// The owner's check plugin (issue 28), asked after awaywork's own check accepted: the shipped
// examples/plugins/license-check refuses a new source file without an SPDX header, and nothing is
// published; the same unit with the header is published (its positive control).
TEST_F(Checked, ACheckPluginRefusesAfterTheOwnCheckAndNothingIsPublished) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root for the plugin's cgroup limits";
  if (::access("/usr/bin/python3", X_OK) != 0) GTEST_SKIP() << "the example needs python3";
  make_repo({{"a.txt", "x\n"}});
  const std::string plugins = "plugins:\n  run: true\n  lic:\n    kind: check\n    command: [" +
                              std::string(AW_SOURCE_DIR) +
                              "/examples/plugins/license-check/license-check]\n";
  write_config(agent_script("nohdr", "printf 'int x;\\n' > new.c"));
  std::ofstream(config, std::ios::app) << plugins;
  auto approved = awaywork({"plugin", "approve", "lic"});
  ASSERT_EQ(approved.exit_code, 0) << approved.out << approved.err;
  auto r = run_unit("add new.c");
  EXPECT_EQ(r.record["state"], "refused") << r.out << r.err;
  EXPECT_EQ(r.record["verdict"], "refused");
  std::string why = r.record["refusals"].dump();
  EXPECT_NE(why.find("plugin.check new.c:1: plugin lic: adds a source file without an SPDX"),
            std::string::npos)
      << why;
  EXPECT_EQ(git({"branch", "--list", "awaywork/*"}), "");

  write_config(agent_script("hdr", "printf '// SPDX-License-Identifier: MIT\\nint x;\\n' > new.c"));
  std::ofstream(config, std::ios::app) << plugins;
  auto ok = run_unit("add new.c with a header");
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  EXPECT_EQ(ok.record["verdict"], "accepted") << ok.record["refusals"].dump();
  EXPECT_NE(ok.record["branch"], "");
}

// The same check plugin on `apply --from DIR` (the reusable workflow's apply job): an artifact
// made while no plugin was declared, accepted by awaywork's own check, is refused by the apply
// job's license-check and nothing is published; with that plugin disabled by the owner (the
// positive control) the same artifact is published, the note saying the check did not run.
TEST_F(Checked, ACheckPluginRefusesAnArtifactOnApplyFrom) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root for the plugin's cgroup limits";
  if (::access("/usr/bin/python3", X_OK) != 0) GTEST_SKIP() << "the example needs python3";
  make_repo({{"a.txt", "x\n"}});
  write_config(agent_script("nohdr", "printf 'int x;\\n' > new.c"));
  std::string dir = root + "/artifact";
  auto r = run_unit("add new.c", {"--artifact", dir});
  ASSERT_EQ(r.record["verdict"], "accepted") << r.out << r.err;
  ASSERT_TRUE(exists(dir + "/manifest.json")) << r.out << r.err;
  EXPECT_EQ(git({"branch", "--list", "awaywork/*"}), "");  // held: the apply job publishes

  std::ofstream(config, std::ios::app)
      << "plugins:\n  run: true\n  lic:\n    kind: check\n    command: [" +
             std::string(AW_SOURCE_DIR) + "/examples/plugins/license-check/license-check]\n";
  auto approved = awaywork({"plugin", "approve", "lic"});
  ASSERT_EQ(approved.exit_code, 0) << approved.out << approved.err;
  auto apply = awaywork({"apply", "--from", dir});
  EXPECT_EQ(apply.exit_code, 5) << apply.out << apply.err;
  EXPECT_NE(apply.err.find("a check plugin refused it (1 reason); nothing published"),
            std::string::npos)
      << apply.err;
  EXPECT_NE(apply.err.find("plugin lic: adds a source file without an SPDX"), std::string::npos)
      << apply.err;
  EXPECT_EQ(git({"branch", "--list", "awaywork/*"}), "");

  auto off = awaywork({"plugin", "disable", "lic"});
  ASSERT_EQ(off.exit_code, 0) << off.out << off.err;
  auto again = awaywork({"apply", "--from", dir, "--json"});
  EXPECT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_NE(git({"branch", "--list", "awaywork/*"}), "");
  auto shown = awaywork({"show", r.record["id"].get<std::string>(), "--json"});
  EXPECT_NE(shown.out.find("check plugin lic not run: you disabled it"), std::string::npos)
      << shown.out;
}

TEST_F(Checked, CheckCommandGivesTheVerdictOnFiles) {
  make_repo({{"a.txt", "x\n"}});
  std::ofstream(root + "/bounds.yml") << "max_patch_files: 10\n";
  std::ofstream(root + "/ok.patch") << "diff --git a/a.txt b/a.txt\n"
                                       "index 587be6b4c3f93f93c489c0111bba5596147a26cb.."
                                       "975fbec8256d3e8a3797e7a3611380f27c49f4ac 100644\n"
                                       "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-x\n+y\n";
  std::ofstream(root + "/bad.patch") << "diff --git a/.git/config b/.git/config\n"
                                        "new file mode 100644\n"
                                        "index 0000000000000000000000000000000000000000.."
                                        "975fbec8256d3e8a3797e7a3611380f27c49f4ac\n"
                                        "--- /dev/null\n+++ b/.git/config\n@@ -0,0 +1 @@\n+y\n";
  write_config("/bin/true");
  auto ok = awaywork({"check", "--bounds", root + "/bounds.yml", "--patch", root + "/ok.patch",
                      "--json"});
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  EXPECT_EQ(ok.record["accepted"], true) << ok.out;
  auto bad = awaywork({"check", "--bounds", root + "/bounds.yml", "--patch", root + "/bad.patch"});
  EXPECT_EQ(bad.exit_code, 5) << bad.out << bad.err;
  EXPECT_NE(bad.out.find("path.protected"), std::string::npos) << bad.out;
  std::ofstream(root + "/typo.yml") << "max_patch_filez: 10\n";
  auto typo = awaywork({"check", "--bounds", root + "/typo.yml", "--patch", root + "/ok.patch"});
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_NE(typo.err.find("typo.yml:1:1"), std::string::npos) << typo.err;
  EXPECT_NE(typo.err.find("max_patch_files"), std::string::npos) << typo.err;
}

std::string sha256_hex(const std::string& bytes) {
  unsigned char h[crypto_hash_sha256_BYTES];
  crypto_hash_sha256(h, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
  std::string out;
  for (unsigned char c : h) out += fmt::format("{:02x}", c);
  return out;
}

// An artifact whose record.json holds a wrongly typed field (its sums right): `check --from` and
// `apply --from` refuse it naming the file and the field (exit 5), where nlohmann's throw ended
// both in std::terminate (rc 134).
TEST_F(Checked, AnArtifactWithAWronglyTypedRecordFieldIsRefusedNamingIt) {
  write_config("/bin/true");
  std::string dir = root + "/artifact";
  ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
  const std::string id = "20261129-180000-fix-the-typo-0001", base(40, 'a');
  std::map<std::string, std::string> files = {
      {"patch.diff", ""},
      {"requests.jsonl", ""},
      {"verdict.json", R"({"accepted": true, "paths": []})"},
      {"record.json", nlohmann::json{{"id", id},
                                     {"repo", "src"},
                                     {"forge_repo", ""},
                                     {"issue", "12"},
                                     {"base_ref", "main"},
                                     {"base_commit", base},
                                     {"verdict", "accepted"}}
                          .dump()}};
  nlohmann::json m = {{"format", "awaywork-artifact/1"},
                      {"unit", id},
                      {"repo", "src"},
                      {"forge_repo", ""},
                      {"issue", 12},
                      {"base_ref", "main"},
                      {"base_commit", base},
                      {"files", nlohmann::json::object()}};
  for (const auto& [name, data] : files) {
    std::ofstream(dir + "/" + name) << data;
    m["files"][name] = sha256_hex(data);
  }
  std::ofstream(dir + "/manifest.json") << m.dump(2);
  const std::string why = R"(record.json: field "issue": expected an integer, got string)";
  auto check = awaywork({"check", "--from", dir, "--json"});
  EXPECT_EQ(check.exit_code, 5) << check.out << check.err;
  EXPECT_EQ(check.record["accepted"], false) << check.out;
  EXPECT_NE(check.err.find(why), std::string::npos) << check.err;
  auto apply = awaywork({"apply", "--from", dir});
  EXPECT_EQ(apply.exit_code, 5) << apply.out << apply.err;
  EXPECT_NE(apply.err.find(why), std::string::npos) << apply.err;
}

}  // namespace
}  // namespace aw::test
