#include <gtest/gtest.h>

#include "config/size.h"
#include "config/suggest.h"

namespace aw {
namespace {

TEST(ParseSize, UnitsAreBinaryInEverySpelling) {
  EXPECT_EQ(*parse_size("4G"), 4ull << 30);
  EXPECT_EQ(*parse_size("4g"), 4ull << 30);
  EXPECT_EQ(*parse_size("4GiB"), 4ull << 30);
  EXPECT_EQ(*parse_size("4Gi"), 4ull << 30);
  EXPECT_EQ(*parse_size("4GB"), 4ull << 30);
  EXPECT_EQ(*parse_size("512M"), 512ull << 20);
  EXPECT_EQ(*parse_size("1024K"), 1024ull << 10);
  EXPECT_EQ(*parse_size("1T"), 1ull << 40);
  EXPECT_EQ(*parse_size("1048576"), 1048576u);
  EXPECT_EQ(*parse_size("100B"), 100u);
}

TEST(ParseSize, GarbageAndOverflowAreRefusedWithHowToWriteIt) {
  for (const char* bad : {"", "G", "4X", "4 G", "-4G", "4.5G", "4GG", "0x10"}) {
    auto r = parse_size(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().message,
              fmt::format("'{}' is not a size; write a number with an optional unit K, M, G or T, "
                          "e.g. 4G or 512M",
                          bad));
  }
  EXPECT_FALSE(parse_size("99999999999999999999"));
  EXPECT_FALSE(parse_size("20000000000T"));
}

TEST(Suggest, CloseSpellingsAndPrefixesAreSuggested) {
  std::vector<std::string> keys = {"path", "url", "base", "setup", "checks", "image"};
  EXPECT_EQ(suggest("chekcs", keys), "checks");
  EXPECT_EQ(suggest("check", keys), "checks");
  EXPECT_EQ(suggest("Image", keys), "image");
  EXPECT_EQ(suggest("setup_command", keys), "setup");  // prefix, too far for the distance
  EXPECT_EQ(suggest("zzzzzz", keys), "");
  EXPECT_EQ(suggest("x", keys), "");  // one letter is not "close" to everything
  EXPECT_EQ(did_you_mean("urll", keys), "; did you mean 'url'?");
  EXPECT_EQ(did_you_mean("qqq", keys), "");
}

TEST(Suggest, LevenshteinCountsEdits) {
  EXPECT_EQ(levenshtein("kitten", "sitting"), 3u);
  EXPECT_EQ(levenshtein("", "abc"), 3u);
  EXPECT_EQ(levenshtein("same", "same"), 0u);
}

}  // namespace
}  // namespace aw
