// Randomness from getrandom only: when the kernel gives none, an error, never other bytes.
#include "base/random.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>

namespace aw {
namespace {

bool all_hex(const std::string& s) {
  return s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

TEST(Random, FillsAndDiffersEachTime) {
  unsigned char a[32], b[32];
  ASSERT_TRUE(random_bytes(a, sizeof a));
  ASSERT_TRUE(random_bytes(b, sizeof b));
  EXPECT_NE(std::memcmp(a, b, sizeof a), 0);  // equal once in 2^256
  auto h = random_hex(16);
  ASSERT_TRUE(h) << h.error().message;
  EXPECT_EQ(h->size(), 32u);
  EXPECT_TRUE(all_hex(*h)) << *h;
  EXPECT_NE(*h, *random_hex(16));
  EXPECT_EQ(*random_hex(0), "");
}

TEST(Random, FailsClosedWhenTheKernelGivesNothing) {
  unsigned char buf[16];
  std::memset(buf, 0xAA, sizeof buf);
  auto no_syscall = [](void*, size_t, unsigned) -> ssize_t {
    errno = ENOSYS;
    return -1;
  };
  Status s = detail::random_bytes_from(no_syscall, buf, sizeof buf);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("getrandom"), std::string::npos) << s.error().message;
  for (unsigned char c : buf) EXPECT_EQ(c, 0);  // nothing left that looks random

  auto nothing = [](void*, size_t, unsigned) -> ssize_t { return 0; };
  EXPECT_FALSE(detail::random_bytes_from(nothing, buf, sizeof buf));

  // Half given, then an error: still an error, not the half.
  static int calls;
  calls = 0;
  auto half = [](void* p, size_t n, unsigned) -> ssize_t {
    if (calls++ > 0) return errno = EIO, -1;
    std::memset(p, 0x55, n / 2);
    return static_cast<ssize_t>(n / 2);
  };
  EXPECT_FALSE(detail::random_bytes_from(half, buf, sizeof buf));
  for (unsigned char c : buf) EXPECT_EQ(c, 0);
}

TEST(Random, ReadsAgainAfterAnInterruptOrAShortRead) {
  static int calls;
  calls = 0;
  auto dribble = [](void* p, size_t, unsigned) -> ssize_t {
    if (calls++ % 2 == 0) return errno = EINTR, -1;  // a signal arrived
    *static_cast<unsigned char*>(p) = static_cast<unsigned char>(calls);
    return 1;  // one byte at a time
  };
  unsigned char buf[5] = {};
  ASSERT_TRUE(detail::random_bytes_from(dribble, buf, sizeof buf));
  EXPECT_EQ(calls, 10);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(buf[i], 2 * (i + 1));
}

}  // namespace
}  // namespace aw
