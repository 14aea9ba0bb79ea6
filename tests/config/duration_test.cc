// Short durations (issue 40): one parser for limits.engine_silence and plugins.NAME.timeout, with
// the stricter of their old rules (digits only, ms/s/m, no value that overflows on its way to
// milliseconds) and each key its own range and fix.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "config/duration.h"
#include "config_fixture.h"

namespace aw {
namespace {

constexpr DurationRange kTenMinutes{1000, 600 * 1000, "1s", "10m"};

TEST(Duration, AWholeNumberThenMsSOrM) {
  EXPECT_EQ(*parse_duration_ms("1500ms", kTenMinutes), 1500);
  EXPECT_EQ(*parse_duration_ms("10s", kTenMinutes), 10000);
  EXPECT_EQ(*parse_duration_ms("2m", kTenMinutes), 120000);
  EXPECT_EQ(*parse_duration_ms("010s", kTenMinutes), 10000);
  EXPECT_EQ(*parse_duration_ms("1s", kTenMinutes), 1000);     // both ends are in
  EXPECT_EQ(*parse_duration_ms("10m", kTenMinutes), 600000);  //
}

TEST(Duration, AnythingElseIsRefusedSayingTheRangeAndTheForm) {
  for (const char* bad : {"", "s", "10", "10h", "1.5s", "-5s", "+5s", " 5s", "5s ", "5 s", "5S",
                          "0s", "999ms", "11m", "601s", "1234567890ms", "0x10s",
                          // 2^59 + 1 minutes: n * 60000 wraps to exactly one minute in 64 bits,
                          // which the old engine_silence parser (std::strtoll, no cap) accepted.
                          "576460752303423489m"}) {
    auto r = parse_duration_ms(bad, kTenMinutes);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().message, fmt::format("'{}' is not a duration from 1s to 10m (a whole "
                                             "number then ms, s or m)",
                                             bad));
  }
}

class DurationKeys : public ConfigFixture {};

TEST_F(DurationKeys, BothKeysAcceptTheSameForms) {
  Config c = parse(
      "limits: {engine_silence: 1500ms}\nplugins: {n: {kind: notifier, command: [/bin/n], "
      "timeout: 1500ms}}\n");
  EXPECT_EQ(c.limits.engine_silence_ms, 1500);
  EXPECT_EQ(c.plugins.plugins.at("n").timeout_ms, 1500);
  c = parse(
      "limits: {engine_silence: 60m}\nplugins: {n: {kind: notifier, command: [/bin/n], "
      "timeout: 10m}}\n");
  EXPECT_EQ(c.limits.engine_silence_ms, 3600 * 1000);
  EXPECT_EQ(c.plugins.plugins.at("n").timeout_ms, 600 * 1000);
}

TEST_F(DurationKeys, EachKeyRefusesAtItsPlaceWithItsRangeAndFix) {
  std::string e = error_of("limits:\n  engine_silence: 576460752303423489m\n");
  EXPECT_EQ(e,
            "config.yml:2:19: limits.engine_silence: '576460752303423489m' is not a duration from "
            "1s to 1h (a whole number then ms, s or m); write a duration from 1s to 1h, e.g. "
            "engine_silence: 60s");
  e = error_of("plugins:\n  n:\n    kind: notifier\n    command: [/bin/n]\n    timeout: 1.5s\n");
  EXPECT_EQ(e,
            "config.yml:5:14: plugins.n.timeout: '1.5s' is not a duration from 1s to 10m (a whole "
            "number then ms, s or m); write a duration from 1s to 10m, e.g. timeout: 10s");
  // The stricter rules hold for both: a sign, and a value past the key's range.
  EXPECT_NE(error_of("limits: {engine_silence: +60s}\n").find("'+60s' is not a duration"),
            std::string::npos);
  EXPECT_NE(error_of("limits: {engine_silence: 61m}\n").find("from 1s to 1h"), std::string::npos);
  EXPECT_NE(
      error_of("plugins: {n: {kind: notifier, command: [/bin/n], timeout: 576460752303423489m}}\n")
          .find("is not a duration from 1s to 10m"),
      std::string::npos);
}

}  // namespace
}  // namespace aw
