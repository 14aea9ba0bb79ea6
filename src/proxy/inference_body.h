// What the inference proxy reads from a request body while it streams through to the upstream:
// the top-level output limit the agent asked for ("max_tokens" in Anthropic Messages and OpenAI
// Chat, "max_output_tokens" in OpenAI Responses, "max_completion_tokens" in Chat). Bytes are fed
// one piece at a time; nothing of the body is kept beyond a key's first 32 characters.
//   BodyScanner scan;  scan.feed(piece); ...;  if (scan.refused()) ...  else scan.max_tokens()
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace aw {

class BodyScanner {
 public:
  void feed(std::string_view bytes);
  // The largest output limit given at the top level; none when the body names none.
  std::optional<uint64_t> max_tokens() const { return max_; }
  // Why the limit cannot be trusted ("" = it can): an output limit that is not a whole number,
  // or a top-level key written with escapes ("max\u005ftokens" would hide one from this scanner
  // and still be read by the upstream).
  const std::string& refused() const { return refused_; }

 private:
  void step(char c);
  void end_number(char next);
  int depth_ = 0;
  bool in_string_ = false, escape_ = false, key_string_ = false;
  bool expect_key_ = false, have_key_ = false, expect_value_ = false, number_ = false;
  bool limit_key_ = false;
  std::string key_;
  uint64_t value_ = 0;
  std::optional<uint64_t> max_;
  std::string refused_;
};

}  // namespace aw
