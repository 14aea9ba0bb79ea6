// Usage counts are cumulative within one response (anthropic's message_delta repeats the running
// output count), so each reported number replaces a smaller one instead of adding to it.
#include "proxy/inference_usage.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace aw {
namespace {

constexpr size_t kMaxEvent = 16u << 20;  // an SSE line or event, a JSON body
using nlohmann::json;

bool starts_with_ci(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[i])) != prefix[i]) return false;
  return true;
}

uint64_t number(const json& usage, const char* a, const char* b) {
  for (const char* key : {a, b}) {
    auto it = usage.find(key);
    if (it != usage.end() && it->is_number_unsigned()) return it->get<uint64_t>();
  }
  return 0;
}

}  // namespace

UsageMeter::UsageMeter(std::string_view content_type) {
  std::string_view t = content_type;
  while (!t.empty() && t.front() == ' ') t.remove_prefix(1);
  if (starts_with_ci(t, "text/event-stream"))
    kind_ = Kind::sse;
  else if (starts_with_ci(t, "application/json"))
    kind_ = Kind::json;
  else
    kind_ = Kind::none;
}

void UsageMeter::feed(std::string_view bytes) {
  if (kind_ == Kind::json) {
    if (body_.size() + bytes.size() <= kMaxEvent) body_.append(bytes);
    return;
  }
  if (kind_ != Kind::sse) return;
  while (!bytes.empty()) {
    size_t nl = bytes.find('\n');
    std::string_view part = bytes.substr(0, nl);
    if (!overflow_ && line_.size() + part.size() <= kMaxEvent)
      line_.append(part);
    else
      overflow_ = true;  // a line too long to be a usage event: skip it whole
    if (nl == std::string_view::npos) return;
    if (!overflow_) sse_line(line_);
    line_.clear();
    overflow_ = false;
    bytes.remove_prefix(nl + 1);
  }
}

void UsageMeter::sse_line(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.empty()) {  // the end of one event
    take(data_);
    data_.clear();
    return;
  }
  if (line.substr(0, 5) != "data:") return;  // event:, id:, comments
  line.remove_prefix(5);
  if (!line.empty() && line.front() == ' ') line.remove_prefix(1);
  if (!data_.empty()) data_ += '\n';
  if (data_.size() + line.size() <= kMaxEvent) data_.append(line);
}

void UsageMeter::finish() {
  if (kind_ == Kind::json) take(body_);
  if (kind_ == Kind::sse) {
    if (!line_.empty() && !overflow_) sse_line(line_);
    take(data_);
  }
  body_.clear();
  data_.clear();
  line_.clear();
}

void UsageMeter::take(std::string_view text) {
  if (text.find("\"usage\"") == std::string_view::npos) return;  // most events: text deltas
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return;
  const json* found[3] = {nullptr, nullptr, nullptr};
  auto usage_of = [](const json& o) -> const json* {
    auto it = o.find("usage");
    return it != o.end() && it->is_object() ? &*it : nullptr;
  };
  found[0] = usage_of(j);
  for (const char* outer : {"message", "response"}) {
    auto it = j.find(outer);
    if (it != j.end() && it->is_object()) found[outer[0] == 'm' ? 1 : 2] = usage_of(*it);
  }
  for (const json* u : found) {
    if (!u) continue;
    in_ = std::max(in_, number(*u, "input_tokens", "prompt_tokens"));
    out_ = std::max(out_, number(*u, "output_tokens", "completion_tokens"));
  }
}

}  // namespace aw
