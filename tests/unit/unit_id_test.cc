#include "unit/unit_id.h"

#include <gtest/gtest.h>

namespace aw {
namespace {

TEST(UnitId, ReadsAsDateTimeSlugAndHex) {
  // 2026-11-29 18:03:12 UTC
  EXPECT_EQ(make_unit_id(1795975392, "Fix the typo in README!", 0x3f2a),
            "20261129-180312-fix-the-typo-in-readme-3f2a");
}

TEST(UnitId, SlugIsAsciiLowercaseAndCapped) {
  std::string id = make_unit_id(0, "Ünïcode ../../etc/passwd; rm -rf / && echo pwned-and-more", 1);
  EXPECT_EQ(id, "19700101-000000-n-code-etc-passwd-rm-rf-0001");
  EXPECT_EQ(id.find('/'), std::string::npos);
}

TEST(UnitId, EmptyPromptStillGivesASlug) {
  EXPECT_EQ(make_unit_id(0, "   ", 0xabcd), "19700101-000000-task-abcd");
}

TEST(UnitId, SortsByTime) {
  EXPECT_LT(make_unit_id(1000, "zzz", 0xffff), make_unit_id(1001, "aaa", 0));
}

}  // namespace
}  // namespace aw
