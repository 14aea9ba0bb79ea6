#include "base/sha256.h"

#include <gtest/gtest.h>

namespace aw {
namespace {

TEST(Sha256, KnownDigests) {
  // FIPS 180-2's examples.
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex(std::string("a\0b", 3)).size(), 64u);  // bytes, not a C string
  EXPECT_NE(sha256_hex(std::string("a\0b", 3)), sha256_hex("a"));
}

}  // namespace
}  // namespace aw
