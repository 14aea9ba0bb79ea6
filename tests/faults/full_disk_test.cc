// The state folder's filesystem full (a small tmpfs; the watchdog's floor off, as if the disk
// filled between two of its looks) while a unit's transcript, patch and record are written: the
// unit fails with an error that says the disk is full, its record says what happened and is not
// left `running`, nothing is published, the database is sound and earlier units' records are
// intact. Needs root for the mount: skips without it, fails under CI=true.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include "../unit/unit_fixture.h"
#include "faults_fixture.h"

namespace aw::test {
namespace {

class FullDisk : public UnitTest {
 protected:
  static std::string notes_of(const nlohmann::json& u) {
    std::string out;
    for (const auto& n : u["notes"]) out += n.get<std::string>() + "\n";
    return out;
  }
};

TEST_F(FullDisk, AUnitThatFillsTheStateDiskFailsSayingSoAndNothingRecordedIsLost) {
  if (!small_state_fs(32)) {
    const char* ci = std::getenv("CI");
    if (ci && std::string(ci) == "true") FAIL() << "needs root to mount a tmpfs state folder";
    GTEST_SKIP() << "needs root to mount a tmpfs state folder";
  }
  make_repo({{"a.txt", "x\n"}});
  // Told to, the agent fills the disk (in its outputs, which are not part of the patch), then
  // prints: the transcript, the patch and the record are all written to a full disk.
  write_config(agent_script("agent", R"(p=$(cat)
echo "$p" >> a.txt
case "$p" in *fill*)
  dd if=/dev/zero of="$AWAYWORK_OUTPUTS/fill" bs=64k 2>/dev/null || true
  seq 1 200000
;; esac)"),
               "    checks: [\"grep -q x a.txt\"]\n", "limits: {disk_floor: off}\n");
  auto first = run_unit("an earlier unit");
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  ASSERT_EQ(first.record["state"], "done");
  std::string first_branch = first.record["branch"];

  auto r = run_unit("fill the disk");
  const auto& u = r.record;
  ASSERT_TRUE(u.is_object()) << r.out << r.err;
  if (std::getenv("AW_SHOW")) std::fprintf(stderr, "%s\n%s\n", u.dump(2).c_str(), r.err.c_str());
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(u["state"], "failed") << u.dump(2);
  std::string reason = u.value("reason", "");
  EXPECT_NE(reason.find("No space left on device"), std::string::npos) << reason;
  EXPECT_NE(reason.find(root + "/state"), std::string::npos) << reason;
  EXPECT_NE(notes_of(u).find("the transcript could not be written"), std::string::npos)
      << notes_of(u);
  EXPECT_EQ(u.value("branch", ""), "");
  EXPECT_EQ(git({"branch", "--list", "awaywork/*"}), "  " + first_branch + "\n");

  // What the database holds, with the disk still full and once it has room again.
  for (bool freed : {false, true}) {
    if (freed) {
      std::error_code ec;
      std::vector<std::filesystem::path> fills;
      for (const auto& e : std::filesystem::recursive_directory_iterator(u["run_dir"], ec))
        if (e.path().filename() == "fill") fills.push_back(e.path());
      ASSERT_EQ(fills.size(), 1u) << "the agent's fill is in the unit's outputs";
      std::filesystem::remove(fills[0]);
    }
    EXPECT_EQ(integrity_check(root + "/state/awaywork.db"), "ok");
    auto list = awaywork({"units", "--json"});
    ASSERT_TRUE(list.record.is_array() && list.record.size() == 2u) << list.out << list.err;
    auto shown = awaywork({"show", u["id"], "--json"});
    EXPECT_EQ(shown.record["state"], "failed") << shown.out << shown.err;
    EXPECT_EQ(shown.record.value("reason", ""), reason);
    auto earlier = awaywork({"show", first.record["id"], "--json"});
    EXPECT_EQ(earlier.record["state"], "done") << earlier.out << earlier.err;
    EXPECT_EQ(earlier.record["branch"], first_branch);
    EXPECT_EQ(earlier.record["phases"], first.record["phases"]);
  }
}

}  // namespace
}  // namespace aw::test
