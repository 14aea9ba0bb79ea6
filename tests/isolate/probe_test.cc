#include <gtest/gtest.h>
TEST(Probe, Placeholder) {}
