// A config test: HOME fixed, parse() expecting success, error_of() expecting the error text.
#pragma once

#include <gtest/gtest.h>

#include "config/config.h"
#include "env_guard.h"

namespace aw {

class ConfigFixture : public ::testing::Test {
 protected:
  void SetUp() override { env_.set("HOME", "/home/tester"); }
  Config parse(const std::string& text) {
    auto r = parse_config(text, "/etc/aw/config.yml");
    EXPECT_TRUE(r) << (r ? "" : r.error().message);
    return r ? *r : Config{};
  }
  std::string error_of(const std::string& text) {
    auto r = parse_config(text, "config.yml");
    EXPECT_FALSE(r) << "accepted:\n" << text;
    return r ? "" : r.error().message;
  }
  EnvGuard env_;
};

}  // namespace aw
