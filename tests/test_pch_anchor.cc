// The target that builds the tests' precompiled header (cmake/build_speed.cmake,
// aw_test_pch_anchor): every test executable reuses it. It holds one test so it is a real one.
#include <gtest/gtest.h>

TEST(TestPch, BuildsTheSharedHeader) { SUCCEED(); }
