// A byte-at-a-time JSON walk that tracks only the nesting depth, strings and the top-level keys;
// the body itself is never parsed into memory (it may be tens of megabytes of prompt).
#include "proxy/inference_body.h"

#include <fmt/format.h>

#include <limits>

namespace aw {
namespace {

bool is_limit_key(const std::string& k) {
  return k == "max_tokens" || k == "max_output_tokens" || k == "max_completion_tokens";
}

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

}  // namespace

void BodyScanner::feed(std::string_view bytes) {
  for (char c : bytes) step(c);
}

void BodyScanner::end_number(char next) {
  number_ = false;
  if (next != ',' && next != '}' && !is_space(next)) {
    refused_ = fmt::format("awaywork: the request's {} is not a whole number", key_);
    return;
  }
  if (!max_ || value_ > *max_) max_ = value_;  // duplicate keys: the largest counts
}

void BodyScanner::step(char c) {
  if (in_string_) {
    if (escape_) {
      escape_ = false;
    } else if (c == '\\') {
      escape_ = true;
      if (key_string_ && refused_.empty())
        refused_ = "awaywork: the request body's top-level keys may not use escapes";
    } else if (c == '"') {
      in_string_ = false;
      if (key_string_) key_string_ = false, have_key_ = true;
    } else if (key_string_ && key_.size() < 32) {
      key_ += c;
    }
    return;
  }
  if (number_) {
    if (c >= '0' && c <= '9') {
      uint64_t d = static_cast<uint64_t>(c - '0');
      uint64_t cap = std::numeric_limits<uint64_t>::max() / 10 - 1;
      value_ = value_ > cap ? std::numeric_limits<uint64_t>::max() : value_ * 10 + d;
      return;
    }
    end_number(c);
  }
  bool top = depth_ == 1;
  if (top && expect_value_ && !is_space(c)) {
    expect_value_ = false;
    if (limit_key_) {
      if (c >= '0' && c <= '9') {
        number_ = true;
        value_ = static_cast<uint64_t>(c - '0');
        return;
      }
      if (c != 'n')  // null: the API's default, as when absent
        refused_ = fmt::format("awaywork: the request's {} is not a whole number", key_);
    }
  }
  switch (c) {
    case '"':
      in_string_ = true;
      if (top && expect_key_) {
        key_string_ = true, expect_key_ = false;
        key_.clear();
      }
      break;
    case '{':
    case '[':
      ++depth_;
      if (depth_ == 1) expect_key_ = c == '{';
      break;
    case '}':
    case ']':
      --depth_;
      break;
    case ',':
      if (top) expect_key_ = true;
      break;
    case ':':
      if (top && have_key_) {
        have_key_ = false, expect_value_ = true;
        limit_key_ = is_limit_key(key_);
      }
      break;
    default:
      break;
  }
}

}  // namespace aw
