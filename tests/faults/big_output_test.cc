// An agent that prints 1 GB: the transcript stops at max_transcript_bytes with a note where it was
// cut, the unit completes `done` with the agent's work, and the state folder does not grow by
// anything like what was printed.
#include <sys/stat.h>

#include <filesystem>

#include "unit_fixture.h"

namespace aw::test {
namespace {

namespace fs = std::filesystem;

uint64_t tree_bytes(const std::string& dir) {
  uint64_t sum = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    struct stat st {};
    if (::lstat(it->path().c_str(), &st) == 0 && S_ISREG(st.st_mode))
      sum += static_cast<uint64_t>(st.st_blocks) * 512;
  }
  return sum;
}

class BigOutput : public UnitTest {};

TEST_F(BigOutput, AnAgentPrintingOneGigabyteLeavesACappedTranscriptAndTheUnitDone) {
  make_repo({{"a.txt", "a\n"}});
  write_config(
      agent_script("agent", "head -c 1G /dev/zero | tr '\\0' x\necho\necho edited > a.txt\n"), "",
      "sandbox: {mode: off}\nmax_transcript_bytes: 1M\n");
  auto r = run_unit("print a lot");
  auto u = r.record;
  ASSERT_FALSE(u.is_null()) << r.out << r.err;
  EXPECT_EQ(u.value("state", ""), "done") << u.dump(2);
  std::string run_dir = u.value("run_dir", "");
  struct stat st {};
  ASSERT_EQ(::stat((run_dir + "/transcript.log").c_str(), &st), 0);
  EXPECT_LE(static_cast<uint64_t>(st.st_size), (1u << 20) + 1024u);  // the cap plus the cut note
  std::string log = read(run_dir + "/transcript.log");
  EXPECT_NE(log.find("reached max_transcript_bytes (1048576 bytes) and was cut here"),
            std::string::npos);
  EXPECT_NE(read(run_dir + "/patch.diff").find("+edited"), std::string::npos);
  // Everything the unit kept: the clone, the record, the database: nowhere near 1 GB.
  EXPECT_LT(tree_bytes(root + "/state"), 64ull << 20) << "the state folder grew by the output";
}

}  // namespace
}  // namespace aw::test
