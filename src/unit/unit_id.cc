#include "unit/unit_id.h"

#include <fmt/format.h>

#include <cctype>
#include <chrono>

#include "base/random.h"

namespace aw {

namespace {

// Whole ASCII words of the prompt, lowercased, joined by '-', at most 24 characters.
std::string slug(const std::string& prompt) {
  std::string out, word;
  auto take = [&] {
    if (word.empty()) return true;
    size_t need = word.size() + (out.empty() ? 0 : 1);
    if (out.size() + need > 24) {
      if (out.empty()) out = word.substr(0, 24);
      return false;
    }
    out += (out.empty() ? "" : "-") + word;
    word.clear();
    return true;
  };
  for (unsigned char c : prompt) {
    if (c < 128 && std::isalnum(c)) {
      word += static_cast<char>(std::tolower(c));
    } else if (!take()) {
      break;
    }
  }
  take();
  return out.empty() ? "task" : out;
}

}  // namespace

std::string make_unit_id(std::time_t when, const std::string& prompt, unsigned random) {
  std::tm tm{};
  gmtime_r(&when, &tm);
  return fmt::format("{:04}{:02}{:02}-{:02}{:02}{:02}-{}-{:04x}", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, slug(prompt), random & 0xffff);
}

Result<std::string> new_unit_id(const std::string& prompt) {
  unsigned r = 0;
  AW_CHECK(with_context(random_bytes(&r, sizeof r), "naming the unit"));
  return make_unit_id(std::time(nullptr), prompt, r);
}

std::string iso_now() {
  using namespace std::chrono;
  auto now = system_clock::now();
  std::time_t t = system_clock::to_time_t(now);
  auto ms = duration_cast<milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms);
}

}  // namespace aw
