// base/json_write.h: JSON text from any strings, never a throw. A string that is not UTF-8 (an
// agent's result, a forge's comment) is written with U+FFFD for each such byte; the rest of the
// value is written whole.
#include "base/json_write.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

namespace aw {
namespace {

using nlohmann::json;

const std::string kFffd = "\xEF\xBF\xBD";  // U+FFFD in UTF-8

TEST(JsonWrite, BytesThatAreNotUtf8BecomeReplacementCharactersAndTheRestIsKept) {
  json j = {{"result", "done \xff\xfe here"}, {"id", "u1"}, {"n", 3}};
  std::string text;
  ASSERT_NO_THROW(text = json_text(j));
  auto back = json::parse(text);  // valid JSON, valid UTF-8
  EXPECT_EQ(back["result"], "done " + kFffd + kFffd + " here");
  EXPECT_EQ(back["id"], "u1");
  EXPECT_EQ(back["n"], 3);
  // A truncated multi-byte sequence, and an overlong encoding of '/'.
  EXPECT_EQ(json::parse(json_text(json("a\xE2\x82"))), "a" + kFffd);
  EXPECT_EQ(json::parse(json_text(json("\xC0\xAF"))).get<std::string>().find('/'),
            std::string::npos);
}

TEST(JsonWrite, IndentsAsAskedAndValidTextIsUnchanged) {
  json j = {{"a", "é ✓"}};
  EXPECT_EQ(json_text(j), j.dump());
  EXPECT_EQ(json_text(j, 2), j.dump(2));
  EXPECT_EQ(json_text(j, 2), "{\n  \"a\": \"é ✓\"\n}");
}

}  // namespace
}  // namespace aw
