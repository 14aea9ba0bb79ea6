// base/json_read.h: every reader answers a value or an Error naming the document and the field's
// path, never a throw, whatever the JSON holds (DESIGN.md section 9, invariant 7).
#include "base/json_read.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace aw {
namespace {

using nlohmann::json;

json doc() {
  return json::parse(R"({"name": "web", "count": 3, "ratio": 1.5, "on": true, "none": null,
    "big": 18446744073709551615, "neg": -2, "tags": ["a", "b"], "mixed": ["a", 7],
    "files": {"record.json": "abc", "n": 1}, "phases": [{"exit_code": 0}, "oops"]})");
}

std::string error_of(const auto& r) {
  return r ? std::string("(no error)") : r.error().message;
}

TEST(JsonRead, StringsRequiredAndOptional) {
  json j = doc();
  JsonRead r(j, "record.json");
  EXPECT_EQ(r.str("name").value_or("?"), "web");
  EXPECT_EQ(error_of(r.str("count")),
            R"(record.json: field "count": expected a string, got number)");
  EXPECT_EQ(error_of(r.str("absent")), R"(record.json: field "absent" is missing)");
  EXPECT_EQ(r.str_or("absent", "d").value_or("?"), "d");
  EXPECT_EQ(r.str_or("none", "d").value_or("?"), "d") << "null reads as absent";
  EXPECT_EQ(error_of(r.str_or("tags", "d")),
            R"(record.json: field "tags": expected a string, got array)");
}

TEST(JsonRead, IntegersWithinTheirRange) {
  json j = doc();
  JsonRead r(j, "record.json");
  EXPECT_EQ(r.int_in<int>("count").value_or(-1), 3);
  EXPECT_EQ(r.int_or("absent", int64_t{7}).value_or(-1), 7);
  EXPECT_EQ(error_of(r.int_in<int>("count", 0, 2)),
            R"(record.json: field "count": 3 is out of range [0, 2])");
  EXPECT_EQ(error_of(r.int_or("neg", 0, 0)),
            R"(record.json: field "neg": -2 is out of range [0, 2147483647])");
  EXPECT_EQ(error_of(r.int_in<int64_t>("big")),
            "record.json: field \"big\": 18446744073709551615 is out of range "
            "[-9223372036854775808, 9223372036854775807]");
  EXPECT_EQ(error_of(r.int_in<int>("ratio")),
            R"(record.json: field "ratio": expected an integer, got a floating-point number)");
  EXPECT_EQ(error_of(r.int_or("name", 0)),
            R"(record.json: field "name": expected an integer, got string)");
  EXPECT_EQ(error_of(r.int_or("on", 0)),
            R"(record.json: field "on": expected an integer, got boolean)");
  EXPECT_EQ(error_of(r.int_in<int>("absent")), R"(record.json: field "absent" is missing)");
}

TEST(JsonRead, UnsignedIntegersPastInt64MaxAndNumbers) {
  json j = doc();
  JsonRead r(j, "plan.json");
  EXPECT_EQ(r.uint_in<uint64_t>("big").value_or(0), UINT64_MAX);
  EXPECT_EQ(r.uint_in<uint16_t>("count").value_or(0), 3);
  EXPECT_EQ(error_of(r.uint_in<uint16_t>("big")),
            R"(plan.json: field "big": 18446744073709551615 is out of range [0, 65535])");
  EXPECT_EQ(error_of(r.uint_in<uint64_t>("neg")),
            R"(plan.json: field "neg": -2 is out of range [0, 18446744073709551615])");
  EXPECT_EQ(error_of(r.uint_in<uint64_t>("ratio")),
            R"(plan.json: field "ratio": expected an integer, got a floating-point number)");
  EXPECT_EQ(error_of(r.uint_in<uint64_t>("name")),
            R"(plan.json: field "name": expected an integer, got string)");
  EXPECT_EQ(error_of(r.uint_in<uint64_t>("absent")), R"(plan.json: field "absent" is missing)");
  EXPECT_EQ(r.number("ratio").value_or(0), 1.5);
  EXPECT_EQ(r.number("count").value_or(0), 3.0);
  EXPECT_EQ(error_of(r.number("on")), R"(plan.json: field "on": expected a number, got boolean)");
  EXPECT_EQ(error_of(r.number("absent")), R"(plan.json: field "absent" is missing)");
}

