#include "base/hex.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace aw {
namespace {

TEST(Hex, TwoLowercaseDigitsAByte) {
  EXPECT_EQ(to_hex(std::string_view("")), "");
  EXPECT_EQ(to_hex(std::string_view("\x00\x01\xab\xff", 4)), "0001abff");
  const unsigned char raw[] = {0xde, 0xad, 0xbe, 0xef};
  EXPECT_EQ(to_hex(raw), "deadbeef");
}

TEST(Hex, EveryByteAsFmtWritesIt) {
  // The branch-free digits against the plain way of writing them.
  for (int b = 0; b < 256; ++b) {
    unsigned char c = static_cast<unsigned char>(b);
    EXPECT_EQ(to_hex(std::span<const unsigned char>(&c, 1)), fmt::format("{:02x}", b)) << b;
  }
}

}  // namespace
}  // namespace aw
