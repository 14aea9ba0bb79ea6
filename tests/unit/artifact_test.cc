// load_artifact (unit/artifact.h) on folders another job wrote: a wrongly typed field in
// record.json, manifest.json or verdict.json is an Error naming the folder, the file and the
// field, never a throw (one ended `check --from` and `apply --from` in std::terminate, rc 134).
#include "unit/artifact.h"

#include <gtest/gtest.h>
#include <sodium.h>
#include <stdlib.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "base/fs.h"

namespace aw {
namespace {

using nlohmann::json;

std::string sha256_hex(const std::string& bytes) {
  unsigned char h[crypto_hash_sha256_BYTES];
  crypto_hash_sha256(h, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
  std::string out;
  for (unsigned char c : h) out += fmt::format("{:02x}", c);
  return out;
}

class ArtifactLoad : public ::testing::Test {
 protected:
  void SetUp() override {
    char t[] = "/tmp/aw-artifact-XXXXXX";
    ASSERT_NE(mkdtemp(t), nullptr);
    root = t;
    dir = root + "/artifact";
    ASSERT_TRUE(make_dirs(dir, 0700));
  }
  void TearDown() override { std::filesystem::remove_all(root); }

  static UnitRecord unit() {
    UnitRecord u;
    u.id = "20261129-180000-fix-the-typo-0001";
    u.repo = "web";
    u.forge_repo = "octo/web";
    u.issue = 12;
    u.base_ref = "main";
    u.base_commit = std::string(40, 'a');
    u.agent = "claude";
    u.verdict = "accepted";
    PhaseRecord p;
    p.name = "agent";
    p.exit_code = 0;
    u.phases.push_back(p);
    return u;
  }

  // The folder with record.json as given and every file summed in the manifest; `patch` is
  // merged into the (well-formed) manifest after the sums (RFC 7396: null removes a key).
  void write(const json& record, const json& patch = json::object(),
             const json& verdict = {{"accepted", true}, {"paths", json::array()}}) {
    const UnitRecord u = unit();
    std::map<std::string, std::string> files = {{"patch.diff", ""},
                                                {"requests.jsonl", ""},
                                                {"verdict.json", verdict.dump()},
                                                {"record.json", record.dump()}};
    json m = {{"format", kArtifactFormat},    {"unit", u.id},           {"repo", u.repo},
              {"forge_repo", u.forge_repo},   {"issue", u.issue},       {"base_ref", u.base_ref},
              {"base_commit", u.base_commit}, {"files", json::object()}};
    for (const auto& [name, data] : files) {
      ASSERT_TRUE(write_file(dir + "/" + name, data, 0644));
      m["files"][name] = sha256_hex(data);
    }
    m.merge_patch(patch);
    ASSERT_TRUE(write_file(dir + "/manifest.json", m.dump(2), 0644));
  }

  // The error load_artifact answers, after "artifact DIR: ".
  std::string error() {
    auto a = load_artifact(dir);
    if (a) return "(loaded)";
    std::string prefix = "artifact " + dir + ": ";
    const std::string& e = a.error().message;
    return e.rfind(prefix, 0) == 0 ? e.substr(prefix.size()) : e;
  }

  std::string root, dir;
};

TEST_F(ArtifactLoad, AWellFormedArtifactLoads) {
  write(to_json(unit()));
  auto a = load_artifact(dir);
  ASSERT_TRUE(a) << a.error().message;
  EXPECT_EQ(a->record.issue, 12);
  EXPECT_EQ(a->record.phases.at(0).name, "agent");
  EXPECT_TRUE(a->verdict.accepted);
}

TEST_F(ArtifactLoad, AWronglyTypedRecordFieldIsAnErrorNamingTheFileAndTheField) {
  const json good = to_json(unit());
  json bad = good;
  bad["issue"] = "12";
  write(bad);
  EXPECT_EQ(error(), R"(record.json: field "issue": expected an integer, got string)");
  bad = good;
  bad["started_at"] = 5;  // no such field of a record: ignored
  bad["created_at"] = 5;
  write(bad);
  EXPECT_EQ(error(), R"(record.json: field "created_at": expected a string, got number)");
  bad = good;
  bad["phases"][0]["exit_code"] = "0";
  write(bad);
  EXPECT_EQ(error(),
            R"(record.json: field "phases[0].exit_code": expected an integer, got string)");
  bad = good;
  bad["phases"][0]["started_at"] = json::array();
  write(bad);
  EXPECT_EQ(error(), R"(record.json: field "phases[0].started_at": expected a string, got array)");
  bad = good;
  bad["refusals"] = {{"rule", 1}};
  write(bad);
  EXPECT_EQ(error(), R"(record.json: field "refusals": expected an array, got object)");
  write(json::array({good}));
  EXPECT_EQ(error(), "record.json: expected an object, got array");
}

TEST_F(ArtifactLoad, AWronglyTypedManifestFieldIsAnErrorNamingIt) {
  const json good = to_json(unit());
  write(good, {{"issue", "12"}});
  EXPECT_EQ(error(), R"(manifest.json: field "issue": expected an integer, got string)");
  write(good, {{"files", {{"record.json", 5}}}});
  EXPECT_EQ(error(), R"(manifest.json: field "files.record.json": expected a string, got number)");
  write(good, {{"files", json::array()}});
  EXPECT_EQ(error(), R"(manifest.json: field "files": expected an object, got array)");
  write(good, {{"format", 1}});
  EXPECT_EQ(error(), R"(manifest.json: field "format": expected a string, got number)");
  write(good, {{"unit", nullptr}});
  EXPECT_EQ(error(), R"(manifest.json: field "unit" is missing)");
  write(good, {{"issue", 13}});
  EXPECT_EQ(error(), "manifest.json's issue differs from record.json's (13 vs 12)");
}

TEST_F(ArtifactLoad, AWronglyTypedVerdictFieldIsAnErrorNamingIt) {
  const json good = to_json(unit());
  write(good, json::object(), {{"accepted", "yes"}});
  EXPECT_EQ(error(), R"(verdict.json: field "accepted": expected a boolean, got string)");
  write(good, json::object(), {{"accepted", true}, {"paths", json::array({"a.txt", 3})}});
  EXPECT_EQ(error(), R"(verdict.json: field "paths[1]": expected a string, got number)");
}

// `check --from DIR --json` puts the error in JSON: a file name that is not UTF-8 (or holds a
// terminal escape) is shown escaped, and the JSON of the error dumps without a throw.
TEST_F(ArtifactLoad, AnUnexpectedFileIsNamedEscapedAndAsValidUtf8) {
  write(to_json(unit()));
  ASSERT_TRUE(write_file(dir + "/\xff\x1b[2Jrun.sh", "x", 0644));
  auto a = load_artifact(dir);
  ASSERT_FALSE(a);
  const std::string& e = a.error().message;
  EXPECT_NE(e.find("unexpected file '"), std::string::npos) << e;
  EXPECT_NE(e.find("run.sh'"), std::string::npos) << e;
  EXPECT_EQ(e.find('\x1b'), std::string::npos) << e;
  EXPECT_NO_THROW((void)json({{"error", e}}).dump());
}

// The record of the agent job's unit holds text from the agent and the forge (the issue's title,
// the reason, notes), which may hold bytes that are not UTF-8: its artifact is written with
// U+FFFD for them and loads back whole (a strict dump threw there: no artifact at all).
TEST_F(ArtifactLoad, ARecordHoldingBytesThatAreNotUtf8IsExportedWithReplacements) {
  UnitRecord u = unit();
  u.issue_title = "Fix \xff the typo";
  u.notes = {"agent result: \xC3(done"};
  u.run_dir = root + "/run";
  ASSERT_TRUE(make_dirs(u.run_dir, 0700));
  ASSERT_TRUE(write_file(u.run_dir + "/patch.diff", "", 0600));
  ASSERT_TRUE(write_file(u.run_dir + "/verdict.json",
                         json({{"accepted", true}, {"paths", json::array()}}).dump(), 0600));
  std::string out = root + "/exported";
  Status written = Status{};
  ASSERT_NO_THROW(written = export_artifact(u, out));
  ASSERT_TRUE(written) << written.error().message;
  auto a = load_artifact(out);
  ASSERT_TRUE(a) << a.error().message;
  EXPECT_EQ(a->record.issue_title, "Fix \xEF\xBF\xBD the typo");
  ASSERT_EQ(a->record.notes.size(), 1u);
  EXPECT_EQ(a->record.notes[0], "agent result: \xEF\xBF\xBD(done");
  EXPECT_EQ(a->record.id, u.id);
}

}  // namespace
}  // namespace aw
