// Token counting for the inference proxy: reads the usage the upstream reports in a response while
// it streams through, without holding the stream back. SSE events are parsed one at a time; a
// plain JSON body is kept (up to a cap) only to be parsed once it has been relayed.
//   anthropic: JSON usage.{input,output}_tokens; SSE message_start (message.usage) and
//              message_delta (usage.output_tokens, cumulative)
//   openai:    Responses API response.completed (response.usage.{input,output}_tokens), plain
//              JSON usage (also chat completions' prompt_tokens/completion_tokens)
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace aw {

class UsageMeter {
 public:
  // content_type: the response's Content-Type (text/event-stream, application/json, other).
  explicit UsageMeter(std::string_view content_type);
  void feed(std::string_view bytes);
  void finish();  // end of the body: parse what is left
  uint64_t input_tokens() const { return in_; }
  uint64_t output_tokens() const { return out_; }

 private:
  void sse_line(std::string_view line);
  void take(std::string_view json);
  enum class Kind { none, sse, json } kind_;
  std::string line_, data_, body_;
  bool overflow_ = false;
  uint64_t in_ = 0, out_ = 0;
};

}  // namespace aw
