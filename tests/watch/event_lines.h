// A watch event log (one JSON object a line, `awaywork watch --log FILE`) read back as a JSON
// array; a line that is not JSON is a test failure:
//   nlohmann::json lines = event_lines(slurp(log_file));
#pragma once

#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

namespace aw::test {

inline nlohmann::json event_lines(const std::string& text) {
  nlohmann::json lines = nlohmann::json::array();
  size_t at = 0;
  while (at < text.size()) {
    size_t nl = text.find('\n', at);
    auto j = nlohmann::json::parse(text.substr(at, nl - at), nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << text.substr(at, nl - at);
    lines.push_back(j);
    at = nl == std::string::npos ? text.size() : nl + 1;
  }
  return lines;
}

}  // namespace aw::test