TEST(JsonRead, Booleans) {
  json j = doc();
  JsonRead r(j, "verdict.json");
  EXPECT_TRUE(r.boolean("on").value_or(false));
  EXPECT_FALSE(r.bool_or("absent", false).value_or(true));
  EXPECT_EQ(error_of(r.bool_or("count", false)),
            R"(verdict.json: field "count": expected a boolean, got number)");
  EXPECT_EQ(error_of(r.boolean("absent")), R"(verdict.json: field "absent" is missing)");
}

TEST(JsonRead, ObjectsNameTheirPathInside) {
  json j = doc();
  JsonRead r(j, "manifest.json");
  auto files = r.object("files");
  ASSERT_TRUE(files) << files.error().message;
  EXPECT_EQ(files->str("record.json").value_or("?"), "abc");
  EXPECT_EQ(error_of(files->str("n")),
            R"(manifest.json: field "files.n": expected a string, got number)");
  EXPECT_EQ(error_of(r.object("tags")),
            R"(manifest.json: field "tags": expected an object, got array)");
  EXPECT_EQ(error_of(r.object("absent")), R"(manifest.json: field "absent" is missing)");
  auto none = r.object_or("absent");
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->has_value());
  EXPECT_EQ(error_of(r.object_or("name")),
            R"(manifest.json: field "name": expected an object, got string)");
}

TEST(JsonRead, ArraysNameEachElement) {
  json j = doc();
  JsonRead r(j, "record.json");
  EXPECT_EQ(r.strings_or("tags").value_or(std::vector<std::string>{}),
            (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(r.strings_or("absent").value_or(std::vector<std::string>{"x"}).empty());
  EXPECT_EQ(error_of(r.strings_or("mixed")),
            R"(record.json: field "mixed[1]": expected a string, got number)");
  EXPECT_EQ(error_of(r.strings_or("name")),
            R"(record.json: field "name": expected an array, got string)");
  EXPECT_EQ(error_of(r.array("absent")), R"(record.json: field "absent" is missing)");
  EXPECT_EQ(r.strings("tags").value_or(std::vector<std::string>{}),
            (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(error_of(r.strings("absent")), R"(record.json: field "absent" is missing)");
  EXPECT_EQ(error_of(r.strings("mixed")),
            R"(record.json: field "mixed[1]": expected a string, got number)");
  auto phases = r.array_or("phases");
  ASSERT_TRUE(phases) << phases.error().message;
  ASSERT_EQ(phases->size(), 2u);
  EXPECT_EQ((*phases)[0].int_or("exit_code", -1).value_or(-9), 0);
  EXPECT_EQ(error_of((*phases)[1].int_or("exit_code", -1)),
            R"(record.json: field "phases[1]": expected an object, got string)");
}

TEST(JsonRead, ADocumentThatIsNotAnObjectFailsEveryRead) {
  json j = json::array({1, 2});
  JsonRead r(j, "record.json");
  EXPECT_EQ(error_of(r.is_object()), "record.json: expected an object, got array");
  EXPECT_EQ(error_of(r.str_or("id", "")), "record.json: expected an object, got array");
  EXPECT_EQ(error_of(r.int_or("issue", 0)), "record.json: expected an object, got array");
  EXPECT_EQ(error_of(r.bool_or("accepted", false)), "record.json: expected an object, got array");
  EXPECT_EQ(error_of(r.strings_or("notes")), "record.json: expected an object, got array");
  EXPECT_FALSE(r.has("id"));
}

// What was read never reaches the error: it may be hostile text bound for a terminal.
TEST(JsonRead, AnErrorCarriesNoValueRead) {
  json j = {{"id", {{"\x1b]0;pwned\x07", "\xe2\x80\xae"}}},
            {"list", json::array({"ok", {{"\x1b[2J", 1}}})}};
  JsonRead r(j, "record.json");
  for (const std::string& e : {error_of(r.str("id")), error_of(r.strings_or("list"))}) {
    EXPECT_EQ(e.find('\x1b'), std::string::npos) << e;
    EXPECT_EQ(e.find("\xe2\x80\xae"), std::string::npos) << e;
  }
}

}  // namespace
}  // namespace aw
