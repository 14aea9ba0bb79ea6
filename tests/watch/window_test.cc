// A watch window in local time (watch/window.h): open inside it, closed outside, across midnight
// too, and how long it has left. TZ is fixed for the test.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <time.h>

#include "watch/window.h"

namespace aw {
namespace {

int64_t at(int h, int m) {
  return 1796083200 + h * 3600 + m * 60;  // 2026-12-01T00:00:00Z
}

class WindowTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ::setenv("TZ", "UTC", 1);
    ::tzset();
  }
};

TEST_F(WindowTest, AWindowAcrossMidnightIsOpenAtNightOnly) {
  WatchWindow w{22 * 3600, 7 * 3600};
  EXPECT_TRUE(window_open(w, at(23, 0)));
  EXPECT_TRUE(window_open(w, at(3, 0)));
  EXPECT_FALSE(window_open(w, at(7, 0)));
  EXPECT_FALSE(window_open(w, at(12, 0)));
  EXPECT_TRUE(window_open(w, at(22, 0)));
  EXPECT_EQ(window_left(w, at(23, 0)), 8 * 3600);
  EXPECT_EQ(window_left(w, at(6, 59)), 60);
  EXPECT_EQ(window_left(w, at(12, 0)), 0);
}

TEST_F(WindowTest, ADaytimeWindowAndNoWindow) {
  WatchWindow w{9 * 3600, 17 * 3600};
  EXPECT_TRUE(window_open(w, at(9, 0)));
  EXPECT_FALSE(window_open(w, at(17, 0)));
  EXPECT_FALSE(window_open(w, at(8, 59)));
  EXPECT_TRUE(window_open(WatchWindow{}, at(8, 59)));
  EXPECT_GT(window_left(WatchWindow{}, at(8, 59)), 86400 * 365);
}

}  // namespace
}  // namespace aw
